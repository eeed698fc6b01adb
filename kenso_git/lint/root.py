"""The root `kenso-git lint` judges a run by, from the folder it runs in: the same rule for
the CLI and the language server (`LiveCorpus.open`), so an editor opened on a folder shows
the findings `kenso-git lint` prints there.

In git it is the top of the work tree. Outside git it is the folder of the index at or above
the folder run in (`repo.indexroot`, as `search` and `serve` find theirs), so links and
anchors across files are judged against the same pages from `guide/` as from the root.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kenso_git.repo.indexroot import holds_index
from kenso_git.repo.indexroot import root_with_index
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import find_workspace


def lint_workspace(paths: Sequence[Path], here: Path | None = None) -> Workspace:
    """The repository holding `paths` (none: the whole one) linted from the folder `here`
    (default: the current one); outside git, the folder of the index at or above `here`
    when it holds them all, else the folder linted (or `here` for files).

    Raises:
        UsageError: `here` or the first path does not exist.
    """
    found_here = root_with_index(find_workspace(here))
    if not paths:
        return found_here
    real = [p.resolve() for p in paths]
    root = found_here.root
    if (found_here.is_git or holds_index(root)) and all(p.is_relative_to(root) for p in real):
        return found_here
    found = find_workspace(paths[0])
    if found.is_git or (len(real) == 1 and real[0].is_dir()):
        return found
    if all(p.is_relative_to(root) for p in real):
        return found_here
    return found

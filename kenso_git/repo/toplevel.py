"""Which top-level names of a repository git had: a folder renamed or deleted whole (`git mv
src lib`) leaves the work tree with no `src`, yet a doc's `src/pkg/tool.py` names a path of
the repository, which git's rename history can place (lint's path rules ask).

Asked only about names the docs use that the work tree lacks, so the cost follows them: one
`git log` of the commits that deleted something under them, and HEAD's tree for those
deleted since (staged or not).
"""

from __future__ import annotations

from collections.abc import Collection

from kenso_git.errors import GitError
from kenso_git.repo.gitrun import EarlyGit
from kenso_git.repo.workspace import Workspace

MAX_NAMES = 256  # names asked about in one run; more are left unasked


def former_names(ws: Workspace, names: Collection[str]) -> frozenset[str]:
    """The `names` (top-level, missing from the work tree) that git had: in HEAD's tree or
    under a path a commit of HEAD's history deleted. Outside git or with no commit yet,
    none.

    Raises:
        GitError: git failed on a repository it should read.
    """
    asked = sorted(names)[:MAX_NAMES]
    if not ws.is_git or not asked:
        return frozenset()
    log = EarlyGit(
        ws,
        "--literal-pathspecs",
        "log",
        "--format=",
        "--name-only",
        "-z",
        "--no-renames",
        "--diff-filter=D",
        "HEAD",
        "--",
        *asked,
    )
    head = EarlyGit(ws, "ls-tree", "--name-only", "-z", "HEAD", "--", *asked)
    try:
        found = {name.partition("/")[0] for name in head.result().split("\0") if name}
    except GitError:
        log.discard()
        return frozenset()  # no commit yet (an unborn HEAD): nothing was ever removed
    found.update(name.partition("/")[0] for name in log.result().split("\0") if name)
    return frozenset(found & set(asked))

"""The one POSIX shim template, rendered per git hook.

`shim.sh.in` holds the shim once; `render(name)` fills in the hook name, the rebase verbs
that `kenso_git.repo.git` owns and the agent instruction files `kenso_git.repo.drift` knows
(for the drift line of post-checkout and post-merge, #29). The top-level `hooks/` folder
holds the rendered shims for readers and for tools that copy hook files
(`python -m kenso_git.triggers.githooks.shim hooks/` regenerates it; a test fails when it
is stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

from kenso_git.api.git import INSTRUCTION_PATHSPECS
from kenso_git.api.git import REWRITING_VERBS
from kenso_git.errors import GitError

HOOK_NAMES = ("post-checkout", "post-merge", "post-rewrite", "post-index-change")
# Hooks older versions installed and this one no longer needs: a commit changes no file, and
# the next read notices HEAD moved (index/refresh.py). `hooks install` removes our shims of
# them; the runner still accepts them, so a shim left behind costs a no-op call.
RETIRED_HOOKS = ("post-commit",)
TEMPLATE = "shim.sh.in"


def render(name: str) -> str:
    """The shim for hook `name` (no executable recorded).

    Raises:
        GitError: `name` is not one of the hooks kenso-git installs.
    """
    if name not in HOOK_NAMES:
        raise GitError(f"unknown hook {name!r}", hint=f"known hooks: {', '.join(HOOK_NAMES)}")
    from importlib import resources

    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    drift = " ".join(f"'{spec}'" for spec in INSTRUCTION_PATHSPECS)
    return (
        template.replace("@HOOK@", name, 1)
        .replace("@REWRITING@", " | ".join(REWRITING_VERBS))
        .replace("@DRIFT@", drift)
    )


def write_folder(folder: Path) -> list[Path]:
    """Write every rendered shim into `folder` (executable), replacing what is there."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in HOOK_NAMES:
        path = folder / name
        path.write_text(render(name), encoding="utf-8")
        path.chmod(0o755)
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_folder(Path(sys.argv[1] if len(sys.argv) > 1 else "hooks")):
        sys.stderr.write(f"wrote {written_path}\n")

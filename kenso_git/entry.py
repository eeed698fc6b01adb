"""The `kenso-git` executable's entry point.

`kenso-git hook NAME ARGS...` is what git's hook shims run on every checkout, merge and
commit, so it skips click (~40 ms to import) and goes straight to the hook runtime; every
other command goes through the click CLI.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Run `kenso-git` with `argv` (default: the process's arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-"):
        from kenso_git.hooks import hook_main

        hook_main(args[1], args[2:])
        raise SystemExit(0)
    from kenso_git.cli import main as cli_main

    cli_main(args)

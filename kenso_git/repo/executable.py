"""Where this installation's `kenso-git` console script is, for files that must start it.

Installed hook shims record `find_script()`: an absolute path, so hooks run from GUIs and
IDEs whose PATH lacks the virtualenv. MCP client entries use `script_command()`: the bare
name when PATH finds it, so the entry keeps working after a reinstall, else a path.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SCRIPT_NAME = "kenso-git"


def _beside_interpreter() -> Path:
    # pip, pipx and uv put console scripts in the interpreter's own bin/ (Scripts\ on Windows)
    return Path(sys.executable).parent / SCRIPT_NAME


def find_script() -> str | None:
    """The absolute path of this installation's `kenso-git` script, else PATH's; or None."""
    beside = _beside_interpreter()
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(SCRIPT_NAME)
    return str(Path(found).resolve()) if found else None


def script_command() -> str:
    """`kenso-git` when it is on PATH, else the absolute path of this installation's script."""
    if shutil.which(SCRIPT_NAME):
        return SCRIPT_NAME
    beside = _beside_interpreter()
    if beside.is_file():
        return str(beside)
    argv0 = Path(sys.argv[0])  # run by path from outside the interpreter's bin/ (e.g. a zipapp)
    if argv0.name == SCRIPT_NAME and argv0.is_file():
        return str(argv0.resolve())
    return str(beside)

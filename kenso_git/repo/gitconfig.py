"""Just enough of git's configuration, read from the files (no pygit2, no subprocess).

Answers the few questions the fast paths need: `core.excludesFile` for the ignore rules,
and whether any content filter (CRLF conversion, .gitattributes) could make git's blob id
of a file differ from the plain hash of its bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from kenso_git.repo.workspace import Workspace

_TRUE = {"true", "yes", "on", "1", "input"}  # core.autocrlf's values that convert
_BOOL_TRUE = frozenset({"true", "yes", "on", "1"})
_BOOL_FALSE = frozenset({"false", "no", "off", "0"})


def is_true(value: str) -> bool:
    """A git boolean that says yes (`git config --type=bool` prints `true`)."""
    return value.strip().lower() in _BOOL_TRUE


def is_false(value: str) -> bool:
    """A git boolean that says no."""
    return value.strip().lower() in _BOOL_FALSE


def config_files(ws: Workspace) -> list[Path]:
    """The configuration files git reads for `ws`, in the order later ones win."""
    files: list[Path] = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        files.append(Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    files.append(_xdg_git("config"))
    glob_cfg = os.environ.get("GIT_CONFIG_GLOBAL")
    files.append(Path(glob_cfg) if glob_cfg else Path.home() / ".gitconfig")
    if ws.common_dir is not None:
        files.append(ws.common_dir / "config")
    if ws.git_dir is not None and ws.git_dir != ws.common_dir:
        files.append(ws.git_dir / "config.worktree")
    return files


def read_config(ws: Workspace) -> dict[str, str]:
    """`section.key` (lower case, subsections skipped) -> value; later files win."""
    values: dict[str, str] = {}
    for path in config_files(ws):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        section = ""
        for raw in lines:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                header = line[1:].split("]", 1)[0].strip()
                section = "" if " " in header or "." in header else header.lower()
            elif section and "=" in line:
                key, _, value = line.partition("=")
                values[f"{section}.{key.strip().lower()}"] = value.strip().strip('"')
            elif section:
                values[f"{section}.{line.lower()}"] = "true"
    return values


def _xdg_git(name: str) -> Path:
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "git" / name


def excludes_file(config: dict[str, str]) -> Path:
    """`core.excludesFile`, else git's default `$XDG_CONFIG_HOME/git/ignore`."""
    value = config.get("core.excludesfile")
    return Path(os.path.expanduser(value)) if value else _xdg_git("ignore")


def _non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def filters_may_apply(ws: Workspace, config: dict[str, str], *, saw_attributes: bool) -> bool:
    """True when git's blob id of a work-tree file may differ from the hash of its bytes."""
    if config.get("core.autocrlf", "false").lower() in _TRUE or "core.eol" in config:
        return True
    if saw_attributes:
        return True
    attributes = config.get("core.attributesfile")
    global_attrs = Path(os.path.expanduser(attributes)) if attributes else _xdg_git("attributes")
    info_attrs = ws.common_dir / "info" / "attributes" if ws.common_dir else None
    return _non_empty(global_attrs) or (info_attrs is not None and _non_empty(info_attrs))

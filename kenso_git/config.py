"""Settings: `KENSO_*` environment variables and `[tool.kenso]` / `.kenso.toml`.

Precedence: environment variable > `.kenso.toml` > `[tool.kenso]` in `pyproject.toml` >
default. Keys are kebab-case; `snake_case` spellings are accepted too. An unknown key
or a value of the wrong type is a usage error naming the key and the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from kenso_git.errors import ConfigError

# Keys of [tool.kenso] that the linter reads (validated in detail by kenso_git.lint.config).
LINT_KEYS = frozenset(
    {
        "select",
        "ignore",
        "extend-select",
        "severity",
        "per-file-ignores",
        "fail-under",
        "thresholds",
        "baseline",
    }
)
CORE_KEYS = frozenset(
    {
        "chunk-size",
        "chunk-overlap",
        "preview-chars",
        "search-limit-max",
        "max-file-size",
        "exclude",
        "agent-scoped-roots",
        "allow-reindex",
        "synonyms",
    }
)


class Settings(NamedTuple):
    """Every tunable of kenso-git, after env vars and config files are merged."""

    chunk_size: int = 4000
    chunk_overlap: int = 0
    preview_chars: int = 200
    search_limit_max: int = 20
    max_file_size: int = 2_000_000  # bytes; larger Markdown files are skipped with a warning
    exclude: tuple[str, ...] = ()  # extra gitignore-style patterns
    agent_scoped_roots: tuple[str, ...] = ()  # repo-relative folders the MCP server may show
    allow_reindex: bool = False
    synonyms_path: str | None = None
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "WARNING"
    lint: Mapping[str, object] = MappingProxyType({})  # raw lint keys, kebab-case
    source: str | None = None  # the config file the values came from, for messages


_ENV_INT = {
    "KENSO_CHUNK_SIZE": ("chunk_size", 100),
    "KENSO_CHUNK_OVERLAP": ("chunk_overlap", 0),
    "KENSO_CONTENT_PREVIEW_CHARS": ("preview_chars", 10),
    "KENSO_SEARCH_LIMIT_MAX": ("search_limit_max", 1),
    "KENSO_PORT": ("port", 0),
    "KENSO_MAX_FILE_SIZE": ("max_file_size", 1),
}
_FILE_INT = {
    "chunk-size": ("chunk_size", 100),
    "chunk-overlap": ("chunk_overlap", 0),
    "preview-chars": ("preview_chars", 10),
    "search-limit-max": ("search_limit_max", 1),
    "max-file-size": ("max_file_size", 1),
}
TRANSPORTS = ("stdio", "http", "streamable-http")


def _normalise_keys(table: Mapping[str, object], where: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in table.items():
        if not isinstance(key, str):
            raise ConfigError(f"[tool.kenso] key {key!r} is not a string", path=where)
        out[key.replace("_", "-")] = value
    return out


def read_config_table(root: Path) -> tuple[dict[str, object], str | None]:
    """Return the merged `[tool.kenso]` table and the file that supplied it (if any).

    Raises:
        ConfigError: a config file is not valid TOML or holds an unknown key.
    """
    merged: dict[str, object] = {}
    source: str | None = None
    for name, getter in (("pyproject.toml", _tool_kenso), (".kenso.toml", _whole_file)):
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"cannot read {name}: {err}", path=name) from err
        if name == "pyproject.toml" and "kenso" not in text:
            continue  # no [tool.kenso] table: skip the TOML parser (and its import)
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(
                f"cannot read {name}: {err}",
                path=name,
                hint="fix the TOML syntax, or move the file away",
            ) from err
        table = getter(data, name)
        if table is None:
            continue
        table = _normalise_keys(table, name)
        for key in table:
            if key not in CORE_KEYS and key not in LINT_KEYS:
                known = ", ".join(sorted(CORE_KEYS | LINT_KEYS))
                table_name = "[tool.kenso] of pyproject.toml" if name == "pyproject.toml" else name
                raise ConfigError(
                    f"unknown key {key!r} in {table_name}",
                    path=name,
                    hint=f"known keys: {known}",
                )
        merged.update(table)
        source = name
    return merged, source


def _tool_kenso(data: Mapping[str, object], name: str) -> Mapping[str, object] | None:
    tool = data.get("tool")
    if not isinstance(tool, Mapping):
        return None
    table = tool.get("kenso")
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError("[tool.kenso] must be a table", path=name)
    return table


def _whole_file(data: Mapping[str, object], name: str) -> Mapping[str, object] | None:
    # `.kenso.toml` may hold the keys at top level or under [tool.kenso].
    nested = _tool_kenso(data, name)
    return nested if nested is not None else data


def _as_int(value: object, key: str, minimum: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"{key} must be an integer, got {value!r}", path=where)
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(
            f"{key} must be an integer, got {value!r}", path=where, hint=f"set {key} to a number"
        ) from None
    if number < minimum:
        raise ConfigError(f"{key} must be at least {minimum}, got {number}", path=where)
    return number


def _as_str_list(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{key} must be a list of strings, got {value!r}", path=where)


def load_settings(root: Path, env: Mapping[str, str] | None = None) -> Settings:
    """Merge defaults, config files under `root` and the environment into `Settings`.

    Raises:
        ConfigError: a value is malformed; the message names the key and its file.
    """
    environ = os.environ if env is None else env
    table, source = read_config_table(root)
    values = _file_values(table, source or "configuration")
    values.update(_env_values(environ))
    values["lint"] = {k: v for k, v in table.items() if k in LINT_KEYS}
    values["source"] = source
    return Settings(**values)  # type: ignore[arg-type]  # keys are Settings fields by construction


def _file_values(table: Mapping[str, object], where: str) -> dict[str, object]:
    values: dict[str, object] = {}
    for key, (attr, minimum) in _FILE_INT.items():
        if key in table:
            values[attr] = _as_int(table[key], key, minimum, where)
    if "exclude" in table:
        values["exclude"] = _as_str_list(table["exclude"], "exclude", where)
    if "agent-scoped-roots" in table:
        values["agent_scoped_roots"] = _as_str_list(
            table["agent-scoped-roots"], "agent-scoped-roots", where
        )
    if "allow-reindex" in table:
        if not isinstance(table["allow-reindex"], bool):
            raise ConfigError("allow-reindex must be true or false", path=where)
        values["allow_reindex"] = table["allow-reindex"]
    if "synonyms" in table:
        if not isinstance(table["synonyms"], str):
            raise ConfigError("synonyms must be a path string", path=where)
        values["synonyms_path"] = table["synonyms"]
    return values


def _env_values(environ: Mapping[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for var, (attr, minimum) in _ENV_INT.items():
        raw = environ.get(var, "").strip()
        if raw:
            values[attr] = _as_int(raw, var, minimum, "environment")
    if environ.get("KENSO_SYNONYMS_PATH", "").strip():
        values["synonyms_path"] = environ["KENSO_SYNONYMS_PATH"].strip()
    transport = environ.get("KENSO_TRANSPORT", "").strip().lower()
    if transport:
        if transport not in TRANSPORTS:
            raise ConfigError(
                f"KENSO_TRANSPORT must be one of {', '.join(TRANSPORTS)}, got {transport!r}",
                path="environment",
            )
        values["transport"] = "http" if transport == "streamable-http" else transport
    if environ.get("KENSO_HOST", "").strip():
        values["host"] = environ["KENSO_HOST"].strip()
    if environ.get("KENSO_LOG_LEVEL", "").strip():
        values["log_level"] = environ["KENSO_LOG_LEVEL"].strip().upper()
    return values

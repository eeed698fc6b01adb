"""Settings: `KENSO_*` environment variables and `[tool.kenso]` / `.kenso.toml`.

Precedence: environment variable > `.kenso.toml` > `[tool.kenso]` in `pyproject.toml` >
default. Keys are kebab-case; `snake_case` spellings are accepted too. An unknown key
or a value of the wrong type is a usage error naming the key and the file. Every setting
is declared once, in `SETTINGS`; `python -m kenso_git.config` renders docs/configuration.md
from it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from kenso_git.errors import ConfigError
from kenso_git.records import NamedTuple

if TYPE_CHECKING:  # the aliases only annotate; Literal[...] costs import time on the hook path
    from typing import Literal

    Kind = Literal["int", "bool", "str", "path", "list", "choice", "lint"]
    Section = Literal["index", "mcp", "lint", "env"]
    Case = Literal["", "upper", "lower"]


class Setting:
    """One setting, declared once: how it is read, checked and documented."""

    # A plain class: building one more NamedTuple class would cost the hook path 0.3 ms.
    def __init__(
        self,
        key: str | None,  # kebab-case key of [tool.kenso]; None: environment only
        attr: str | None,  # the Settings field; None: another module reads it (a doc row)
        kind: Kind,  # "lint": passed on raw, checked by kenso_git.lint.config
        default: object,
        env: str | None,  # the KENSO_* variable that overrides the key
        section: Section,  # the table of docs/configuration.md that lists the key
        doc: str,  # the "meaning" cell
        *,
        minimum: int = 0,  # for "int"
        choices: Mapping[str, str] | None = None,  # "choice": accepted spelling -> value
        case: Case = "",  # how an environment value is folded
        env_doc: str = "",  # the environment table's cell, when not "Same as `key`."
        type_doc: str = "",  # the type cell, when the kind does not say it
        default_doc: str = "",  # the default cell, when the value does not say it
        unit: str = "",  # shown after the type, e.g. "bytes"
    ) -> None:
        self.key = key
        self.attr = attr
        self.kind = kind
        self.default = default
        self.env = env
        self.section = section
        self.doc = doc
        self.minimum = minimum
        self.choices: Mapping[str, str] = choices or {}
        self.case = case
        self.env_doc = env_doc
        self.type_doc = type_doc
        self.default_doc = default_doc
        self.unit = unit


_SYNONYMS_DEFAULT = "unset means `.kenso/synonyms.yml`, else `.kenso/synonyms.json`"

# One row per setting; the order is that of the docs tables and of the checks (the first bad
# value is the one reported). Rows without `attr` are not parsed here: lint keys go on raw to
# kenso_git.lint.config, and the other modules read their variable themselves
# (KENSO_DATABASE_URL: repo/workspace.py, KENSO_HOOK_*: triggers/githooks/runner.py,
# KENSO_HOOKS: the hook shim, NO_COLOR and FORCE_COLOR: cli/output.py); the rows document them.
# Kept out of ruff format so that a row reads as a row.
# fmt: off
SETTINGS: tuple[Setting, ...] = (
    Setting(None, None, "path", None, "KENSO_DATABASE_URL", "env",
            "Database file to use instead of `.kenso/docs.db` (a path, not a URL: "
            "`sqlite:///x.db` is refused; `~` is expanded). `--db` beats it."),
    Setting("chunk-size", "chunk_size", "int", 4000, "KENSO_CHUNK_SIZE", "index",
            "Largest chunk in characters; bigger H2 sections are split at H3, H4, then "
            "paragraphs. Changing it re-chunks every file on the next ingest. Also the KS009 "
            "limit.", minimum=100),
    Setting("chunk-overlap", "chunk_overlap", "int", 0, "KENSO_CHUNK_OVERLAP", "index",
            "Characters of the previous chunk prepended to the next one (not to the first or "
            "the preamble chunk)."),
    Setting("preview-chars", "preview_chars", "int", 200, "KENSO_CONTENT_PREVIEW_CHARS", "index",
            "Length of `content_preview` in search results (a cut preview ends in `...`, as "
            "kenso's: 3 characters more).", minimum=10),
    Setting("search-limit-max", "search_limit_max", "int", 20, "KENSO_SEARCH_LIMIT_MAX", "index",
            "Cap on `limit` for the MCP search tools.", minimum=1),
    Setting("max-file-size", "max_file_size", "int", 2_000_000, "KENSO_MAX_FILE_SIZE", "index",
            "Larger Markdown files are skipped with a warning, and `read_snippet` refuses them.",
            minimum=1, unit="bytes"),
    Setting("exclude", "exclude", "list", (), None, "index",
            "Extra gitignore-style patterns, on top of `.gitignore`, `.git/info/exclude`, "
            "`core.excludesFile`, `.cursorignore` and `.kensoignore`."),
    Setting("agent-scoped-roots", "agent_scoped_roots", "list", (), None, "mcp",
            "The only folders MCP tools may show or read. An absolute entry, a `..` or a "
            "symlink leading outside the repository stops the server from starting.",
            type_doc="list of repo-relative folders", default_doc="`[]` (the whole checkout)"),
    Setting("allow-reindex", "allow_reindex", "bool", False, None, "mcp",
            "Offer the `reindex` tool over stdio (never over HTTP)."),
    Setting("query-sync", "query_sync", "bool", True, "KENSO_QUERY_SYNC", "index",
            "Before each search and MCP read, sync the docs whose stat data changed since the "
            "index last looked (a few ms when nothing did). `search --no-sync` turns it off "
            "for one command.", env_doc="`0`/`false` turns `query-sync` off, `1`/`true` on."),
    Setting("query-watch", "query_watch", "bool", True, "KENSO_QUERY_WATCH", "index",
            "In a process that answers many queries (`serve`, `lsp`, the library), skip "
            "`query-sync`'s check while an inotify watch of the work tree's folders saw no "
            "change since the last check (Linux, local file systems); off: every query "
            "checks.", env_doc="`0`/`false` turns `query-watch` off, `1`/`true` on."),
    Setting("call-budget", "call_budget", "int", 10, "KENSO_CALL_BUDGET", "mcp",
            "Wall seconds one MCP tool call (or `GET /search`) may spend searching before it "
            "is stopped with an error naming this setting; the caps on queries and paths keep "
            "normal calls far below it.", minimum=1, unit="seconds"),
    Setting("call-cpu-budget", "call_cpu_budget", "int", 1500, "KENSO_CALL_CPU_BUDGET", "mcp",
            "CPU milliseconds one MCP tool call (or `GET /search`) may use (SQLite and RE2 "
            "included) before it is stopped with an error naming this setting; a cache every "
            "later call shares is not counted.", minimum=10, unit="milliseconds"),
    Setting("revision-cache-count", "revision_cache_count", "int", 16, None, "index",
            "Revisions whose differing docs `search --ref` and the tools' `ref` keep in "
            "`revisions.db` beside the index; the least recently used goes first.",
            minimum=1),
    Setting("revision-cache-bytes", "revision_cache_bytes", "int", 64_000_000, None, "index",
            "Bytes of compressed doc text `revisions.db` may hold; the least recently used "
            "revisions go first (the one being searched always stays).", minimum=0,
            unit="bytes"),
    Setting("revision-copies", "revision_copies", "int", 2, None, "mcp",
            "Indexes of other revisions a server keeps ready after a call with `ref` (each "
            "the size of the index, in `revisions/` beside it, removed when the server "
            "stops); 0 builds one per call.", minimum=0),
    Setting("watch", "watch", "bool", True, "KENSO_WATCH", "mcp",
            "`kenso-git serve` watches the checkout and syncs each doc as it is saved. "
            "`serve --no-watch` turns it off for one server.",
            env_doc="`0`/`false` turns `watch` off, `1`/`true` on."),
    Setting("synonyms", "synonyms_path", "path", None, "KENSO_SYNONYMS_PATH", "index",
            "Synonym file, relative to the repository root (same format as "
            f"`KENSO_SYNONYMS_PATH`, which wins when set); {_SYNONYMS_DEFAULT}.",
            env_doc='Synonym file (YAML or JSON `{"groups": [["kubernetes", "k8s"], ...]}`); '
                    f"{_SYNONYMS_DEFAULT}, at the root. A broken file logs a warning and means "
                    "no synonyms."),
    Setting("cjk", "cjk", "choice", "auto", "KENSO_CJK", "index",
            "`auto`: chunks holding Chinese, Japanese or Korean text are also indexed by "
            "character trigrams, so a word inside a CJK sentence is found (an index without "
            "CJK text stores nothing more); `off`: no side index, CJK runs match only whole.",
            choices={"auto": "auto", "off": "off"}, case="lower"),
    Setting("vectors", "vectors", "bool", False, "KENSO_VECTORS", "index",
            "Embed each chunk with wordllama's bundled static model at ingest and blend the "
            "query's cosine similarity into the ranking. Needs `pip install "
            "'kenso-git[vectors]'`; off by default: it did not earn its cost "
            "(docs/ranking.md).", env_doc="`1`/`true` turns `vectors` on, `0`/`false` off."),
    Setting(None, "transport", "choice", "stdio", "KENSO_TRANSPORT", "env",
            "`kenso-git serve` transport: `stdio`, `http` or `streamable-http` (the same). "
            "`--transport` beats it.",
            choices={"stdio": "stdio", "http": "http", "streamable-http": "http"}, case="lower"),
    Setting(None, "host", "str", "127.0.0.1", "KENSO_HOST", "env",
            "HTTP bind address; a non-loopback address also needs `--allow-remote`. "
            "`--host` beats it."),
    Setting(None, "port", "int", 8000, "KENSO_PORT", "env", "HTTP port. `--port` beats it."),
    Setting(None, "log_level", "str", "WARNING", "KENSO_LOG_LEVEL", "env",
            "Server log level (`DEBUG`, `INFO`, `WARNING`, `ERROR`, `CRITICAL`); logs go to "
            "stderr.", case="upper"),
    Setting(None, None, "int", 10, "KENSO_HTTP_TIMEOUT", "env",
            "Seconds an HTTP client has to send a request's headers, and again its body; a "
            "slower one gets 408 and its connection closed (slowloris)."),
    Setting(None, None, "str", None, "KENSO_HOOKS", "env",
            "`0`, `off`, `false` or `no` turns the installed git hooks into no-ops (chained "
            "hooks still run)."),
    Setting(None, None, "int", None, "KENSO_HOOK_BACKGROUND_THRESHOLD", "env",
            "Unset: a checkout's, merge's or rebase's sync runs detached from git, which "
            "returns at once. Set: those syncs run before git returns when at most this many "
            "Markdown paths changed (50 when not a number), in the background above it."),
    Setting(None, None, "str", None, "KENSO_HOOK_VERBOSE", "env",
            "Any value: `kenso-git hook` prints what it decided and why on stderr."),
    Setting(None, None, "str", None, "NO_COLOR", "env",
            "Non-empty: colour off for `--color auto` output."),
    Setting(None, None, "str", None, "FORCE_COLOR", "env",
            "Non-empty: colour on for `--color auto` output, unless `NO_COLOR` is set."),
    Setting("select", None, "lint", None, None, "lint",
            "Exactly these rules. `ALL`, ids (`KS007`), names (`generic-heading`) and prefixes "
            "(`KS01`) work.", type_doc="list of rule ids or names",
            default_doc="every rule but KS019 (KS001-KS026)"),
    Setting("extend-select", None, "lint", (), None, "lint",
            'Add rules to the selection, e.g. `["KS019"]`.', type_doc="list"),
    Setting("ignore", None, "lint", (), None, "lint",
            "Remove rules from the selection.", type_doc="list"),
    Setting("severity", None, "lint", None, None, "lint",
            'Change a rule\'s severity, e.g. `{ KS012 = "info" }`.',
            type_doc="table rule → `error`, `warning` or `info`", default_doc="rule's own"),
    Setting("per-file-ignores", None, "lint", None, None, "lint",
            "Switch rules off for matching paths (`*`, `?`, `**`; a folder covers everything "
            "below it).", type_doc="table glob → list of rules", default_doc="`{}`"),
    Setting("fail-under", None, "lint", None, None, "lint",
            "Also exit 1 when the overall score is lower.", type_doc="number 0-100"),
    Setting("thresholds", None, "lint", None, None, "lint",
            "The numbers the rules compare against.", type_doc="table", default_doc="see below"),
    Setting("baseline", None, "lint", None, None, "lint",
            "A baseline file written by `kenso-git lint --write-baseline FILE` (which exits 0 "
            "once the findings, errors included, are recorded); only new findings are "
            "reported.", type_doc="path string"),
)
# fmt: on
# Keys of [tool.kenso] that the linter reads (validated in detail by kenso_git.lint.config).
LINT_KEYS = frozenset(s.key for s in SETTINGS if s.key is not None and s.kind == "lint")
CORE_KEYS = frozenset(s.key for s in SETTINGS if s.key is not None and s.kind != "lint")


class Settings(NamedTuple):
    """Every tunable of kenso-git, after env vars and config files are merged."""

    # The defaults repeat SETTINGS' (a NamedTuple cannot be derived and stay typed);
    # tests/test_config.py checks that the two agree.
    chunk_size: int = 4000
    chunk_overlap: int = 0
    preview_chars: int = 200
    search_limit_max: int = 20
    max_file_size: int = 2_000_000  # bytes; larger Markdown files are skipped with a warning
    exclude: tuple[str, ...] = ()  # extra gitignore-style patterns
    agent_scoped_roots: tuple[str, ...] = ()  # repo-relative folders the MCP server may show
    allow_reindex: bool = False
    query_sync: bool = True  # sync what changed before answering a read
    query_watch: bool = True  # skip that check while an inotify watch saw nothing change
    call_budget: int = 10  # wall seconds a tool call may spend searching
    call_cpu_budget: int = 1500  # CPU milliseconds a tool call may use
    revision_cache_count: int = 16  # revisions kept in revisions.db
    revision_cache_bytes: int = 64_000_000  # compressed doc text kept in revisions.db
    revision_copies: int = 2  # revisions' indexes a server keeps ready
    watch: bool = True  # `serve` runs the file-system watcher
    synonyms_path: str | None = None
    cjk: str = "auto"  # the CJK trigram side index: auto or off
    vectors: bool = False  # the static-vector tier (wordllama)
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "WARNING"
    lint: Mapping[str, object] = MappingProxyType({})  # raw lint keys, kebab-case
    source: str | None = None  # the config file the values came from, for messages


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


_ENV_BOOLS = {"1": True, "true": True, "yes": True, "on": True}
_ENV_BOOLS.update({"0": False, "false": False, "no": False, "off": False})


def _convert(setting: Setting, value: object, name: str, where: str) -> object:
    """Check `value` (from a file, or a stripped environment string) against its kind."""
    kind = setting.kind
    if kind == "int":
        return _as_int(value, name, setting.minimum, where)
    if kind == "list":
        return _as_str_list(value, name, where)
    if kind == "bool":
        if isinstance(value, str) and where == "environment":
            value = _ENV_BOOLS.get(value.lower(), value)
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false", path=where)
        return value
    if not isinstance(value, str):
        what = "a path string" if kind == "path" else "a string"
        raise ConfigError(f"{name} must be {what}", path=where)
    text = value.upper() if setting.case == "upper" else value
    text = text.lower() if setting.case == "lower" else text
    if kind == "choice" and text not in setting.choices:
        raise ConfigError(
            f"{name} must be one of {', '.join(setting.choices)}, got {text!r}", path=where
        )
    return setting.choices[text] if kind == "choice" else text


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
    for s in SETTINGS:
        if s.key is not None and s.attr is not None and s.key in table:
            values[s.attr] = _convert(s, table[s.key], s.key, where)
    return values


# Read by `serve` alone: a bad value fails `serve` (`check_env`), never a search or a hook,
# which keep the default meanwhile (KENSO_PORT=abc broke `search`, which has no port).
SERVE_ONLY_ENV = frozenset({"KENSO_PORT", "KENSO_TRANSPORT"})


def _env_values(environ: Mapping[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for s in SETTINGS:
        if s.env is None or s.attr is None:
            continue  # a doc row: the module that needs the variable reads it itself
        raw = environ.get(s.env, "").strip()
        if not raw:
            continue
        try:
            values[s.attr] = _convert(s, raw, s.env, "environment")
        except ConfigError:
            if s.env not in SERVE_ONLY_ENV:
                raise
    return values


def check_env(name: str, env: Mapping[str, str] | None = None) -> None:
    """Check one of `SERVE_ONLY_ENV` where it is used.

    Raises:
        ConfigError: the variable holds a bad value.
    """
    raw = (os.environ if env is None else env).get(name, "").strip()
    setting = next(s for s in SETTINGS if s.env == name)
    if raw:
        _convert(setting, raw, name, "environment")

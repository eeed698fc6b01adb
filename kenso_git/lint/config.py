"""Typed lint configuration from `[tool.kenso]` / `.kenso.toml` (keys in config.LINT_KEYS)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from dataclasses import replace
from typing import TYPE_CHECKING

from kenso_git.errors import ConfigError
from kenso_git.lint.model import Severity
from kenso_git.lint.model import Thresholds
from kenso_git.lint.rules import ALL_RULES
from kenso_git.lint.rules import RULES_BY_ID
from kenso_git.lint.rules import RULES_BY_NAME

if TYPE_CHECKING:
    from kenso_git.config import Settings

DEFAULT_SELECT = frozenset(r.id for r in ALL_RULES if r.enabled)


@dataclass(frozen=True, slots=True)
class PathIgnore:
    """Rules switched off for paths matching a glob (`per-file-ignores`)."""

    glob: str
    regex: re.Pattern[str]
    rules: frozenset[str]


@dataclass(frozen=True, slots=True)
class LintConfig:
    """Which rules run, at which severity, with which thresholds."""

    select: frozenset[str] = DEFAULT_SELECT
    severity: Mapping[str, Severity] = field(default_factory=dict)
    per_file_ignores: tuple[PathIgnore, ...] = ()
    thresholds: Thresholds = field(default_factory=Thresholds)
    fail_under: int | None = None
    baseline: str | None = None

    def ignored_for(self, path: str) -> frozenset[str]:
        """Rule ids that `per-file-ignores` switches off for `path`."""
        out: set[str] = set()
        for item in self.per_file_ignores:
            if item.regex.fullmatch(path) or (
                "/" not in item.glob and item.regex.fullmatch(path.rsplit("/", 1)[-1])
            ):
                out |= item.rules
        return frozenset(out)


def glob_regex(glob: str) -> re.Pattern[str]:
    """Translate a gitignore-ish glob (`*`, `?`, `**`) to a regex over a whole POSIX path."""
    out: list[str] = []
    i = 0
    glob = glob.rstrip("/")
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    # A folder pattern also covers everything below it.
    return re.compile("".join(out) + "(?:/.*)?")


def rule_ids(values: Iterable[str], key: str, where: str) -> frozenset[str]:
    """Map rule ids, names, `ALL` or id prefixes (`KS01`) to ids.

    Raises:
        ConfigError: an entry names no rule.
    """
    out: set[str] = set()
    for raw in values:
        value = raw.strip()
        upper = value.upper()
        if upper == "ALL":
            out |= RULES_BY_ID.keys()
        elif upper in RULES_BY_ID:
            out.add(upper)
        elif value in RULES_BY_NAME:
            out.add(RULES_BY_NAME[value].id)
        elif re.fullmatch(r"KS\d{1,2}", upper):
            out |= {i for i in RULES_BY_ID if i.startswith(upper)}
        else:
            raise ConfigError(
                f"{key}: unknown rule {value!r}",
                path=where,
                hint="use a rule id like KS007 or a name like generic-heading (see docs/rules.md)",
            )
    return frozenset(out)


def _str_list(value: object, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [p for p in re.split(r"[,\s]+", value) if p]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{key} must be a list of rule ids, got {value!r}", path=where)


def _table(value: object, key: str, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{key} must be a table, got {value!r}", path=where)
    return value


def _severities(value: object, where: str) -> dict[str, Severity]:
    out: dict[str, Severity] = {}
    for name, level in _table(value, "severity", where).items():
        choices = ", ".join(s.value for s in Severity)
        if not isinstance(level, str) or level.lower() not in {s.value for s in Severity}:
            raise ConfigError(
                f"severity.{name} must be one of {choices}, got {level!r}", path=where
            )
        for rule_id in rule_ids([name], f"severity.{name}", where):
            out[rule_id] = Severity(level.lower())
    return out


def _path_ignores(value: object, where: str) -> tuple[PathIgnore, ...]:
    out: list[PathIgnore] = []
    for glob, rules in _table(value, "per-file-ignores", where).items():
        key = f"per-file-ignores.{glob!r}"
        ids = rule_ids(_str_list(rules, key, where), key, where)
        out.append(PathIgnore(glob, glob_regex(glob), ids))
    return tuple(out)


def _thresholds(value: object, where: str, base: Thresholds) -> Thresholds:
    known = {f.name.replace("_", "-"): f for f in fields(Thresholds)}
    changes: dict[str, object] = {}
    for name, number in _table(value, "thresholds", where).items():
        spec = known.get(str(name).replace("_", "-"))
        if spec is None:
            raise ConfigError(
                f"thresholds: unknown threshold {name!r}",
                path=where,
                hint=f"known thresholds: {', '.join(sorted(known))}",
            )
        is_float = spec.type in ("float", float)
        ok = isinstance(number, int | float) if is_float else isinstance(number, int)
        if isinstance(number, bool) or not isinstance(number, int | float) or not ok or number < 0:
            kind = "a non-negative number" if is_float else "a non-negative integer"
            raise ConfigError(f"thresholds.{name} must be {kind}, got {number!r}", path=where)
        changes[spec.name] = float(number) if is_float else number
    return replace(base, **changes)  # type: ignore[arg-type]  # names checked against fields


def _fail_under(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise ConfigError(f"fail-under must be a number from 0 to 100, got {value!r}", path=where)
    return int(value)


def parse_lint_config(
    raw: Mapping[str, object], *, where: str = "configuration", chunk_size: int = 4000
) -> LintConfig:
    """Validate the raw lint keys of the settings into a `LintConfig`.

    Raises:
        ConfigError: a key holds a bad value; the message names the key and the file.
    """
    select = DEFAULT_SELECT
    if "select" in raw:
        select = rule_ids(_str_list(raw["select"], "select", where), "select", where)
    if "extend-select" in raw:
        extra = _str_list(raw["extend-select"], "extend-select", where)
        select = select | rule_ids(extra, "extend-select", where)
    if "ignore" in raw:
        select = select - rule_ids(_str_list(raw["ignore"], "ignore", where), "ignore", where)
    baseline = raw.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise ConfigError(f"baseline must be a file path, got {baseline!r}", path=where)
    base = Thresholds(max_section_chars=chunk_size)
    return LintConfig(
        select=select,
        severity=_severities(raw["severity"], where) if "severity" in raw else {},
        per_file_ignores=(
            _path_ignores(raw["per-file-ignores"], where) if "per-file-ignores" in raw else ()
        ),
        thresholds=_thresholds(raw["thresholds"], where, base) if "thresholds" in raw else base,
        fail_under=_fail_under(raw["fail-under"], where) if "fail-under" in raw else None,
        baseline=baseline,
    )


def load_lint_config(settings: Settings) -> LintConfig:
    """The lint configuration of a repository's settings.

    Raises:
        ConfigError: a lint key holds a bad value.
    """
    where = settings.source or "configuration"
    return parse_lint_config(settings.lint, where=where, chunk_size=settings.chunk_size)

"""Query synonym groups (spec §4.6), loaded from a YAML or JSON file and reloaded on change.

The file is `KENSO_SYNONYMS_PATH` when set, else `<root>/.kenso/synonyms.yml`, falling back to
`<root>/.kenso/synonyms.json`. Its shape is `{"groups": [["kubernetes", "k8s", "kube"], ...]}`.
A broken file logs one warning and means "no synonyms"; it never fails a search. The
`synonyms` setting comes from files a branch can change, so it must name a file inside the
checkout (no absolute path, no `..`, no symlink out): anything else is a `ConfigError`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from pathlib import PurePosixPath

from kenso_git.errors import ConfigError
from kenso_git.records import NamedTuple

ENV_VAR = "KENSO_SYNONYMS_PATH"

Entry = tuple[tuple[str, ...], int]  # (entry words, index of its group)


class Synonyms(NamedTuple):
    """Synonym groups plus a lookup from an entry's first word to its entries, longest first."""

    groups: tuple[tuple[str, ...], ...]
    by_first_word: Mapping[str, tuple[Entry, ...]]

    @classmethod
    def from_groups(cls, groups: Iterable[Iterable[object]]) -> Synonyms:
        kept = []
        for group in groups:
            entries = tuple(str(entry).lower() for entry in group)
            if len(entries) >= 2:
                kept.append(entries)
        lookup: dict[str, list[Entry]] = {}
        for index, entries in enumerate(kept):
            for entry in entries:
                words = tuple(entry.split())
                if words:
                    lookup.setdefault(words[0], []).append((words, index))
        frozen = {
            first: tuple(sorted(found, key=lambda e: -len(e[0]))) for first, found in lookup.items()
        }
        return cls(groups=tuple(kept), by_first_word=frozen)

    def match(self, words: Sequence[str], start: int) -> tuple[tuple[str, ...], int] | None:
        """The group whose entry matches `words[start:]` (longest entry first) and its length."""
        candidates = self.by_first_word.get(words[start].lower())
        if not candidates:
            return None
        for entry_words, index in candidates:
            end = start + len(entry_words)
            if end <= len(words) and all(
                w.lower() == e for w, e in zip(words[start:end], entry_words, strict=True)
            ):
                return self.groups[index], len(entry_words)
        return None


_cache: dict[str, tuple[int, int, Synonyms | None]] = {}
_lock = threading.Lock()


def synonyms_path(root: Path | None, configured: str | None = None) -> Path | None:
    """The synonyms file to use: the env var, else `synonyms` of [tool.kenso] (relative to
    the repository root), else the repository's `.kenso/synonyms.yml|json`."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)  # the operator's choice, not the branch's: not confined
    if configured and root is not None:
        return _confined(root, configured)
    if root is None:
        return None
    yml = root / ".kenso" / "synonyms.yml"
    if yml.exists():
        return yml
    return root / ".kenso" / "synonyms.json"


def _confined(root: Path, configured: str) -> Path:
    """`configured` under `root`, refused when it is absolute, climbs out with `..` or
    resolves (through a symbolic link) outside the checkout.

    Raises:
        ConfigError: the `synonyms` setting names a file outside the repository.
    """
    pure = PurePosixPath(configured.replace("\\", "/"))
    hint = (
        "use a repo-relative file such as .kenso/synonyms.yml, "
        f"or set {ENV_VAR} for a file elsewhere"
    )
    if pure.is_absolute() or ".." in pure.parts or configured.startswith("~"):
        raise ConfigError(
            f"the `synonyms` setting ({configured!r}) must name a file inside the repository",
            hint=hint,
        )
    path = root / pure
    real = os.path.realpath(path)  # no RuntimeError on a loop
    base = os.path.realpath(root)
    if not real.startswith(base + os.sep):
        raise ConfigError(
            f"the `synonyms` setting ({configured!r}) must name a file inside the repository; "
            "a symbolic link leads outside it",
            hint=hint,
        )
    return path


def _warn(message: str, *args: object) -> None:
    import logging  # only when there is something to say: `search` starts faster without it

    logging.getLogger(__name__).warning(message, *args)


def _parse(path: Path) -> Synonyms | None:
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".json":
            data: object = json.loads(text)
        else:
            import yaml  # imported lazily: costs ~40 ms

            data = yaml.safe_load(text)
    except Exception as exc:  # any unreadable or malformed file means "no synonyms"
        _warn("ignoring synonyms file %s: %s (fix or delete the file)", path, exc)
        return None
    groups = data.get("groups") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        _warn("ignoring synonyms file %s: expected a mapping with a 'groups' list of lists", path)
        return None
    synonyms = Synonyms.from_groups(g for g in groups if isinstance(g, list))
    return synonyms if synonyms.groups else None


def load_synonyms(root: Path | None, configured: str | None = None) -> Synonyms | None:
    """The current synonym groups, re-read whenever the file's mtime or size changes."""
    path = synonyms_path(root, configured)
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    key = str(path.resolve())
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
            return cached[2]
    synonyms = _parse(path)
    with _lock:
        _cache[key] = (st.st_mtime_ns, st.st_size, synonyms)
    return synonyms

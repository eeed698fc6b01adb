"""A config file edited while the server runs, applied by the next tool call.

The watcher re-reads the settings when `.kenso.toml` or `pyproject.toml` changes, but only
once its file events are armed: the SDK-free stdio loop starts it with the first answer, so
an edit made before then (a scope narrowed by `agent-scoped-roots`, a `git switch` to a
branch whose config does) fired no event it saw, and the server kept the scope it read at
start for its whole life. Ignore files are re-read per call (`Scope.reload_if_changed`);
this does the same for the config files: each call stats them (two stats), and when their
stat data differ from the last seen, re-reads the settings, and the scope with them when
they changed (`Service.reload_rules`).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import load_settings
from kenso_git.errors import ConfigError

if TYPE_CHECKING:
    from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

CONFIG_FILES = ("pyproject.toml", ".kenso.toml")  # what `config.read_config_table` reads
# A file changed this long before the settings were read may have been changed after:
# a file system's timestamps can lag the clock (a tick) or be coarse (FAT keeps 2 s).
UNSURE_NS = 3_000_000_000

Stat = tuple[int, int, int, int] | None


def _stats(root: Path) -> tuple[Stat, ...]:
    seen: list[Stat] = []
    for name in CONFIG_FILES:
        try:
            st = (root / name).stat()
        except OSError:
            seen.append(None)
            continue
        seen.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(seen)


class ConfigStamp:
    """The config files' stat data as of the service's settings."""

    def __init__(self, service: Service, read_since_ns: int | None = None) -> None:
        """`read_since_ns`: a `time.time_ns()` taken before `service` read its settings;
        None when unknown (the first call then compares the settings themselves)."""
        self.service = service
        self.root = service.workspace.root
        self._lock = threading.Lock()
        self._seen: tuple[Stat, ...] | None = _stats(self.root)
        if read_since_ns is None or any(
            st is not None and max(st[2], st[3]) >= read_since_ns - UNSURE_NS for st in self._seen
        ):
            self._seen = None  # changed about when the settings were read: compare once

    def is_stale(self) -> bool:
        """Whether a config file changed since the settings were read (two stats)."""
        return _stats(self.root) != self._seen

    def apply_edits(self) -> None:
        """Re-read the settings and the scope when a config file changed since they were
        read; a malformed file is logged once and the rules in force stay."""
        now = _stats(self.root)  # before the read: an edit during it is seen next time
        if now == self._seen:
            return
        with self._lock:
            if now == self._seen:
                return  # another call applied it meanwhile
            try:
                if load_settings(self.root) != self.service.settings:
                    self.service.reload_rules()
            except ConfigError as err:
                log.warning("kenso-git: the edited configuration is not applied: %s", err.message)
            self._seen = now

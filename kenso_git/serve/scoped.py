"""The index a scoped server ranks over: only what its scope shows (#27, finding 6).

BM25's statistics (document count, average length, each term's document frequency) and
the typo vocabulary come from every row of the index they are read from. A server whose
`agent-scoped-roots` hides indexed docs would rank its visible docs with the hidden docs'
words counted: a visible doc's score, or the order of two of them, for a guessed word would
tell whether a hidden doc holds it, and a typo correction could name a word only a hidden
doc holds. Such a server reads a *scoped index* instead: `scopes/<hash>.db` beside the main
index, the same schema built by the same writer from the docs under the scoped folders
only, so the same ranking code runs unchanged and every statistic is the scope's.

The scoped index never writes the main one: it follows it. Before every read, the main
index gets its query-time check as before (or the watcher's word for it), then the scoped
index syncs the files whose (blob id, status) differ from the main index's, in one
transaction of the ordinary writer under its own lock. A damaged scoped index, or one of
another schema, is built anew. A server whose scope hides nothing reads the main index as
before, at no cost.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import DatabaseError
from kenso_git.errors import NoIndexError
from kenso_git.kb import KnowledgeBase
from kenso_git.store.meta import meta_scope

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.index.report import IngestReport
    from kenso_git.index.report import Progress
    from kenso_git.index.report import Warn
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.store.files import FileRow

SCOPES_DIR = "scopes"


def scoped_folders(indexed: Sequence[str], shown: Sequence[str]) -> list[str]:
    """The folders both the main index covers (`indexed`, "" for all) and the scope shows
    (`shown`, "." for all): for each pair, the deeper one when one holds the other."""
    out: list[str] = []
    for a in indexed:
        for b in ("" if s == "." else s for s in shown):
            if a == "" or b == a or b.startswith(a + "/"):
                pick = b
            elif b == "" or a.startswith(b + "/"):
                pick = a
            else:
                continue
            if pick not in out:
                out.append(pick)
    return sorted(out)


def scoped_db_path(main_db: Path, shown: Sequence[str]) -> Path:
    """Where the scoped index of `shown` beside `main_db` lives: one file per index and scope."""
    key = "\0".join([main_db.name, *sorted(shown)])
    name = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return main_db.parent / SCOPES_DIR / f"{name}.db"


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(f == "" or path == f or path.startswith(f + "/") for f in folders)


class ScopedKnowledgeBase(KnowledgeBase):
    """A knowledge base reading the scoped index of `shown`, kept in step with `main`."""

    def __init__(
        self, main: KnowledgeBase, shown: Sequence[str], allows: Callable[[str], bool]
    ) -> None:
        super().__init__(
            main.workspace,
            main.settings,
            scoped_db_path(main.db_path, shown),
            owned=False,
            lost_root=main.lost_root,
        )
        self.main = main
        self.shown = tuple(shown)
        # A path under the scoped folders that the gate refuses (a link whose target the
        # scope hides) is kept out of the scoped index, as if ignored: its text is a hidden
        # doc's. Judged again when the main index's (blob id, status) of it changes.
        self._allows = allows
        self._judged: dict[str, tuple[tuple[str, str] | None, bool]] = {}

    def has_index(self) -> bool:
        """Whether the main index exists (the scoped one is made from it on first use)."""
        return self.main.has_index()

    def _refresh(self, early: EarlyStatus | None) -> None:
        if early is not None:
            early.discard()
        self.main.settings = self.settings
        self.main.refresh()  # its query-time check, or the watcher's word (main.watch_seq)
        self.freshness = self.main.freshness
        self.follow()

    def sync(
        self,
        *,
        paths: Sequence[str] | None = None,
        progress: Progress | None = None,
        warn: Warn | None = None,
        hand_off: float | None = None,
        create: bool = True,
        early: EarlyStatus | None = None,
    ) -> IngestReport:
        """Sync the main index as `KnowledgeBase.sync` does, then this one after it."""
        self.main.settings = self.settings
        report = self.main.sync(
            paths=paths,
            progress=progress,
            warn=warn,
            hand_off=hand_off,
            create=create,
            early=early,
        )
        self.follow()
        return report

    def follow(self) -> None:
        """Bring the scoped index in step with the main one: build it when missing (or
        damaged, or of another schema), else sync the files whose blob id or status differ.

        Raises:
            NoIndexError: there is no main index.
            DatabaseError: an index cannot be read or written.
        """
        if not self.main.db_path.exists():
            raise NoIndexError(f"no search index yet ({self.main.db_path} is missing)")
        if self.lost_root is not None:
            return  # nothing may sync an index whose root is gone: read it as it is (#26)
        with self._turn(None):
            main_meta, main_files = self.main._files_snapshot()
            folders = scoped_folders(meta_scope(main_meta), self.shown) or [
                s for s in self.shown if s != "."
            ]
            if not self.db_path.exists():
                self._build(folders)
                return
            try:
                meta, files = self._files_snapshot()  # re-read only after a write
            except DatabaseError:
                self._build(folders, rebuild=True)
                return
            if meta_scope(meta) != folders:
                self._build(folders, rebuild=True)
                return
            differing = _differing(main_files, files, folders, self._refused(main_files))
            if differing:
                self._write(folders, only=differing)

    def _refused(self, main: dict[str, FileRow]) -> set[str]:
        """The main index's paths the gate refuses (judged again when their row changed)."""
        refused = set()
        for path, row in main.items():
            key = _key(row)
            judged = self._judged.get(path)
            if judged is None or judged[0] != key:
                judged = (key, self._allows(path))
                self._judged[path] = judged
            if not judged[1]:
                refused.add(path)
        return refused

    def _build(self, folders: list[str], *, rebuild: bool = False) -> None:
        self.db_path.parent.mkdir(mode=0o700, exist_ok=True)
        self._refused(self.main._files_snapshot()[1])
        self._write(folders, rebuild=rebuild)

    def _settings(self) -> Settings:
        """The settings with every refused path excluded, as an ignore rule would."""
        refused = sorted(p for p, (_key, allowed) in self._judged.items() if not allowed)
        return self.settings._replace(
            exclude=(*self.settings.exclude, *("/" + _escaped(p) for p in refused))
        )

    def _write(
        self, folders: list[str], *, only: list[str] | None = None, rebuild: bool = False
    ) -> None:
        from kenso_git.index.build import run_index

        try:
            run_index(
                self.workspace,
                self._settings(),
                self.db_path,
                scope=None if only else folders,  # the stored scope: a sync walks no tree
                only=only,
                rebuild=rebuild,
                head=self._head(),
            )
        except DatabaseError:
            if rebuild:
                raise
            self.close()
            run_index(
                self.workspace,
                self._settings(),
                self.db_path,
                scope=folders,
                rebuild=True,
                head=self._head(),
            )
        with contextlib.suppress(AttributeError):
            self._local.files = None


def _key(row: FileRow | None) -> tuple[str, str] | None:
    return None if row is None else (row.blob_id, row.status)


def _differing(
    main: dict[str, FileRow],
    scoped: dict[str, FileRow],
    folders: Sequence[str],
    refused: set[str],
) -> list[str]:
    """The paths under `folders` whose (blob id, status) the two indexes disagree on, the
    refused ones expected absent from the scoped index."""
    out = [
        path
        for path, row in main.items()
        if _inside(path, folders) and path not in refused and _key(scoped.get(path)) != _key(row)
    ]
    out += [path for path in scoped if path not in main or path in refused]
    return sorted(out)


def _escaped(path: str) -> str:
    """`path` as a gitignore pattern matching itself only."""
    out = "".join("\\" + c if c in "\\*?[]!#" else c for c in path)
    return out[:-1] + "\\ " if out.endswith(" ") else out

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
index syncs the files whose rows differ from the main index's (blob id, status and the stat
data the disk checks compare: a same-bytes rewrite changes only those), in one transaction
of the ordinary writer under its own lock. A damaged scoped index, or one of another
schema, is built anew. A server whose scope hides nothing reads the main index as before,
at no cost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.api import scoped as made
from kenso_git.errors import DatabaseError
from kenso_git.errors import NoIndexError
from kenso_git.kb import KnowledgeBase

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.index.quiet import Token as QuietToken
    from kenso_git.index.report import IngestReport
    from kenso_git.index.report import Progress
    from kenso_git.index.report import Warn
    from kenso_git.repo.gitstatus import EarlyStatus
    from kenso_git.store.files import FileRow


class ScopedKnowledgeBase(KnowledgeBase):
    """A knowledge base reading the scoped index of `shown`, kept in step with `main`."""

    def __init__(
        self, main: KnowledgeBase, shown: Sequence[str], allows: Callable[[str], bool]
    ) -> None:
        super().__init__(
            main.workspace,
            main.settings,
            made.scoped_db_path(main.db_path, shown),
            owned=False,
            lost_root=main.lost_root,
        )
        self.main = main
        self.shown = tuple(shown)
        # A path under the scoped folders that the gate refuses (a link whose target the
        # scope hides) is kept out of the scoped index, as if ignored: its text is a hidden
        # doc's. Judged again when the main index's row of it (`made.key`) changes.
        self._allows = allows
        self._judged: dict[str, tuple[made.Key | None, bool]] = {}

    def has_index(self) -> bool:
        """Whether the main index exists (the scoped one is made from it on first use)."""
        return self.main.has_index()

    def _status_beside_read(self) -> None:
        return None  # the check is the main index's, then `follow`: both before the read

    def _refresh(self, early: EarlyStatus | None, token: QuietToken | None = None) -> None:
        del token  # the main index's check reads its own watch (`Writes._refresh`)
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
        damaged, or of another schema), parse it again whole once the main index was (it
        was made by other settings or another version), else sync the files whose rows lag
        the main index's (`api.scoped.behind`).

        Raises:
            NoIndexError: there is no main index.
            DatabaseError: an index cannot be read or written.
        """
        if not self.main.db_path.exists():
            raise NoIndexError(f"no search index yet ({self.main.db_path} is missing)")
        if self.lost_root is not None:
            return  # nothing may sync an index whose root is gone: read it as it is (#26)
        from kenso_git.api.index import reparse_due

        with self._turn(None):
            main_meta, main_files = self.main._files_snapshot()
            folders = made.scoped_folders(made.covered(main_meta), self.shown) or [
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
            if made.covered(meta) != folders:
                self._build(folders, rebuild=True)
                return
            if reparse_due(meta, self.settings) and not reparse_due(main_meta, self.settings):
                self._refused(main_files)
                self._write(folders)  # the main index was parsed again whole: this one too
                return
            differing = made.differing(main_files, files, folders, self._refused(main_files))
            if differing:
                self._write(folders, only=differing)

    def _refused(self, main: dict[str, FileRow]) -> set[str]:
        """The main index's paths the gate refuses (judged again when their row changed)."""
        refused = set()
        for path, row in main.items():
            key = made.key(row)
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
            exclude=(*self.settings.exclude, *("/" + made.escaped(p) for p in refused))
        )

    def _write(
        self, folders: list[str], *, only: list[str] | None = None, rebuild: bool = False
    ) -> None:
        try:
            made.write(
                self.workspace,
                self._settings(),
                self.db_path,
                folders,
                only=only,
                rebuild=rebuild,
                head=self._head(),
            )
        except DatabaseError:
            if rebuild:
                raise
            self.close()  # damaged, or of another schema: built anew
            made.write(
                self.workspace,
                self._settings(),
                self.db_path,
                folders,
                rebuild=True,
                head=self._head(),
            )
        with contextlib.suppress(AttributeError):
            self._local.files = None

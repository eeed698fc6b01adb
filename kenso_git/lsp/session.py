"""The editor session of `kenso-git lsp`: the repository's live corpus, read in the
background at the start and again when files change on disk outside the editor (as the
client's file watchers report, `watch.py`, else when a document is saved or opened and the
work tree's stamp changed, `disk.py`; and when HEAD moved, which a commit does without
changing a file of the work tree), and every open document's findings published. A document
`kenso-git lint` does not lint (ignored by .gitignore, .cursorignore, .kensoignore or
`exclude`) gets no findings, and stays out of the corpus the rules judge by.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from kenso_git import __version__
from kenso_git.api.git import head_commit
from kenso_git.api.lint import LiveCorpus
from kenso_git.api.lint import Violation
from kenso_git.api.lint import lint_workspace
from kenso_git.api.workspace import Workspace
from kenso_git.errors import KensoError
from kenso_git.lsp.diagnostic import SOURCE
from kenso_git.lsp.diagnostic import UTF16
from kenso_git.lsp.diagnostic import Page
from kenso_git.lsp.diagnostic import diagnostic
from kenso_git.lsp.disk import TreeStamp
from kenso_git.lsp.disk import file_key
from kenso_git.lsp.protocol import KensoProtocol
from kenso_git.records import NamedTuple

DEBOUNCE_S = 0.1  # a checkout's changes come in several batches: one read for them all
_NOTHING, _CHECK, _READ = 0, 1, 2  # what the next background read does, least first


class Reading(NamedTuple):
    """A read of the repository: its corpus, and what it was read by."""

    corpus: LiveCorpus
    stamp: TreeStamp | None  # the work tree before the read (clients that watch no files)
    head: str | None  # the commit HEAD pointed at before the read


class KensoServer(LanguageServer):
    """The language server, holding the repository's live corpus once it is read."""

    def __init__(self) -> None:
        # The whole text at each change: pygls applies a ranged change to lines split by
        # `str.splitlines`, which also breaks at a form feed, `\x85` or U+2028 where the
        # client does not, so an edit below one landed on the wrong line.
        super().__init__(
            SOURCE, __version__, types.TextDocumentSyncKind.Full, protocol_cls=KensoProtocol
        )
        self.corpus: asyncio.Future[LiveCorpus] | None = None
        self.found: dict[str, tuple[Violation, ...]] = {}  # uri -> its last findings
        self.shown_error: str | None = None  # the last load error the user was shown
        self.root: Path | None = None  # where the corpus is read from
        self.watched = False  # the client reports changes to the files the corpus reads
        self.stamp: TreeStamp | None = None  # else: the work tree at the last read
        self.head: tuple[Workspace, str | None] | None = None  # HEAD's commit at the last read
        self.wanted = _NOTHING  # what the next background read does
        self.rereading: asyncio.Task[None] | None = None

    async def live(self, uri: str | None = None) -> LiveCorpus | None:
        """The repository's corpus, read at the first call: the workspace root's, else that
        of the repository holding the document at `uri`. None while it cannot be read (a
        malformed `.kenso.toml`): the error is shown once, and the next event tries again,
        so fixing the file needs no restart."""
        if self.corpus is None:  # no root to read at `initialized`, or it was skipped
            self.load(uri)
        if self.corpus is None:
            return None
        try:
            corpus = await self.corpus
        except KensoError as err:
            self.failed(err)
            return None
        self.shown_error = None
        return corpus

    def failed(self, err: KensoError) -> None:
        """The repository cannot be read: say why, once, and read it again at the next event."""
        self.corpus = None
        text = f"kenso-git: {err.message}" + (f" ({err.hint})" if err.hint else "")
        if text != self.shown_error:
            self.shown_error = text
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=text)
            )

    def load(self, uri: str | None = None) -> None:
        """Start reading the corpus: of the workspace root when the client named one, else of
        the repository holding the document at `uri` (found as `kenso-git lint` run in that
        folder finds it: outside git, the folder of the index at or above it), not of the
        folder the editor was started from (`/` for a desktop launch)."""
        root_path = self.workspace.root_path
        fs_path = to_fs_path(uri) if uri is not None and not root_path else None
        if root_path:
            root = Path(root_path)
        elif fs_path is not None:
            root = Path(fs_path).parent
        else:
            return  # nothing to read yet: the first opened document says where
        self.root = root
        self.corpus = asyncio.ensure_future(self._read(root))

    async def _read(self, root: Path) -> LiveCorpus:
        loop = asyncio.get_running_loop()
        stamped = not self.watched
        read = await loop.run_in_executor(None, _read_repository, root, stamped)
        self.stamp = read.stamp
        self.head = (read.corpus.workspace, read.head)
        return read.corpus

    def reread(self, *, check: bool = False) -> None:
        """Read the repository again in the background, then publish every open document's
        findings; `check`: only if the work tree's stamp changed. Calls made meanwhile are
        folded into one more read."""
        self.wanted = max(self.wanted, _CHECK if check else _READ)
        if self.rereading is None or self.rereading.done():
            self.rereading = asyncio.ensure_future(self._rereads())

    async def _rereads(self) -> None:
        while self.wanted:
            await asyncio.sleep(DEBOUNCE_S)
            check, self.wanted = self.wanted == _CHECK, _NOTHING
            if self.corpus is not None and not self.corpus.done():
                await asyncio.wait([self.corpus])  # the first read, still under way
            if self.root is not None and (not check or await self._changed()):
                await self._reread(self.root)

    async def _changed(self) -> bool:
        """Whether HEAD moved or the work tree changed since the last read (the tree only
        when stamped: a client that watches files reports its changes)."""
        loop = asyncio.get_running_loop()
        if self.head is not None:
            ws, head = self.head
            if await loop.run_in_executor(None, head_commit, ws) != head:
                return True  # a commit: where a rename is said to be (KS024) changed
        before = self.stamp
        if before is None:
            return False
        now = await loop.run_in_executor(None, before.again)
        return before.differs(now, self.open_files())

    async def _reread(self, root: Path) -> None:
        read = asyncio.ensure_future(self._read(root))
        try:
            corpus = await read
        except KensoError as err:
            self.failed(err)
            return
        for uri in self.open_uris():  # the editor's text wins
            path = path_of(corpus, uri)
            if path is not None:
                corpus.update(path, self.text_of(uri))
        self.corpus, self.shown_error = read, None
        for uri in self.open_uris():
            self.publish(corpus, uri)

    def look_again(self) -> None:
        """At a save, an open or a change a watching client reported: read the repository
        again if HEAD moved, or its work tree changed for a client that reports no file
        changes (a user may have run git meanwhile)."""
        self.reread(check=True)

    def work_tree(self) -> Path | None:
        """The root of the work tree read, once read."""
        read = self.corpus
        if read is None or not read.done() or read.cancelled() or read.exception() is not None:
            return None
        return read.result().workspace.root

    def open_files(self) -> set[str]:
        """The `file_key`s of the documents open in the editor."""
        return {
            file_key(fs_path)
            for uri in self.workspace.text_documents
            if (fs_path := to_fs_path(uri)) is not None
        }

    def open_uris(self, *, but: str | None = None) -> list[str]:
        """The URIs of the documents open in the editor (`but` that one) as the client sent
        them: pygls keys them unquoted (`a b.md` for `a%20b.md`), and a client matches the
        diagnostics it is sent by the URI it opened the document with."""
        skip = None if but is None else unquote(but)
        return [doc.uri for key, doc in list(self.workspace.text_documents.items()) if key != skip]

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    def is_open(self, uri: str) -> bool:
        """Whether the editor opened the document at `uri` (its text is the editor's)."""
        return unquote(uri) in self.workspace.text_documents

    def encoding(self) -> str:
        """The position encoding agreed at `initialize` (utf-16 unless the client chose)."""
        agreed = self.workspace.position_encoding or UTF16
        # pygls's default is the enum member, whose str() is "PositionEncodingKind.Utf16"
        return agreed.value if isinstance(agreed, types.PositionEncodingKind) else str(agreed)

    def page(self, uri: str) -> Page:
        """The editor's text of `uri`, positions counted as the client counts them."""
        return Page.of(self.text_of(uri), self.encoding())

    def publish(self, corpus: LiveCorpus, uri: str) -> None:
        path = path_of(corpus, uri)
        found = corpus.lint(path) if path is not None else ()
        self.found[uri] = found
        page = self.page(uri)
        diagnostics = [diagnostic(v, page) for v in found]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def refresh(self, corpus: LiveCorpus, uri: str) -> None:
        """Take the editor's text of `uri`, then publish every open document's findings."""
        path = path_of(corpus, uri)
        if path is not None:
            corpus.update(path, self.text_of(uri))
        self.publish(corpus, uri)
        for other in self.open_uris(but=uri):
            self.publish(corpus, other)


def _read_repository(root: Path, stamped: bool) -> Reading:
    """The repository `kenso-git lint` run in `root` judges (`lint_workspace`: outside git,
    the folder of the index at or above it) read; `stamped`: its work tree's stamp taken
    first (a change made during the read then shows at the next look), as HEAD's commit is.
    A root above `root` is stamped anyway: a client watches files under its own folder only,
    and a page above it changed would not be reported."""
    ws = lint_workspace((), root)
    stamped = stamped or ws.root != root.resolve()
    stamp = TreeStamp.take(ws.root, ws.common_dir) if stamped else None
    head = head_commit(ws)
    return Reading(LiveCorpus.open(ws.root), stamp, head)


def path_of(corpus: LiveCorpus, uri: str) -> str | None:
    """The repo-relative path of the document at `uri` when the rules judge it: a Markdown
    file of the corpus's work tree that `kenso-git lint` does not refuse as ignored."""
    fs_path = to_fs_path(uri)
    path = None if fs_path is None else corpus.relative(Path(fs_path))
    return None if path is None or corpus.is_ignored(path) else path

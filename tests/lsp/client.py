"""A real LSP client (pygls's own `LanguageClient`) talking to `kenso-git lsp` over stdio."""

from __future__ import annotations

import asyncio
import bisect
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

WAIT = 30.0  # seconds any one answer may take on a loaded machine

# How the editor counts positions, written apart from the server's code: a line ends at
# `\r\n`, `\r` or `\n`; a character is counted in units of the agreed encoding.
_BREAK = re.compile(r"\r\n|\r|\n")
_CODEC = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _BREAK.finditer(text))]


def offset(text: str, at: types.Position, encoding: str = "utf-16") -> int:
    """The index in `text` of the position `at`."""
    start = _line_starts(text)[at.line]
    brk = _BREAK.search(text, start)
    line = text[start : brk.start() if brk else len(text)]
    codec, width = _CODEC[encoding]
    return start + len(line.encode(codec)[: at.character * width].decode(codec))


def position(text: str, index: int, encoding: str = "utf-16") -> types.Position:
    """The position of `text[index]`."""
    starts = _line_starts(text)
    line = bisect.bisect_right(starts, index) - 1
    codec, width = _CODEC[encoding]
    return types.Position(line, len(text[starts[line] : index].encode(codec)) // width)


def covered(text: str, at: types.Range, encoding: str = "utf-16") -> str:
    """The text the range `at` spans."""
    return text[offset(text, at.start, encoding) : offset(text, at.end, encoding)]


class Editor:
    """An editor session: open, change and save documents, wait for their diagnostics."""

    def __init__(
        self,
        root: Path,
        encodings: list[str] | None = None,
        *,
        rooted: bool = True,
        watches: bool = False,
        refuses: bool = False,
    ) -> None:
        self.root = root
        self.encodings = encodings  # the position encodings the client offers, first preferred
        self.rooted = rooted  # False: no rootUri, the server started in the root's parent
        self.watches = watches  # offers to watch files for the server (dynamic registration)
        self.refuses = refuses  # ... yet answers the registration with an error
        self.registrations: asyncio.Queue[types.Registration] = asyncio.Queue()
        self.client = LanguageClient("kenso-test-editor", "1")
        self.published: dict[str, asyncio.Queue[list[types.Diagnostic]]] = defaultdict(
            asyncio.Queue
        )
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}  # uri -> the editor's text
        self.encoding = "utf-16"  # the position encoding the server agreed to
        self.incremental = False  # the server takes ranged changes

        self.messages: list[str] = []  # window/showMessage, as an editor pops them up

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri].put_nowait(params.diagnostics)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def _shown(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def _registered(params: types.RegistrationParams) -> None:
            for registration in params.registrations:
                self.registrations.put_nowait(registration)
            if self.refuses:
                raise JsonRpcInvalidRequest("no watchers today")

    def uri(self, rel: str) -> str:
        uri = from_fs_path(str(self.root / rel))
        assert uri is not None
        return uri

    async def start(self) -> types.InitializeResult:
        cwd = self.root if self.rooted else self.root.parent
        await self.client.start_io(sys.executable, "-m", "kenso_git", "lsp", cwd=cwd)
        result = await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(
                        general=types.GeneralClientCapabilities(
                            position_encodings=self.encodings  # type: ignore[arg-type]
                        )
                        if self.encodings
                        else None,
                        workspace=types.WorkspaceClientCapabilities(
                            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                                dynamic_registration=True
                            )
                        )
                        if self.watches
                        else None,
                    ),
                    root_uri=from_fs_path(str(self.root)) if self.rooted else None,
                    process_id=None,
                )
            ),
            WAIT,
        )
        self.encoding = str(result.capabilities.position_encoding or "utf-16")
        sync = result.capabilities.text_document_sync
        kind = sync.change if isinstance(sync, types.TextDocumentSyncOptions) else sync
        self.incremental = kind == types.TextDocumentSyncKind.Incremental
        self.client.initialized(types.InitializedParams())
        return result

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), WAIT)

    def open(self, rel: str, text: str | None = None) -> None:
        uri = self.uri(rel)
        self.versions[uri] = 1
        body = (self.root / rel).read_text(encoding="utf-8") if text is None else text
        self.texts[uri] = body
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=body)
            )
        )

    def change(self, rel: str, text: str) -> None:
        self._changed(rel, text, types.TextDocumentContentChangeWholeDocument(text=text))

    def edit(self, rel: str, at: types.Range, new: str) -> str:
        """Type `new` over the range `at`, sent as the server asked (a ranged change or the
        whole text, as an editor does); the document's new text."""
        uri = self.uri(rel)
        text = self.texts[uri]
        start, end = offset(text, at.start, self.encoding), offset(text, at.end, self.encoding)
        text = text[:start] + new + text[end:]
        self._changed(
            rel,
            text,
            types.TextDocumentContentChangePartial(range=at, text=new)
            if self.incremental
            else types.TextDocumentContentChangeWholeDocument(text=text),
        )
        return text

    def _changed(self, rel: str, text: str, change: types.TextDocumentContentChangeEvent) -> None:
        uri = self.uri(rel)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    version=self.versions[uri], uri=uri
                ),
                content_changes=[change],
            )
        )

    async def code_actions(self, rel: str, at: types.Range) -> list[types.CodeAction]:
        """The quick fixes the server offers for the range `at`."""
        found = await asyncio.wait_for(
            self.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(self.uri(rel)),
                    range=at,
                    context=types.CodeActionContext(diagnostics=[]),
                )
            ),
            WAIT,
        )
        return [a for a in found or () if isinstance(a, types.CodeAction)]

    async def hover(self, rel: str, at: types.Position) -> str | None:
        """The hover text at `at`, or None."""
        found = await asyncio.wait_for(
            self.client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(self.uri(rel)), at)
            ),
            WAIT,
        )
        if found is None:
            return None
        assert isinstance(found.contents, types.MarkupContent)
        return found.contents.value

    def save(self, rel: str) -> None:
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(self.uri(rel)))
        )

    def watched(self, *changes: tuple[str, types.FileChangeType]) -> None:
        """Tell the server what the client's file watcher saw: (path, kind) pairs."""
        self.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(self.uri(rel), kind) for rel, kind in changes]
            )
        )

    async def ready(self) -> None:
        """Start, and for a client that watches files, wait for the server to register its
        watcher: from then on a reported change reaches it."""
        await self.start()
        if self.watches:
            await self.registered()

    async def registered(self) -> types.Registration:
        """The next capability the server registered with the client."""
        return await asyncio.wait_for(self.registrations.get(), WAIT)

    async def diagnostics(self, rel: str) -> list[types.Diagnostic]:
        return await asyncio.wait_for(self.published[self.uri(rel)].get(), WAIT)

    async def settle(
        self, rel: str, done: Callable[[list[types.Diagnostic]], bool]
    ) -> list[types.Diagnostic]:
        """The first publication for `rel` that `done` accepts: one made for an earlier
        state (an open's republishing, still on its way after `drain`) is passed over; the
        last one seen is returned when none is accepted within WAIT, for the caller to fail."""
        queue = self.published[self.uri(rel)]
        seen: list[types.Diagnostic] = []
        try:
            async with asyncio.timeout(WAIT):
                while True:
                    seen = await queue.get()
                    if done(seen):
                        return seen
        except TimeoutError:
            return seen

    def drain(self) -> None:
        """Forget what was published so far: the next `diagnostics` follows the next edit."""
        for queue in self.published.values():
            while not queue.empty():
                queue.get_nowait()

"""A real LSP client (pygls's own `LanguageClient`) talking to `kenso-git lsp` over stdio."""

from __future__ import annotations

import asyncio
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

WAIT = 30.0  # seconds any one answer may take on a loaded machine


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
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=body)
            )
        )

    def change(self, rel: str, text: str) -> None:
        uri = self.uri(rel)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    version=self.versions[uri], uri=uri
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

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

"""`kenso-git lsp`: the KS diagnostics, quick fixes and link hovers in an editor, over stdio.

The only pygls user. It speaks the protocol and nothing more: the repository's documents and
corpus facts live in `kenso_git.lint.live.LiveCorpus`, read once after `initialized` (off
the event loop, so `initialize` answers at once) and updated per edited document. Every
open document is linted again after an edit, since a renamed heading or a new file changes
what other documents' links lead to.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path
from pygls.uris import to_fs_path

from kenso_git import __version__
from kenso_git.api.lint import LiveCorpus
from kenso_git.api.lint import Severity
from kenso_git.api.lint import Violation
from kenso_git.errors import KensoError

logger = logging.getLogger(__name__)

SOURCE = "kenso-git"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


UTF16 = "utf-16"  # LSP's default unit; a client may agree to utf-8 or utf-32 instead


def client_column(line: str, column: int, encoding: str = UTF16) -> int:
    """The offset of code point `column` (0-based) of `line` in the units of the position
    encoding agreed with the client (Neovim and Helix offer utf-8 first)."""
    head = line[:column]
    if head.isascii() or encoding == "utf-32":
        return len(head)
    if encoding == "utf-8":
        return len(head.encode("utf-8"))
    return len(head.encode("utf-16-le")) // 2


def code_point_column(line: str, units: int, encoding: str = UTF16) -> int:
    """The code-point index of the offset `units` (in the agreed encoding) of `line`."""
    if line.isascii():
        return units
    if encoding == "utf-32":  # a code point per unit
        return min(units, len(line))
    counted = 0
    for index, char in enumerate(line):
        if counted >= units:
            return index
        if encoding == "utf-8":
            counted += len(char.encode("utf-8"))
        else:
            counted += 2 if ord(char) > 0xFFFF else 1
    return len(line)


class KensoServer(LanguageServer):
    """The language server, holding the repository's live corpus once it is read."""

    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.corpus: asyncio.Future[LiveCorpus] | None = None
        self.found: dict[str, tuple[Violation, ...]] = {}  # uri -> its last findings
        self.shown_error: str | None = None  # the last load error the user was shown

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
            self.corpus = None  # read again at the next event
            text = f"kenso-git: {err.message}" + (f" ({err.hint})" if err.hint else "")
            if text != self.shown_error:
                self.shown_error = text
                self.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Error, message=text)
                )
            return None
        self.shown_error = None
        return corpus

    def load(self, uri: str | None = None) -> None:
        """Start reading the corpus: of the workspace root when the client named one, else of
        the repository holding the document at `uri` (`LiveCorpus.open` finds it as the CLI
        does), not of the folder the editor was started from (`/` for a desktop launch)."""
        root_path = self.workspace.root_path
        fs_path = to_fs_path(uri) if uri is not None and not root_path else None
        if root_path:
            root = Path(root_path)
        elif fs_path is not None:
            root = Path(fs_path).parent
        else:
            return  # nothing to read yet: the first opened document says where
        loop = asyncio.get_running_loop()
        self.corpus = loop.run_in_executor(None, LiveCorpus.open, root)

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    def encoding(self) -> str:
        """The position encoding agreed at `initialize` (utf-16 unless the client chose)."""
        return str(self.workspace.position_encoding or UTF16)

    def publish(self, corpus: LiveCorpus, uri: str) -> None:
        path = _path_of(corpus, uri)
        found = corpus.lint(path) if path is not None else ()
        self.found[uri] = found
        lines = self.text_of(uri).split("\n")
        diagnostics = [_diagnostic(v, lines, self.encoding()) for v in found]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def refresh(self, corpus: LiveCorpus, uri: str) -> None:
        """Take the editor's text of `uri`, then publish every open document's findings."""
        path = _path_of(corpus, uri)
        if path is not None:
            corpus.update(path, self.text_of(uri))
        self.publish(corpus, uri)
        for other in list(self.workspace.text_documents):
            if other != uri:
                self.publish(corpus, other)


def _path_of(corpus: LiveCorpus, uri: str) -> str | None:
    fs_path = to_fs_path(uri)
    return None if fs_path is None else corpus.relative(Path(fs_path))


def _span(
    v: Violation, lines: Sequence[str], encoding: str
) -> tuple[types.Position, types.Position]:
    line = lines[v.line - 1] if 0 < v.line <= len(lines) else ""
    start = v.column - 1
    width = len(v.subject) if v.subject and line[start:].startswith(v.subject) else 0
    end = start + width if width else len(line)
    if v.column == 1 and not width:
        end = len(line)
    return (
        types.Position(v.line - 1, client_column(line, start, encoding)),
        types.Position(v.line - 1, client_column(line, end, encoding)),
    )


def _diagnostic(v: Violation, lines: Sequence[str], encoding: str) -> types.Diagnostic:
    start, end = _span(v, lines, encoding)
    return types.Diagnostic(
        range=types.Range(start, end),
        message=v.message,
        severity=_SEVERITY[v.severity],
        code=v.rule,
        source=SOURCE,
        data={"name": v.name},
    )


server = KensoServer()


@server.feature(types.INITIALIZED)
def _initialized(ls: KensoServer, params: types.InitializedParams) -> None:
    ls.load()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def _did_open(ls: KensoServer, params: types.DidOpenTextDocumentParams) -> None:
    await _refreshed(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def _did_change(ls: KensoServer, params: types.DidChangeTextDocumentParams) -> None:
    await _refreshed(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def _did_save(ls: KensoServer, params: types.DidSaveTextDocumentParams) -> None:
    await _refreshed(ls, params.text_document.uri)


async def _refreshed(ls: KensoServer, uri: str) -> None:
    """The editor's text of `uri` taken and every open document's findings published,
    once the corpus can be read (else nothing: `live` has said why)."""
    corpus = await ls.live(uri)
    if corpus is not None:
        ls.refresh(corpus, uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def _did_close(ls: KensoServer, params: types.DidCloseTextDocumentParams) -> None:
    corpus, uri = await ls.live(params.text_document.uri), params.text_document.uri
    if corpus is None:
        return
    path = _path_of(corpus, uri)
    fs_path = to_fs_path(uri)
    if path is not None and fs_path is not None:
        try:
            corpus.update(path, Path(fs_path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            corpus.drop(path)  # never saved: it leaves the corpus with the editor
    ls.found.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    for other in list(ls.workspace.text_documents):
        if other != uri:
            ls.publish(corpus, other)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def _code_action(ls: KensoServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    lines = ls.text_of(uri).split("\n")
    encoding = ls.encoding()
    wanted = params.range
    actions = []
    for v in ls.found.get(uri, ()):
        if v.fix is None or not wanted.start.line <= v.fix.line - 1 <= wanted.end.line:
            continue
        line = lines[v.fix.line - 1] if v.fix.line <= len(lines) else ""
        start = v.fix.column - 1
        if line[start : start + len(v.fix.old)] != v.fix.old:
            continue  # edited since: the next diagnostics bring a fresh fix
        edit_range = types.Range(
            types.Position(v.fix.line - 1, client_column(line, start, encoding)),
            types.Position(v.fix.line - 1, client_column(line, start + len(v.fix.old), encoding)),
        )
        start_pos, end_pos = _span(v, lines, encoding)
        actions.append(
            types.CodeAction(
                title=f"{v.rule}: replace {v.fix.old!r} with {v.fix.new!r}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[
                    types.Diagnostic(
                        range=types.Range(start_pos, end_pos),
                        message=v.message,
                        code=v.rule,
                        source=SOURCE,
                    )
                ],
                is_preferred=True,
                edit=types.WorkspaceEdit(
                    changes={uri: [types.TextEdit(range=edit_range, new_text=v.fix.new)]}
                ),
            )
        )
    return actions


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def _hover(ls: KensoServer, params: types.HoverParams) -> types.Hover | None:
    corpus, uri = await ls.live(params.text_document.uri), params.text_document.uri
    if corpus is None:
        return None
    path = _path_of(corpus, uri)
    if path is None:
        return None
    lines = ls.text_of(uri).split("\n")
    at = params.position
    line = lines[at.line] if at.line < len(lines) else ""
    column = code_point_column(line, at.character, ls.encoding()) + 1
    linked = corpus.linked_doc(path, at.line + 1, column)
    if linked is None:
        return None
    where = linked.path + (f"#{linked.fragment}" if linked.fragment else "")
    target = from_fs_path(str(corpus.workspace.root / linked.path)) or linked.path
    text = f"**{linked.title}**\n\n[`{where}`]({target})"
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text))


def serve_stdio() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    server.start_io()

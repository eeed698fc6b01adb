"""`kenso-git lsp`: the KS diagnostics, quick fixes and link hovers in an editor, over stdio.

The only pygls user. It speaks the protocol and nothing more: the repository's documents and
corpus facts live in `kenso_git.lint.live.LiveCorpus`, read after `initialized` (off the
event loop, so `initialize` answers at once) and updated per edited document. Every open
document is linted again after an edit, since a renamed heading or a new file changes what
other documents' links lead to. The session (`session.py`) reads the repository again when
files change on disk outside the editor.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pygls.uris import to_fs_path

from kenso_git.lsp.diagnostic import SOURCE
from kenso_git.lsp.disk import is_config
from kenso_git.lsp.session import KensoServer
from kenso_git.lsp.session import path_of
from kenso_git.lsp.watch import calls_for_read
from kenso_git.lsp.watch import can_watch
from kenso_git.lsp.watch import registration

server = KensoServer()


@server.feature(types.INITIALIZED)
async def _initialized(ls: KensoServer, params: types.InitializedParams) -> None:
    ls.watched = can_watch(ls.client_capabilities)
    ls.load()
    if ls.watched:
        try:
            await ls.client_register_capability_async(registration())
        except JsonRpcException:
            ls.watched = False  # refused: look at the work tree at saves and opens instead
            ls.reread()  # for its stamp


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def _watched(ls: KensoServer, params: types.DidChangeWatchedFilesParams) -> None:
    if calls_for_read(params.changes, ls.work_tree(), ls.open_files()):
        ls.reread()
    else:
        ls.look_again()  # git may have committed meanwhile (HEAD is in no watched glob)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def _did_open(ls: KensoServer, params: types.DidOpenTextDocumentParams) -> None:
    await _refreshed(ls, params.text_document.uri)
    ls.look_again()


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def _did_change(ls: KensoServer, params: types.DidChangeTextDocumentParams) -> None:
    await _refreshed(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def _did_save(ls: KensoServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    await _refreshed(ls, uri)
    fs_path = to_fs_path(uri)
    if fs_path is not None and is_config(fs_path):
        ls.reread()  # settings, ignore rules or a site's dialect: read from disk again
    else:
        ls.look_again()


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
    path = path_of(corpus, uri)
    fs_path = to_fs_path(uri)
    if path is not None and fs_path is not None:
        try:
            corpus.update(path, Path(fs_path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            corpus.drop(path)  # never saved: it leaves the corpus with the editor
    ls.found.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    for other in ls.open_uris(but=uri):
        ls.publish(corpus, other)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def _code_action(ls: KensoServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    if not ls.is_open(uri):
        return []  # only an open document has findings, and a text to edit
    page = ls.page(uri)
    wanted = params.range
    actions = []
    for v in ls.found.get(uri, ()):
        if v.fix is None or not wanted.start.line <= v.fix.line - 1 <= wanted.end.line:
            continue
        edit_range = page.edit_range(v)
        if edit_range is None:
            continue  # edited since: the next diagnostics bring a fresh fix
        actions.append(
            types.CodeAction(
                title=f"{v.rule}: replace {v.fix.old!r} with {v.fix.new!r}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[
                    types.Diagnostic(
                        range=page.span(v),
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
    if corpus is None or not ls.is_open(uri):
        return None  # the position is in the editor's text: none without one
    path = path_of(corpus, uri)
    if path is None:
        return None
    at = params.position
    linked = corpus.linked_doc(path, at.line + 1, ls.page(uri).column(at))
    if linked is None:
        return None
    where = linked.path + (f"#{linked.fragment}" if linked.fragment else "")
    target = from_fs_path(str(corpus.workspace.root / linked.path)) or linked.path
    text = f"**{linked.title}**\n\n[`{where}`]({target})"
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text))


def serve_stdio() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    server.start_io()

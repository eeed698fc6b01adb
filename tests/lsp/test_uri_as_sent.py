"""The server publishes every open document's findings to the URI the client opened it
with: pygls keys its documents unquoted, and an edit in another document republished
`a%20b.md`'s and `%C3%BC.md`'s findings to `a b.md` and `ü.md`, URIs the client never sent,
so a client matching URIs as sent never saw the anchor the edit broke."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

TARGET = "# Payment Retries\n\n## Backoff\n\n" + "Failed payments are retried with backoff. " * 4
LINKING = (
    "# Retry Guide For Payments\n\nRead [the backoff](target.md#backoff) first. "
    "The retry policy is explained there in enough words for a document.\n"
)
NAMES = ("docs/plain.md", "docs/a b.md", "docs/ü.md")


def _ks023(found: list[types.Diagnostic]) -> bool:
    return any(d.code == "KS023" for d in found)


def test_another_documents_edit_is_published_to_the_uri_each_was_opened_with(
    repo: Path,
) -> None:
    write(repo, {"docs/target.md": TARGET, **dict.fromkeys(NAMES, LINKING)})
    commit_all(repo, "docs")

    async def session() -> None:
        editor = Editor(repo)
        await editor.start()
        assert editor.uri("docs/a b.md").endswith("/docs/a%20b.md")
        assert editor.uri("docs/ü.md").endswith("/docs/%C3%BC.md")
        for name in NAMES:
            editor.open(name)
            assert not _ks023(await editor.diagnostics(name))
        editor.open("docs/target.md")
        await editor.diagnostics("docs/target.md")
        editor.change("docs/target.md", TARGET.replace("## Backoff", "## Retry Backoff"))
        for name in NAMES:  # each sees the anchor the edit broke, under the URI it sent
            assert _ks023(await editor.settle(name, _ks023)), name
        strays = [uri for uri in editor.published if "a b.md" in uri or "ü.md" in uri]
        assert strays == []
        await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 5 * WAIT))

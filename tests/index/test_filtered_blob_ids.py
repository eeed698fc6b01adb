"""With a content filter (`.gitattributes`, autocrlf) the blob id a sync stores is the id of
the bytes it parsed: a doc saved between git's hash and the read is stored with the saved
text's id, never with one version's id and another's text (#26). Before, such a row was
called unchanged by every later sync, and searches returned text the file no longer had."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kenso_git.index import prepare
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

A = doc("Page", "alphaword is what the first version says. " * 6)
B = doc("Page", "betaword is what the second version says, at more length. " * 6)
C = doc("Page", "gammaword arrived while the sync ran.\r\n" * 9)  # CRLF: the filter acts


def _saved_meanwhile(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> None:
    """The fault: `text` is saved to `path` right after git hashed the changed docs."""
    real: Callable[..., dict[str, str] | None] = prepare.git_blob_ids
    done: list[bool] = []

    def hash_then_save(*args: object, **kwargs: object) -> dict[str, str] | None:
        ids = real(*args, **kwargs)
        if not done:
            done.append(True)
            path.write_bytes(text.encode())
        return ids

    monkeypatch.setattr(prepare, "git_blob_ids", hash_then_save)


def _stored(kb: KnowledgeBase, path: str) -> tuple[str, str]:
    def read(conn):  # type: ignore[no-untyped-def]
        blob = conn.execute("SELECT blob_id FROM files WHERE path = ?", (path,)).fetchone()[0]
        text = " ".join(
            r[0] for r in conn.execute("SELECT content FROM chunks WHERE file_path = ?", (path,))
        )
        return blob, text

    return kb.read(read)


@pytest.mark.parametrize(
    ("indexed", "then"),
    [(A, B), (B, A)],
    ids=["edited (git hashes the file)", "reverted (git gives the index entry's id)"],
)
def test_a_doc_saved_during_a_filtered_sync_is_stored_with_its_own_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indexed: str, then: str
) -> None:
    root = init_repo(tmp_path / "repo", {".gitattributes": "* text=auto\n", "docs/a.md": A})
    page = root / "docs" / "a.md"
    page.write_text(indexed)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    page.write_text(then)
    _saved_meanwhile(monkeypatch, page, C)
    kb.sync()
    monkeypatch.undo()
    blob, text = _stored(kb, "docs/a.md")
    assert "gammaword" in text
    assert blob == git(root, "hash-object", "docs/a.md").strip()  # the id of what is stored
    write(root, {"docs/a.md": then})  # back to the version git hashed first
    kb.sync()
    blob, text = _stored(kb, "docs/a.md")
    assert "gammaword" not in text and then.split()[3] in text
    assert blob == git(root, "hash-object", "docs/a.md").strip()
    assert kb.search_docs("gammaword") == []
    kb.close()

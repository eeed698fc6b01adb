from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.errors import UsageError
from kenso_git.repo.discover import Skip
from kenso_git.repo.discover import discover
from kenso_git.repo.discover import load_document
from kenso_git.repo.targets import scope_folders
from kenso_git.repo.workspace import find_workspace
from tests.helpers import init_repo
from tests.helpers import write

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"


def _found(root: Path, **kw) -> list[str]:
    return [sf.path for sf in discover(find_workspace(root), Settings(), **kw)]


def test_finds_md_and_markdown_in_any_case_and_sorts_by_path(tmp_path):
    write(tmp_path, {"b.MD": DOC, "a/x.markdown": DOC, "a.md": DOC, "notes.txt": "x"})
    assert _found(tmp_path) == ["a.md", "a/x.markdown", "b.MD"]


def test_never_enters_git_or_kenso_or_submodules(tmp_path):
    init_repo(tmp_path, commit=False)
    write(
        tmp_path,
        {".git/x.md": DOC, ".kenso/y.md": DOC, "sub/.git": "gitdir: ../x\n", "sub/z.md": DOC},
    )
    write(tmp_path, {"ok.md": DOC})
    assert _found(tmp_path) == ["ok.md"]


def test_symlink_leaving_the_root_is_skipped_with_a_warning(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(DOC, encoding="utf-8")
    root = tmp_path / "repo"
    write(root, {"inside.md": DOC})
    os.symlink(outside, root / "link.md")
    os.symlink(root / "inside.md", root / "alias.md")
    warnings: list[str] = []
    found = [sf.path for sf in discover(find_workspace(root), Settings(), warn=warnings.append)]
    assert found == ["alias.md", "inside.md"]
    assert warnings == ["link.md: symlink leads outside the repository, skipped"]


def test_paths_with_spaces_and_unicode_are_kept_posix(tmp_path):
    write(tmp_path, {"my docs/résumé ñ.md": DOC})
    assert _found(tmp_path) == ["my docs/résumé ñ.md"]


def test_scope_limits_discovery_and_paths_stay_root_relative(tmp_path):
    init_repo(tmp_path, commit=False)
    write(tmp_path, {"docs/a.md": DOC, "b.md": DOC})
    ws = find_workspace(tmp_path / "docs")
    assert ws.root == tmp_path.resolve()
    scope = scope_folders(ws, [tmp_path / "docs"])
    assert scope == ["docs"]
    assert [sf.path for sf in discover(ws, Settings(), scope=scope)] == ["docs/a.md"]


def test_scope_outside_the_root_is_a_usage_error(tmp_path):
    root = init_repo(tmp_path / "repo", commit=False)
    with pytest.raises(UsageError, match="outside the work tree"):
        scope_folders(find_workspace(root), [tmp_path])
    with pytest.raises(UsageError, match="does not exist"):
        scope_folders(find_workspace(root), [root / "missing"])


def test_binary_and_oversized_files_are_skipped(tmp_path):
    write(tmp_path, {"bin.md": b"# x\x00\x01\x02" * 10, "big.md": "x" * 5000, "ok.md": DOC})
    ws = find_workspace(tmp_path)
    settings = Settings(max_file_size=4000)
    results = {sf.path: load_document(sf, settings) for sf in discover(ws, settings)}
    assert isinstance(results["bin.md"], Skip) and results["bin.md"].reason == "binary"
    assert isinstance(results["big.md"], Skip) and results["big.md"].reason == "large"
    assert not isinstance(results["ok.md"], Skip)


def test_invalid_utf8_still_loads_with_a_problem(tmp_path):
    write(tmp_path, {"bad.md": DOC.encode() + b"\n\xff\xfe broken line\n"})
    ws = find_workspace(tmp_path)
    (sf,) = discover(ws, Settings())
    doc = load_document(sf, Settings())
    assert not isinstance(doc, Skip)
    assert doc.problems and doc.problems[0].line == 5
    assert "broken line" in doc.text


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_files_with_a_bom_are_read_as_text(tmp_path, codec):
    bom = {"utf-16-be": b"\xfe\xff"}.get(codec, b"")
    write(
        tmp_path,
        {"wide.md": bom + "# Wide Guide\n\nCafé notes for Windows editors.\n".encode(codec)},
    )
    ws = find_workspace(tmp_path)
    (sf,) = discover(ws, Settings())
    doc = load_document(sf, Settings())
    assert not isinstance(doc, Skip)
    assert doc.title == "Wide Guide" and "Café notes" in doc.body
    assert doc.problems == ()


def test_a_utf16_file_is_indexed_and_searchable(tmp_path):
    from kenso_git.kb import KnowledgeBase

    text = "# Wide Guide\n\nThe zanzibar procedure is written by a Windows editor.\n"
    root = init_repo(tmp_path, {"wide.md": text.encode("utf-16")})
    kb = KnowledgeBase.open(root)
    assert kb.ingest().count("ingested") == 1
    assert [h.file_path for h in kb.search("zanzibar").hits] == ["wide.md"]


def test_a_file_that_grew_since_it_was_found_is_read_whole_up_to_the_cap(tmp_path):
    """The read asks for the size discovery saw, then reads on to the end: a file appended
    to meanwhile is read whole, with its new stat data, and skipped once past the cap."""
    from kenso_git.repo.discover import Read
    from kenso_git.repo.discover import read_file

    write(tmp_path, {"grew.md": DOC, "over.md": DOC})
    found = {sf.path: sf for sf in discover(find_workspace(tmp_path), Settings())}
    more = "More words. " * 20_000  # past one 64 kB read
    with (tmp_path / "grew.md").open("a", encoding="utf-8") as handle:
        handle.write(more)
    with (tmp_path / "over.md").open("a", encoding="utf-8") as handle:
        handle.write(more)
    grew = read_file(found["grew.md"], 1_000_000)
    assert isinstance(grew, Read) and grew.data == (DOC + more).encode()
    assert grew.seen is not None and grew.seen[0] == len(DOC) + len(more)
    over = read_file(found["over.md"], len(DOC) + 1000)
    assert isinstance(over, Skip) and over.reason == "large"
    assert read_file(found["grew.md"], len(DOC) + len(more)) == grew  # exactly at the cap

"""The newcomer's rough edges: plurals, labels, clamps, keys, descriptions, the HTTP notice."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import httpx

from kenso_git.cli.output import shown_path
from kenso_git.cli.output import tsv_field
from kenso_git.search.ranked.hits import relevance
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo

EXE = [sys.executable, "-m", "kenso_git"]


def _kenso(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, check=False)


def _one_doc_repo(root: Path) -> Path:
    body = "How we deploy the service safely: build, test, then roll out to every region."
    return init_repo(root, {"docs/deploy.md": doc("Deploy", body)})


def test_ingest_output_agrees_in_number_and_names_removed_files(tmp_path: Path) -> None:
    root = _one_doc_repo(tmp_path / "repo")
    first = _kenso(root, "ingest", "--no-lint").stdout
    assert "indexing 1 document\n" in first
    assert "1 file · " in first and " 1 chunk · " in first and " 1 chunk\n" in first
    (root / "docs" / "deploy.md").unlink()
    second = _kenso(root, "ingest", "--no-lint").stdout
    row = next(line for line in second.splitlines() if "docs/deploy.md" in line)
    assert row.rstrip().endswith("removed") and "0 chunks" not in row
    synced = _kenso(root, "sync").stdout
    assert "synced 0 files" in synced


def test_a_zero_score_is_never_high() -> None:
    assert relevance("AND", 0.000001, 0.000001) == "low"
    assert relevance("AND", 3.0, 3.0) == "high"


def test_one_document_search_does_not_label_0_00_high(tmp_path: Path) -> None:
    root = _one_doc_repo(tmp_path / "repo")
    _kenso(root, "ingest", "--no-lint")
    line = next(x for x in _kenso(root, "search", "deploy").stdout.splitlines() if "docs/" in x)
    if line.startswith("0.00"):
        assert line.endswith("low"), line


def test_limit_out_of_range_is_said_and_sync_json_says_errors(tmp_path: Path) -> None:
    root = _one_doc_repo(tmp_path / "repo")
    _kenso(root, "ingest", "--no-lint")
    wide = _kenso(root, "search", "deploy", "-n", "50")
    assert wide.returncode == 0
    assert "--limit 50 is outside 1..20; showing 20" in wide.stderr
    assert "search-limit-max" in _kenso(root, "search", "--help").stdout
    report = json.loads(_kenso(root, "sync", "--json").stdout)
    assert "errors" in report and "error" not in report
    ingest = json.loads(_kenso(root, "ingest", "--json", "--no-lint").stdout)
    assert "errors" in ingest["ingest"]


def test_tool_descriptions_carry_no_docstring_indentation(tmp_path: Path) -> None:
    root = _one_doc_repo(tmp_path / "repo")
    tools = anyio.run(build_server(Service(root)).list_tools)
    for tool in tools:
        lines = (tool.description or "").splitlines()
        assert lines and not any(line.startswith(" ") for line in lines), tool.name


def test_http_start_notice_names_the_real_port_and_is_no_warning(tmp_path: Path) -> None:
    root = _one_doc_repo(tmp_path / "repo")
    cmd = [*EXE, "serve", "--transport", "http", "--port", "0"]
    proc = subprocess.Popen(cmd, cwd=root, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    stream = proc.stderr
    threading.Thread(target=lambda: [lines.put(x) for x in stream], daemon=True).start()
    try:
        notice = lines.get(timeout=30)  # bounded: the first stderr line is the notice
        assert "WARNING" not in notice and "serving MCP on http://127.0.0.1:" in notice
        port = int(notice.split("127.0.0.1:")[1].split("/")[0])
        assert port != 0
        token = (root / ".kenso" / "http.token").read_text(encoding="utf-8").strip()
        health = httpx.get(
            f"http://127.0.0.1:{port}/health",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert health.status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        stream.close()


def test_drift_outside_git_exits_2_as_its_help_says(tmp_path: Path) -> None:
    """`drift` outside a repository said so and exited 0, where its help (and `changed`)
    give 2."""
    for args in (("drift",), ("drift", "--json"), ("changed", "--since", "HEAD")):
        proc = _kenso(tmp_path, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
    proc = _kenso(tmp_path, "drift", "--json")
    assert json.loads(proc.stdout)["reason"] == "not a git repository"


def test_a_path_no_agent_may_name_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """A doc named with a tab was indexed, split its `--format tsv` row (`cut -f1` gave half
    a name), and was in answers whose path `get_doc` and `related` refused: ingest now skips
    it and says why."""
    root = init_repo(tmp_path / "repo", {"docs/plain.md": doc("Plain", "pangolin. " * 20)})
    for name in ("tab\there.md", "~notes.md", "50%25-off.md"):
        (root / name).write_text(doc("Odd", "pangolin notes. " * 20), encoding="utf-8")
    proc = _kenso(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert "tab\\there.md: its path holds a control character" in proc.stderr
    assert "~notes.md: its path holds a leading ~" in proc.stderr
    assert "rename it to index it" in proc.stderr
    tsv = _kenso(root, "search", "pangolin", "--format", "tsv").stdout
    assert [line.split("\t")[0] for line in tsv.splitlines()] == ["docs/plain.md"]


def test_tsv_fields_and_shown_paths_escape_what_would_split_a_line() -> None:
    assert tsv_field("a\tb\nc\\d\re") == "a\\tb\\nc\\\\d\\re"
    assert shown_path("docs/plain é.md") == "docs/plain é.md"
    assert shown_path('say "hi".md') == '"say \\"hi\\".md"'
    assert shown_path("tab\there.md") == '"tab\\there.md"'


def test_a_huge_argument_is_not_echoed_whole_in_the_error(tmp_path: Path) -> None:
    """A 100,000-character `ref`, `since` or snippet query came back whole in the error
    text (100,112 characters of an agent's tokens)."""
    root = _one_doc_repo(tmp_path)
    assert _kenso(root, "ingest", "--no-lint").returncode == 0
    huge = "a" * 100_000
    proc = _kenso(root, "changed", "--since", huge)
    assert proc.returncode == 2 and "(100,000 characters)" in proc.stderr
    assert len(proc.stderr) < 1_000
    service = Service(root)
    for call in (
        lambda: service.read_snippet("docs/deploy.md", huge, 64, None),
        lambda: service.search_docs("deploy", None, 5, huge),
    ):
        try:
            call()
        except Exception as err:  # the tool error an agent reads
            assert len(str(err)) < 1_000 and "(100,000 characters)" in str(err)
        else:
            raise AssertionError("no error")


def test_an_unknown_revision_in_a_shallow_clone_says_the_clone_is_shallow(tmp_path: Path) -> None:
    full = _one_doc_repo(tmp_path / "full")
    (full / "docs" / "deploy.md").write_text(doc("Deploy", "deploy words. " * 20), "utf-8")
    subprocess.run(["git", "-C", str(full), "commit", "-qam", "two"], check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{full}", str(clone)], check=True)
    proc = _kenso(clone, "changed", "--since", "HEAD~1")
    assert proc.returncode == 2
    assert "this clone is shallow" in proc.stderr and "--unshallow" in proc.stderr


def test_changed_between_two_revisions_never_says_uncommitted(tmp_path: Path) -> None:
    """`changed --since HEAD --until v0` (the newer revision first) said "0 commits, last
    uncommitted" of a doc no uncommitted change touched."""
    root = _one_doc_repo(tmp_path)
    subprocess.run(["git", "-C", str(root), "tag", "v0"], check=True)
    (root / "docs" / "deploy.md").write_text(doc("Deploy", "deploy words. " * 20), "utf-8")
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "two"], check=True)
    back = _kenso(root, "changed", "--since", "HEAD", "--until", "v0").stdout
    assert "docs/deploy.md\t0 commits from --since to --until" in back
    assert "uncommitted" not in back
    forth = _kenso(root, "changed", "--since", "v0", "--until", "HEAD").stdout
    assert "docs/deploy.md\t1 commit, last " in forth and "uncommitted" not in forth


def test_a_plain_search_shows_each_highlight_on_one_indented_line(tmp_path: Path) -> None:
    # a page without H2 sections gave a highlight of several lines, printed unindented
    root = init_repo(
        tmp_path / "repo",
        {"p.md": "# Naive page\n\nFirst line mentions the narwhal.\nSecond line here.\n"},
    )
    assert _kenso(root, "ingest", "--no-lint").returncode == 0
    shown = _kenso(root, "search", "narwhal", "--color", "never")
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.split("\n\n", 1)[1].strip().splitlines()
    assert len(body) == 3 and all(line.startswith("      ") for line in body[1:]), body
    assert "narwhal" in body[2] and "Second line here." in body[2]

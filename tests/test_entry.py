"""The entry's click-free fast paths print exactly what the click commands print."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git import entry
from kenso_git.cli.main import main as click_main
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = init_repo(
        tmp_path,
        {
            "guides/alpha.md": doc("Alpha Guide", "Alpha widgets are configured with care.\n"),
            "notes/beta.md": doc("Beta Notes", "Beta widgets and alpha gadgets, side by side.\n"),
        },
    )
    KnowledgeBase.open(root).ingest()
    monkeypatch.chdir(root)
    monkeypatch.delenv("KENSO_LOG_LEVEL", raising=False)
    return root


def _run(fn: object, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        fn(args)  # type: ignore[operator]
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


@pytest.mark.parametrize(
    "args",
    [
        ["search", "alpha widgets"],
        ["search", "alpha", "--json"],
        ["search", "widgets", "--color", "always"],
        ["search", "widgets", "-n", "1", "-c", "guides"],
        ["search", "widgets", "--limit", "1", "--category", "all", "--color", "never"],
        ["search", "zzqqxx nothing matches"],
        ["search", "alpha", "--ref", "HEAD", "--json"],
        ["search", "widgets", "--ref", "HEAD", "-n", "1"],
    ],
)
def test_fast_search_prints_what_the_click_command_prints(
    indexed: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    assert entry.parse_search_args(args[1:]) is not None  # this form takes the fast path
    fast = _run(entry.main, args, capsys)
    slow = _run(click_main, args, capsys)
    assert fast == slow
    assert fast[0] == 0 and fast[1]


def test_fast_search_without_an_index_exits_3_like_click(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(init_repo(tmp_path, {"a.md": doc("Alpha Guide")}))
    fast = _run(entry.main, ["search", "alpha"], capsys)
    slow = _run(click_main, ["search", "alpha"], capsys)
    assert fast == slow and fast[0] == 3 and "no search index" in fast[2]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["alpha", "--limit=5"],
        ["alpha", "beta"],
        ["alpha", "--limit", "many"],
        ["alpha", "--color", "rainbow"],
        ["alpha", "--limit"],
        ["--", "-alpha"],
        [],
    ],
)
def test_other_search_forms_go_to_click(args: list[str]) -> None:
    assert entry.parse_search_args(args) is None


def test_a_search_at_a_bad_revision_fails_on_the_fast_path_as_with_click(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["search", "alpha", "--ref", "no-such-tag"]
    assert entry.parse_search_args(args[1:]) is not None
    fast = _run(entry.main, args, capsys)
    slow = _run(click_main, args, capsys)
    assert fast == slow and fast[0] == 2 and "no-such-tag" in fast[2]


@pytest.mark.parametrize("extra", [[], ["--ref", "HEAD"]])
def test_plain_search_never_imports_click_or_mcp(indexed: Path, extra: list[str]) -> None:
    code = (
        "import sys\n"
        "from kenso_git.entry import main\n"
        f"try:\n    main(['search', 'alpha', *{extra!r}])\nexcept SystemExit:\n    pass\n"
        # dataclasses pulls in inspect, ast and dis: ~13 ms of a ~150 ms search (#16)
        "slow = {'click', 'mcp', 'pydantic', 'pygit2', 'yaml', 'dataclasses', 'inspect'}\n"
        "sys.stderr.write(repr(sorted({m.split('.')[0] for m in sys.modules} & slow)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=indexed, capture_output=True, text=True, check=True
    )
    assert proc.stderr == "[]"
    assert "Alpha Guide" in proc.stdout or "alpha" in proc.stdout


def test_the_early_check_of_query_sync_reads_the_off_words_as_the_settings_do() -> None:
    from kenso_git import config

    # entry restates them: importing config before the early status starts costs its lead
    off = {word for word, on in config._ENV_BOOLS.items() if not on}
    assert set(entry._OFF) == off

"""The shared option declarations drive both the click commands and the entry's fast parser."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from kenso_git import entry
from kenso_git.cli.index_cmd import sync
from kenso_git.cli.main import cli
from kenso_git.cli.options import AGENT_SEARCH_OPTIONS
from kenso_git.cli.options import COLOR
from kenso_git.cli.options import LIMIT
from kenso_git.cli.options import SEARCH_OPTIONS
from kenso_git.cli.options import SYNC_OPTIONS
from kenso_git.cli.options import Option
from kenso_git.cli.options import parse_plain
from kenso_git.cli.search_cmd import search


def _click_options(command: click.Command) -> dict[str, click.Option]:
    return {p.name or "": p for p in command.params if isinstance(p, click.Option)}


@pytest.mark.parametrize(
    ("command", "declared"),
    [(search, SEARCH_OPTIONS + AGENT_SEARCH_OPTIONS), (sync, SYNC_OPTIONS)],
)
def test_fast_path_commands_take_exactly_the_declared_options(
    command: click.Command, declared: tuple[Option, ...]
) -> None:
    built = _click_options(command)
    ctx = click.Context(command)
    assert list(built) == [option.dest for option in declared]
    for option in declared:
        assert set(built[option.dest].opts) == set(option.flags)
        assert built[option.dest].get_default(ctx) == option.default


def test_fast_path_records_have_one_field_per_declared_option() -> None:
    assert entry.SearchArgs._fields == ("query", *(o.dest for o in SEARCH_OPTIONS))
    assert entry.SyncArgs._fields == tuple(o.dest for o in SYNC_OPTIONS)


def test_plain_parse_fills_the_declared_defaults() -> None:
    assert entry.parse_search_args(["alpha"]) == entry.SearchArgs(
        "alpha", limit=None, category=None, as_json=False, db_path=None, color="auto"
    )  # no --limit: None, so the default is clamped to search-limit-max silently
    assert entry.parse_sync_args([]) == entry.SyncArgs(as_json=False, quiet=False, db_path=None)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-q"], entry.SyncArgs(as_json=False, quiet=True, db_path=None)),
        (["--quiet", "--json"], entry.SyncArgs(as_json=True, quiet=True, db_path=None)),
        (["--db", "x.db", "-q"], entry.SyncArgs(as_json=False, quiet=True, db_path="x.db")),
        (["--db"], None),
        (["--db", "--json"], None),
        (["--db=x.db"], None),
        (["extra"], None),
        (["--help"], None),
        (["--color", "never"], None),  # sync has no --color
    ],
)
def test_plain_sync_forms(args: list[str], expected: entry.SyncArgs | None) -> None:
    assert entry.parse_sync_args(args) == expected


@pytest.mark.parametrize(
    ("option", "value", "parsed"),
    [
        (LIMIT, "7", 7),
        (LIMIT, "+7", None),  # click would take it; the fast path leaves it to click
        (LIMIT, "seven", None),
        (COLOR, "never", "never"),
        (COLOR, "rainbow", None),
    ],
)
def test_option_parse_accepts_only_what_click_surely_accepts(
    option: Option, value: str, parsed: object
) -> None:
    assert option.parse(value) == parsed


def test_parse_plain_keeps_the_words_apart() -> None:
    assert parse_plain(["a", "--json", "b"], SEARCH_OPTIONS) == (
        {
            "limit": None,
            "category": None,
            "as_json": True,
            "db_path": None,
            "color": "auto",
            "no_sync": False,
            "ref": None,
        },
        ["a", "b"],
    )


def test_search_help_lists_the_declared_options() -> None:
    result = CliRunner().invoke(cli, ["search", "--help"])
    assert result.exit_code == 0
    assert result.output.split("Options:\n", 1)[1] == (
        "  -n, --limit INTEGER          Results (1..search-limit-max, default 5).\n"
        "  -c, --category TEXT          Only this exact category ('all' = any).\n"
        "  --json                       Print the search_docs JSON array.\n"
        "  --db TEXT                    Database file (default .kenso/docs.db).\n"
        "  --color [auto|always|never]  Colour the output.  [default: auto]\n"
        "  --no-sync                    Do not sync changed docs first.\n"
        "  --ref TEXT                   The docs as in this commit, branch or tag (REV).\n"
        "  --path TEXT                  Only docs under this folder (in:PATH).\n"
        "  --ext TEXT                   Only files with this extension (ext:EXT).\n"
        "  --tag TEXT                   Only docs with this frontmatter tag (tag:TAG).\n"
        "  --since TEXT                 Only files modified within, e.g. 7d (modified:).\n"
        "  --exhaustive                 Every match, path-sorted.\n"
        "  --page-size INTEGER          Hits per page (1..50, default 10; or -n).\n"
        "  --cursor TEXT                next_cursor of the previous page.\n"
        "  --format [text|json|tsv]     text, json (the search tool's page) or tsv (path,\n"
        "                               score, snippet).\n"
        "  -h, --help                   Show this message and exit.\n"
    )


def test_lint_help_keeps_its_bare_color_option() -> None:
    result = CliRunner().invoke(cli, ["lint", "--help"])
    assert result.exit_code == 0
    assert "  --color [auto|always|never]\n" in result.output


def test_declarations_and_exit_handler_do_not_import_click() -> None:
    code = (
        "import sys\n"
        "import kenso_git.cli.options, kenso_git.cli.exit\n"
        "sys.stderr.write(repr('click' in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr == "False"

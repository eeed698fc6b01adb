"""Lint and `--fix` read links where CommonMark does (`text.mdcode`, `text.mdparagraph`): a
`<!--` in a code span hid every later link of its page (no KS022, no fix); a wrapped shell
pipeline (`| grep`) ended a paragraph, so a link inside the real code span after it was a
KS022 and `--fix` rewrote code; a `](` that opened no link swallowed the link after it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import run_cli
from tests.lint.test_targets import _one_pass_is_two_pass

B = "# Beta page\n\nBeta text long enough for git to see a rename of it later on.\n"


def _concise(repo: Path) -> list[str]:
    shown = run_cli(repo, "lint", "--format", "concise", "--select", "KS022,KS024", "docs")
    return shown.stdout.splitlines()


def test_links_after_a_comment_opening_in_code_or_a_stray_bracket_are_checked(
    repo: Path,
) -> None:
    write(
        repo,
        {
            "docs/a.md": "# Comment syntax guide page\n\nWrite `<!--` to open an HTML comment."
            "\n\nSee [the missing page](missing.md) for more.\n",
            "docs/c.md": "# Stray brackets page\n\nText x ](y[t](missing5.md)) and more.\n\n"
            "Also ]([u](missing6.md)) here.\n",
        },
    )
    commit_all(repo, "pages")
    # before: nothing for either page
    assert _concise(repo) == [
        'docs/a.md:5:24: KS022 link "missing.md": docs/missing.md does not exist (dead-link)',
        'docs/c.md:3:15: KS022 link "missing5.md": docs/missing5.md does not exist (dead-link)',
        'docs/c.md:5:12: KS022 link "missing6.md": docs/missing6.md does not exist (dead-link)',
    ]


def test_fix_rewrites_the_link_and_leaves_a_code_span_over_a_pipe_line_alone(repo: Path) -> None:
    page = (
        "# Page about pipes\n\nRun `ls docs\n| grep b` then `cat [b](b.md)` verbatim, "
        "and read [b](b.md).\n"
    )
    write(repo, {"docs/b.md": B, "docs/p.md": page})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/b.md", "docs/b2.md")
    commit_all(repo, "move")
    assert _concise(repo) == [
        "docs/p.md:4:55: KS024 docs/b.md was renamed to docs/b2.md in "
        + git(repo, "rev-parse", "--short", "HEAD").strip()
        + "; lint --fix rewrites the link (moved-target)"
    ]
    run_cli(repo, "lint", "--fix", "docs/p.md")
    # before: `cat [b](b2.md)` as well, inside the code span
    assert (repo / "docs" / "p.md").read_text(encoding="utf-8") == page.replace(
        "read [b](b.md)", "read [b](b2.md)"
    )


_PIECE = st.sampled_from(
    [
        "[r",
        "](old.md)",
        "](gone.md)",
        "]([t](gone.md))",
        "x ](y",
        "[t](old.md#nope)",
        "`",
        "``",
        "`<!--`",
        "<!--",
        "-->",
        "\n",
        "\n\n",
        "\n2. ",
        "\n| ",
        "\n> ",
        "\n    ",
        "\n- ",
        '<span title="`">',
        "<http://x.y/`a>",
        " ",
        "x",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE, max_size=30))
@example(["x ](y", "[r", "](gone.md)", ")"])  # a stray `](` over a link
@example(["`<!--`", "[r", "](gone.md)"])  # a comment opening in code
@example(["`", "\n| ", "[r", "](gone.md)", "`"])  # a span over a pipe line
def test_notable_in_one_pass_is_the_two_pass_scan_over_these_constructs(
    pieces: list[str],
) -> None:
    _one_pass_is_two_pass("# Tricky\n\n" + "".join(pieces))

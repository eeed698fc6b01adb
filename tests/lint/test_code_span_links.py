"""A link's shape inside a code span that runs over a line break is code, not a link (CommonMark
6.1): `kenso-git lint` reported it as a dead link (KS022). Lint, `lint --fix` and the language
server read the same code spans: none reports, rewrites or offers to fix it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import run_cli
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

OLD = "# Old page about widgets\n\nText that is long enough to make a page of it here.\n"
PAGE = (
    "# Code spans page\n\n"
    "A list line is written `- [Now](missing.md): returns the\n"
    "current time` in the hub; see [the old page](old.md) and\n"
    "``[x](old.md) ` and\n"
    "[y](gone.md)`` as well, then [a dead one](gone.md).\n"
)


def _concise(repo: Path) -> list[str]:
    shown = run_cli(repo, "lint", "--format", "concise", "--select", "KS022,KS024", "docs")
    return shown.stdout.splitlines()


def test_a_code_span_over_lines_holds_no_link_for_lint_fix_or_the_server(repo: Path) -> None:
    write(repo, {"docs/old.md": OLD, "docs/page.md": PAGE})
    commit_all(repo, "pages")
    # before: docs/page.md:3:31: KS022 link "missing.md": docs/missing.md does not exist,
    # and KS022 "gone.md" at 6:2 inside the double-backtick span
    assert _concise(repo) == [
        'docs/page.md:6:43: KS022 link "gone.md": docs/gone.md does not exist (dead-link)'
    ]

    git(repo, "mv", "docs/old.md", "docs/new.md")
    moved = (
        "docs/page.md:4:46: KS024 docs/old.md was renamed to docs/new.md in the staged "
        "changes; lint --fix rewrites the link (moved-target)"
    )
    assert _concise(repo) == [
        moved,
        'docs/page.md:6:43: KS022 link "gone.md": docs/gone.md does not exist (dead-link)',
    ]

    async def session() -> list[tuple[int, int, object]]:
        editor = Editor(repo)
        await editor.start()
        editor.open("docs/page.md")
        found = await editor.settle("docs/page.md", lambda d: any(x.code == "KS024" for x in d))
        await editor.stop()
        return sorted(
            (d.range.start.line + 1, d.range.start.character + 1, d.code)
            for d in found
            if d.code in ("KS022", "KS024")
        )

    assert asyncio.run(asyncio.wait_for(session(), 5 * WAIT)) == [
        (4, 46, "KS024"),
        (6, 43, "KS022"),
    ]

    run_cli(repo, "lint", "--fix", "docs/page.md")
    text = (repo / "docs" / "page.md").read_text(encoding="utf-8")
    assert text == PAGE.replace("[the old page](old.md)", "[the old page](new.md)")

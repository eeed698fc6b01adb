"""The tool lists of README.md and docs/getting-started.md, made from the registry.

Each page holds its list between two marker comments; `python -m kenso_git.serve.mcp.toollists`
rewrites them in place and a test fails when a page's list is not the rendering of
`serve.tools.TOOLS` (a tool added, renamed or re-described without the pages following).
"""

from __future__ import annotations

import sys
from pathlib import Path

from kenso_git.serve.mcp.tools import TOOLS

BEGIN = "<!-- tool list: made by `python -m kenso_git.serve.mcp.toollists`; do not edit -->"
END = "<!-- end of tool list -->"
PAGES = ("README.md", "docs/getting-started.md")


def readme_list() -> str:
    """The README's list: a bullet per tool, kenso's four first."""
    return "\n".join(f"- `{tool.name}`: {tool.summary}" for tool in TOOLS)


def table() -> str:
    """The getting-started table: a row per tool."""
    rows = ["| tool | what it answers |", "|---|---|"]
    rows += [f"| `{tool.name}` | {tool.summary} |" for tool in TOOLS]
    return "\n".join(rows)


def render(page: str) -> str:
    return readme_list() if page == "README.md" else table()


def rewrite(text: str, block: str) -> str:
    """`text` with the block between the markers replaced by `block`.

    Raises:
        ValueError: the page lacks the markers.
    """
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no {BEGIN!r} ... {END!r} markers")
    return f"{text[: start + len(BEGIN)]}\n{block}\n{text[end:]}"


def main(root: Path) -> None:
    for page in PAGES:
        path = root / page
        text = path.read_text(encoding="utf-8")
        path.write_text(rewrite(text, render(page)), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - the regeneration entry point
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd())

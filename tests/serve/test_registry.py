"""#28: every MCP tool is declared once (`serve.tools.TOOLS`), and what is made from the
registry follows it: the server's tool list, each tool's output schema (its examples' answers
validate against it), the README and getting-started lists, and `GET /search`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client

from kenso_git.serve.mcp import toollists
from kenso_git.serve.mcp.docs import example_repo
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.mcp.tools import TOOLS
from kenso_git.serve.service import Service

ROOT = Path(__file__).resolve().parents[2]


async def _listed(service: Service, *, http: bool = False) -> list[Any]:
    async with Client(build_server(service, http=http)) as client:
        return list((await client.list_tools()).tools)


def test_the_server_lists_the_registry_in_order(tmp_path: Path) -> None:
    (tmp_path / ".kenso.toml").write_text("allow-reindex = true\n", encoding="utf-8")
    names = [t.name for t in asyncio.run(_listed(Service(tmp_path)))]
    assert names == [tool.name for tool in TOOLS]
    over_http = [t.name for t in asyncio.run(_listed(Service(tmp_path), http=True))]
    assert over_http == [tool.name for tool in TOOLS if not tool.writes]
    (tmp_path / ".kenso.toml").write_text("", encoding="utf-8")
    default = [t.name for t in asyncio.run(_listed(Service(tmp_path)))]
    assert default == over_http


def test_every_tool_is_described_titled_and_has_an_example() -> None:
    for tool in TOOLS:
        assert tool.run.__doc__ and tool.title and tool.summary, tool.name
        assert tool.examples or tool.writes, f"{tool.name} has no docs example"


def test_each_example_answer_validates_against_its_tool_output_schema() -> None:
    async def run(root: Path) -> list[tuple[str, dict[str, Any], Any]]:
        answers = []
        async with Client(build_server(Service(root))) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            for tool in TOOLS:
                for example in tool.examples:
                    result = await client.call_tool(tool.name, example.arguments)
                    if not result.is_error:
                        answers.append((tool.name, schemas[tool.name], result.structured_content))
        return answers

    with example_repo() as root:
        answers = asyncio.run(run(root))
    assert {name for name, _, _ in answers} >= {"search_docs", "get_doc", "search", "health_check"}
    for name, schema, content in answers:
        assert content is not None, name
        jsonschema.validate(content, schema)  # raises with the path of what drifted


@pytest.mark.parametrize("page", toollists.PAGES)
def test_the_pages_tool_lists_are_the_registrys(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert toollists.rewrite(text, toollists.render(page)) == text, (
        f"run: python -m kenso_git.serve.mcp.toollists (the {page} tool list drifted)"
    )

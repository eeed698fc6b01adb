"""Render docs/mcp-tools.md from the live MCP tool definitions (never edit that file by hand).

Run `python -m kenso_git.serve.mcp.docs > docs/mcp-tools.md`. The server object comes from
`kenso_git.serve.mcp.server.build_server` and is never run: its tools are listed (description,
input schema, annotations, output schema) and each is called once, in process, against a
tiny index built in a temporary folder from `EXAMPLE_DOCS`. Values that differ from run to
run (the temporary root, the sync time, the database size, the query watch's state: it
arms in a thread, and only on Linux) are replaced with fixed placeholders, so the output
is the same on every machine and a test can compare it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.mcp.tools import INSTRUCTIONS
from kenso_git.serve.mcp.tools import TOOLS
from kenso_git.serve.service import Service

PLACEHOLDER_ROOT = "/home/you/project"
PLACEHOLDER_TIME = 1767225600.0  # 2026-01-01T00:00:00Z
PLACEHOLDER_BYTES = 65536
# the query watch of a process that answered a few calls on Linux, armed on the example's
# folders (the root and docs/)
PLACEHOLDER_QUERY_WATCH = {"state": "armed", "reason": None, "folders": 2}

EXAMPLE_DOCS: dict[str, str] = {
    "docs/deploy.md": (
        "---\ntitle: Deploy Guide\ntags: [deploy, release, canary]\n"
        "relates_to:\n  - path: docs/rollback.md\n    relation: feeds_into\n---\n"
        "# Deploy Guide\n\nHow the payment service goes from a merged pull request to "
        "production.\n\n"
        "## Release pipeline\n\nThe pipeline builds one image, runs the integration tests and "
        "deploys it to a canary that takes 5% of the traffic for ten minutes.\n\n"
        "## Canary checks\n\nThe canary is promoted when its error rate stays under 0.1%; "
        "otherwise the release is rolled back automatically (see the rollback runbook).\n"
    ),
    "docs/rollback.md": (
        "---\ntitle: Rollback Runbook\ntags: [rollback, incident, release]\n---\n"
        "# Rollback Runbook\n\nWhat to do when a release of the payment service misbehaves.\n\n"
        "## Roll back a release\n\nRun `deploy rollback --to previous`; the previous image is "
        "kept for seven days, so a rollback takes under a minute.\n\n"
        "## After a rollback\n\nOpen an incident, keep the failing image for analysis and "
        "add a test that reproduces the failure before the next release.\n"
    ),
    "docs/billing.md": (
        "---\ntitle: Billing Retries\ntags: [billing, retries, payments]\n"
        "relates_to: docs/deploy.md\n---\n"
        "# Billing Retries\n\nHow failed card payments are retried before a subscription "
        "lapses.\n\n"
        "## Retry schedule\n\nA failed charge is retried three times, after 1, 3 and 7 days, "
        "with exponential backoff between network errors.\n"
    ),
}

# (tool, arguments, what the example shows), in the order the server lists the tools: the
# registry's examples (`serve.tools`), so a tool's declaration holds its docs example too.
EXAMPLES: tuple[tuple[str, dict[str, Any], str], ...] = tuple(
    (tool.name, example.arguments, example.note) for tool in TOOLS for example in tool.examples
)
# a call naming no tool the server offers (a near miss of search_docs): its error is shown too
UNKNOWN_CALL: tuple[str, dict[str, Any]] = ("search_doc", {"query": "canary rollback"})
REINDEX_EDIT = (
    "\n## Dunning emails\n\nCustomers get an email after each failed retry, with a link to "
    "update the card on file.\n"
)


@contextmanager
def example_repo() -> Iterator[Path]:
    """A temporary folder holding EXAMPLE_DOCS and their index (not a git repository)."""
    from kenso_git.kb import KnowledgeBase

    # KENSO_* variables of the caller (a database path, a preview length) would change the output.
    saved = {k: os.environ.pop(k) for k in [k for k in os.environ if k.startswith("KENSO_")]}
    try:
        with tempfile.TemporaryDirectory(prefix="kenso-mcp-docs-") as tmp:
            root = Path(tmp).resolve()
            for rel, text in EXAMPLE_DOCS.items():
                target = root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            kb = KnowledgeBase.open(root)
            kb.ingest()
            kb.close()
            yield root
    finally:
        os.environ.update(saved)


def _scrub(value: Any, root: str) -> Any:
    """Replace per-run values (paths under the temporary root, times, sizes) with fixed ones."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "synced_at" and isinstance(item, float):
                out[key] = PLACEHOLDER_TIME
            elif key in ("modified", "as_of") and isinstance(item, int):
                out[key] = int(PLACEHOLDER_TIME)  # the agent tools' Unix times
            elif key == "db_bytes" and isinstance(item, int):
                out[key] = PLACEHOLDER_BYTES
            elif key == "query_watch" and isinstance(item, dict):
                out[key] = PLACEHOLDER_QUERY_WATCH
            else:
                out[key] = _scrub(item, root)
        return out
    if isinstance(value, list):
        return [_scrub(item, root) for item in value]
    if isinstance(value, str):
        return value.replace(root, PLACEHOLDER_ROOT)
    return value


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _schema_json(value: object, depth: int = 0) -> str:
    """JSON with the first levels indented and anything deeper on one line (short schemas)."""
    if depth >= 3 or not isinstance(value, dict) or not value:
        return json.dumps(value, ensure_ascii=False)
    pad = "  " * (depth + 1)
    items = [f"{pad}{json.dumps(k)}: {_schema_json(v, depth + 1)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"


def _tool_info(tool: Any) -> dict[str, Any]:
    annotations = tool.annotations
    return {
        "name": tool.name,
        "title": tool.title or tool.name,
        "description": inspect.cleandoc(tool.description or ""),
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": (
            annotations.model_dump(by_alias=True, exclude_none=True) if annotations else {}
        ),
    }


async def _example(server: Any, name: str, args: dict[str, Any], root: Path) -> dict[str, Any]:
    result = await server.call_tool(name, args)
    text = "".join(getattr(part, "text", "") for part in result.content)
    return {
        "args": args,
        "is_error": bool(result.is_error),
        "result": _scrub(json.loads(text), str(root)),
    }


async def collect(root: Path) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The tool definitions (server order) and the example calls of each tool, run at `root`
    (and of `UNKNOWN_CALL`'s tool, which the server does not offer)."""
    reader = Service(root)
    server = build_server(reader)
    tools = [_tool_info(t) for t in await server.list_tools()]
    examples: dict[str, list[dict[str, Any]]] = {}
    for name, args, note in EXAMPLES:
        call = await _example(server, name, args, root)
        examples.setdefault(name, []).append({**call, "note": note})
    unknown, args = UNKNOWN_CALL
    examples[unknown] = [{**await _example(server, unknown, args, root), "note": ""}]
    reader.kb().close()
    # `reindex` is listed only with `allow-reindex = true` (and never over HTTP): show it so,
    # after an edit, so that the call has something to do.
    (root / ".kenso.toml").write_text("allow-reindex = true\n", encoding="utf-8")
    with (root / "docs" / "billing.md").open("a", encoding="utf-8") as handle:
        handle.write(REINDEX_EDIT)
    writer_service = Service(root)
    writer = build_server(writer_service)
    tools += [_tool_info(t) for t in await writer.list_tools() if t.name == "reindex"]
    call = await _example(writer, "reindex", {}, root)
    examples["reindex"] = [{**call, "note": "after docs/billing.md gained a section"}]
    writer_service.kb().close()
    return tools, examples


# --- rendering -------------------------------------------------------------------------------

FRONTMATTER = """\
---
title: MCP Tools Reference
description: >-
  Every tool kenso-git serve offers to MCP clients, with its parameters, annotations,
  output schema, an example call and the result it returned. Generated from the server code.
tags: [agents, json-schema, model-context-protocol, examples, editor-integration]
relates_to:
  - path: docs/getting-started.md
    relation: part_of
  - path: docs/security.md
    relation: related
  - path: docs/configuration.md
    relation: related
---
"""


def _type(schema: Mapping[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if isinstance(kind, str):
        return kind
    return "any"


def _params(schema: Mapping[str, Any]) -> list[str]:
    props: Mapping[str, Any] = schema.get("properties", {})
    if not props:
        return ["No parameters."]
    required = set(schema.get("required", []))
    lines = ["| parameter | type | required | default |", "|---|---|---|---|"]
    for name, prop in props.items():
        default = "—" if name in required else f"`{json.dumps(prop.get('default'))}`"
        yes = "yes" if name in required else "no"
        lines.append(f"| `{name}` | {_type(prop)} | {yes} | {default} |")
    return lines


def _annotations(values: Mapping[str, Any]) -> str:
    return ", ".join(f"`{key}: {json.dumps(val)}`" for key, val in values.items()) or "none"


def _code(language: str, text: str) -> list[str]:
    return [f"```{language}", text, "```"]


def _tool_section(tool: Mapping[str, Any], calls: list[dict[str, Any]]) -> list[str]:
    name = tool["name"]
    lines = [f"## {name}: {tool['title'].lower()}", "", tool["description"].strip(), ""]
    lines += [f"Parameters of `{name}`:", "", *_params(tool["input_schema"]), ""]
    lines += [f"Annotations: {_annotations(tool['annotations'])}.", ""]
    for call in calls:
        note = f" ({call['note']})" if call["note"] else ""
        request = {"name": name, "arguments": call["args"]}
        outcome = "error result (`isError: true`)" if call["is_error"] else "result"
        lines += [f"### {name} example{note}", ""]
        lines += ["Call:", "", *_code("json", _json(request)), ""]
        lines += [f"The {outcome}, as JSON text:", "", *_code("json", _json(call["result"])), ""]
    lines += [f"## {name} input and output schemas", ""]
    lines += [
        f"Input schema of `{name}` (JSON Schema, as `tools/list` sends it):",
        "",
        *_code("json", _schema_json(tool["input_schema"])),
        "",
    ]
    lines += [f"Output schema of `{name}` (its structured content):", ""]
    lines += [*_code("json", _schema_json(tool["output_schema"])), ""]
    return lines


def render(tools: list[dict[str, Any]], examples: Mapping[str, list[dict[str, Any]]]) -> str:
    """The whole docs/mcp-tools.md text."""
    lines = [
        FRONTMATTER.rstrip("\n"),
        "# MCP Tools Reference",
        "",
        "<!-- Generated by `python -m kenso_git.serve.mcp.docs > docs/mcp-tools.md` from "
        "kenso_git/serve/mcp/server.py. Do not edit. -->",
        "",
        "`kenso-git serve` gives MCP clients the tools below: kenso's four (`search_docs`, "
        "`search_multi`, `get_doc`, `get_related`, same names, parameters and JSON shapes) "
        "plus `read_snippet`, the agent surface's `search`, `regex_search` and `find_related`, "
        "`changed_docs`, `health_check`, `index_state` and the opt-in `reindex`. Every "
        "result is JSON text in kenso's shape and the same data as MCP structured content "
        '(arrays are wrapped as `{"results": [...]}` there, because structured content must '
        "be an object). Expected problems (no index, a refused path, an empty query, an "
        "argument that does not fit the input schema) are tool results with `isError: true` "
        'whose text is `{"error", "hint"?, "rule"?}`, without structured content (clients of '
        "the TypeScript SDK check structured content against the output schema even on "
        "errors). A call naming a tool the server does not offer is one too, with "
        '`"code": "unknown-tool"` ([below](#calls-to-a-tool-the-server-does-not-offer)). '
        "A path that names no document but ends one, or names it in another case or "
        "without `.md`, is answered with the documents it may have meant: `did_you_mean` and "
        "a `hint` (get_doc), or the hint alone (find_related, and a path outside "
        "`agent-scoped-roots`); only documents get_doc would serve are named.",
        "",
        "The server sends these instructions when a client connects:",
        "",
        f"> {INSTRUCTIONS}",
        "",
        "| tool | title | read-only |",
        "|---|---|---|",
    ]
    for tool in tools:
        read_only = "yes" if tool["annotations"].get("readOnlyHint") else "no (writes the index)"
        lines.append(f"| [`{tool['name']}`](#{_anchor(tool)}) | {tool['title']} | {read_only} |")
    lines += [
        "",
        "The examples ran against a three-document index of "
        + ", ".join(f"`{p}`" for p in EXAMPLE_DOCS)
        + f" (outside git, so index_state's `as_of` is null). The root is shown as "
        f"`{PLACEHOLDER_ROOT}`; `synced_at`, `db_bytes` and the times (`modified`, `as_of`) "
        "of search and regex_search, which change from run to run, are fixed placeholders.",
        "",
    ]
    for tool in tools:
        lines += _tool_section(tool, examples.get(tool["name"], []))
    lines += _unknown_section(examples[UNKNOWN_CALL[0]][0])
    return "\n".join(lines).rstrip("\n") + "\n"


def _unknown_section(call: Mapping[str, Any]) -> list[str]:
    request = {"name": UNKNOWN_CALL[0], "arguments": call["args"]}
    return [
        "## Calls to a tool the server does not offer",
        "",
        "A `tools/call` whose `name` is none of the tools above (a typo, `reindex` where it is "
        "not offered, a name that is not a string, or none at all) gets an error result, the "
        'same over stdio and HTTP: `{"error", "hint", "code": "unknown-tool"}`, whose hint '
        "lists the tools `tools/list` gives.",
        "",
        "Call:",
        "",
        *_code("json", _json(request)),
        "",
        "The error result (`isError: true`), as JSON text:",
        "",
        *_code("json", _json(call["result"])),
    ]


def _anchor(tool: Mapping[str, Any]) -> str:
    heading = f"{tool['name']}: {tool['title'].lower()}"
    kept = "".join(ch for ch in heading if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def render_mcp_tools_doc() -> str:
    """Build the example index, collect the tools and their results, render the page."""
    with example_repo() as root:
        tools, examples = asyncio.run(collect(root))
    return render(tools, examples)


if __name__ == "__main__":  # pragma: no cover - the regeneration entry point
    sys.stdout.write(render_mcp_tools_doc())

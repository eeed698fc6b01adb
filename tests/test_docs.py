"""The project's own docs: lint-clean, generated pages current, links and commands intact.

The `pre-commit try-repo <this repo> kenso-lint` smoke test of this repository's hooks lives in
tests/e2e/test_lint_pre_commit.py (slow); it is not repeated here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from kenso_git.serve.mcp.docs import render_mcp_tools_doc

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MAIN_JOB = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/kenso-git ingest docs/ "
    '&& .venv/bin/kenso-git search "git hooks"'
)
TEST_JOB = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' "
    "&& .venv/bin/python -m pytest -q -n auto"
)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_docs_folder_lints_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "lint", "docs/", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    errors = [
        f"{v['file']}:{i['line']}: {i['rule']} {i['message']}"
        for v in report["violations"]
        for i in v["issues"]
        if i["severity"] == "error"
    ]
    assert errors == []
    assert report["summary"]["errors"] == 0
    assert report["score"] >= 90, proc.stdout


def test_mcp_tools_doc_is_current() -> None:
    committed = (DOCS / "mcp-tools.md").read_text(encoding="utf-8")
    fresh = render_mcp_tools_doc()
    assert committed == fresh, "run: python -m kenso_git.serve.mcp.docs > docs/mcp-tools.md"


def test_mcp_tools_doc_has_no_per_run_values() -> None:
    text = (DOCS / "mcp-tools.md").read_text(encoding="utf-8")
    assert "/tmp" not in text and "kenso-mcp-docs-" not in text
    for tool in ("search_docs", "search_multi", "get_doc", "get_related", "reindex"):
        assert f"## {tool}: " in text
        assert f'"name": "{tool}"' in text


def test_every_doc_page_carries_searchable_frontmatter() -> None:
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        assert text.startswith("---\n"), page.name
        meta = yaml.safe_load(text.split("\n---\n", 1)[0][4:])
        assert meta.get("title"), page.name
        assert len(meta.get("tags") or []) >= 3, page.name
        assert "relates_to" in meta, page.name
        assert meta.get("description"), page.name


def test_readme_keeps_its_two_commands_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    assert blocks[:2] == [MAIN_JOB, TEST_JOB]
    assert readme.index("## Two commands") < readme.index(MAIN_JOB)
    assert "<!-- bench -->" not in readme  # the comparison carries measured numbers
    assert "benchmarks/bench_core.py" in readme


def test_relative_links_in_readme_and_docs_resolve() -> None:
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
    broken = []
    for page in pages:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_pre_commit_config_uses_only_local_hooks() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert {repo["repo"] for repo in config["repos"]} == {"local"}
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    assert {
        "ruff-check",
        "ruff-format",
        "mypy",
        "kenso-lint-docs",
        "rules-doc-fresh",
        "mcp-tools-doc-fresh",
    } <= set(hooks)
    assert hooks["kenso-lint-docs"]["entry"] == "kenso-git lint docs/"
    assert "python -m kenso_git.serve.mcp.docs" in hooks["mcp-tools-doc-fresh"]["entry"]
    assert "python -m kenso_git.lint.docs" in hooks["rules-doc-fresh"]["entry"]


def _served_tool_names(tmp_path: Path) -> set[str]:
    """Every tool the MCP server can list (the opt-in `reindex` too), asked of the server
    itself, so the list follows whatever registry declares the tools."""
    import anyio
    from mcp import Client

    from kenso_git.serve.mcp.server import build_server
    from kenso_git.serve.service import Service
    from tests.serve.conftest import make_repo

    root = make_repo(tmp_path / "repo", extra="allow-reindex = true\n")

    async def names() -> set[str]:
        async with Client(build_server(Service(root))) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(names)


def test_readme_and_getting_started_list_every_mcp_tool(tmp_path: Path) -> None:
    """#26: the README named 7 of the 11 tools a newcomer's agent gets."""
    tools = _served_tool_names(tmp_path)
    assert {"search_docs", "search_multi", "reindex"} <= tools  # the server was asked
    for page in (ROOT / "README.md", DOCS / "getting-started.md"):
        text = page.read_text(encoding="utf-8")
        missing = sorted(name for name in tools if f"`{name}`" not in text)
        assert not missing, f"{page.name} does not list {missing}"

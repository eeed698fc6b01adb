"""The `search` tool finds a CJK word as a phrase, in exhaustive mode and in a negation as
its ranked words do (#49). `unicode61` keeps a CJK run (`请确认端口号设置正确`) as one
token, so the plain FTS5 match these used found nothing: a quoted `"端口号"` and exhaustive
`端口号` listed nothing, and `tag:cjk -端口号` still listed the page holding the word.
Through the real MCP SDK client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

ZH = """---
title: 安装指南
tags: [cjk, install]
---
# 安装指南

本文介绍如何安装数据库驱动程序。首先下载安装包，然后运行配置向导。

## 配置

配置文件位于用户目录下。请确认端口号设置正确，canary 版本也一样。
"""
OTHER = """---
title: 升级说明
tags: [cjk]
---
# 升级说明

升级之前请备份数据库文件，然后停止服务。

## 回滚

如果升级失败，恢复备份即可。The canary release is rolled back first.
"""
SPLIT = """---
title: 网络
tags: [cjk]
---
# 网络

## 端口

服务监听的端口号写在配置文件里。

## 发布

The canary release goes out first.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {
        "docs/zh.md": ZH,
        "docs/upgrade.md": OTHER,
        "docs/net.md": SPLIT,
        "docs/en.md": "# Deploy\n\nThe canary release is promoted after its checks pass.\n",
    }
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    return root


async def _search(client: Client, query: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool("search", {"query": query, **args})
    body: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert not result.is_error, body
    return body


def _paths(body: dict[str, Any]) -> list[str]:
    return sorted(hit["path"] for hit in body["results"])


async def test_a_quoted_cjk_phrase_finds_the_page_holding_it(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        quoted = await _search(client, '"端口号"')
        longer = await _search(client, '"确认端口号设置"')
        absent = await _search(client, '"端口号错误"')
    # before: nothing (the page's token is the whole run 请确认端口号设置正确)
    assert _paths(quoted) == ["docs/net.md", "docs/zh.md"]
    assert _paths(longer) == ["docs/zh.md"]
    assert _paths(absent) == []


async def test_exhaustive_mode_lists_the_pages_holding_a_cjk_word(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        word = await _search(client, "端口号", mode="exhaustive")
        short = await _search(client, "备份", mode="exhaustive")  # two characters: no trigram
    assert _paths(word) == ["docs/net.md", "docs/zh.md"]
    assert word["total"] == 2 and not word["total_is_lower_bound"]
    # each hit shows the chunk that holds the word, not the page's first
    assert all("端口号" in hit["snippet"] for hit in word["results"]), word["results"]
    assert _paths(short) == ["docs/upgrade.md"]


async def test_a_cjk_word_and_another_word_must_share_a_chunk(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        both = await _search(client, "端口号 canary", mode="exhaustive")
        phrase = await _search(client, '"端口号" canary', mode="exhaustive")
    # net.md holds both words, in different sections: exhaustive mode lists a page one of
    # whose chunks holds every word
    assert _paths(both) == ["docs/zh.md"]
    assert _paths(phrase) == ["docs/zh.md"]


@pytest.mark.parametrize(
    ("negation", "kept"),
    [
        ("-端口号", ["docs/upgrade.md"]),
        ('-"端口号"', ["docs/upgrade.md"]),
        ("-备份", ["docs/net.md", "docs/zh.md"]),
    ],
)
async def test_a_negated_cjk_word_excludes_the_pages_holding_it(
    repo: Path, negation: str, kept: list[str]
) -> None:
    async with Client(build_server(Service(repo))) as client:
        tagged = await _search(client, f"tag:cjk {negation}")
        ranked = await _search(client, f"canary {negation}")
        held = await _search(client, negation[1:], mode="exhaustive")
    # before: tag:cjk -端口号 listed zh.md and net.md, which hold the word
    assert _paths(tagged) == kept
    assert _paths(ranked) == sorted({"docs/en.md", *kept})  # each page holds canary
    # the same verdict as the word's: what `-word` drops is what `word` lists
    assert sorted(set(_paths(held)) | set(kept)) == ["docs/net.md", "docs/upgrade.md", "docs/zh.md"]
    assert not set(_paths(held)) & set(kept)

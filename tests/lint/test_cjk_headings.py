"""KS005 and KS007 judge a title or H2 of one word as generic. Chinese and Japanese are
written without spaces between words, so every such heading was "one word": each H2 of a
CJK docs set was a warning. There the rules judge by the generic lists only."""

from __future__ import annotations

from tests.lint.helpers import lint_texts

PAGE = """---
title: {title}
tags: [a, b, c]
---
# {title}

A preamble that is long enough to count as the introduction of this page.

## {heading}

The section's text, long enough not to be a tiny section of the page at all.
"""


def _rules(title: str, heading: str) -> list[str]:
    report = lint_texts({"docs/p.md": PAGE.format(title=title, heading=heading)})
    return sorted(v.rule for v in report.violations() if v.rule in ("KS005", "KS007"))


def test_a_chinese_or_japanese_heading_is_not_one_word() -> None:
    assert _rules("安装指南", "配置数据库连接") == []
    assert _rules("インストールガイド", "データベースの設定") == []


def test_chinese_and_japanese_generic_headings_are_found() -> None:
    """`## 概述` ("Overview") passed once every CJK heading was exempt from the one-word
    test: these scripts' generic headings have their own list."""
    assert _rules("概述", "安装") == ["KS005", "KS007"]
    assert _rules("はじめに", "設定") == ["KS005", "KS007"]
    assert _rules("安装指南", "配置数据库连接") == []


def test_one_word_and_generic_headings_are_still_found() -> None:
    assert _rules("Overview", "Setup") == ["KS005", "KS007"]
    # Korean is written with spaces: one word is one word
    assert _rules("설치", "설정") == ["KS005", "KS007"]
    assert _rules("설치 안내서", "데이터베이스 설정") == []

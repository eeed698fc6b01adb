"""Title and heading rules (KS004 KS005 KS007)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.rules._where import key_line
from kenso_git.text.anchors import setext_levels
from kenso_git.text.parse import Document
from kenso_git.text.scripts import unspaced

# Spec appendix A1 and A2 (data lists).
GENERIC_TITLES = frozenset(
    {
        "overview",
        "guide",
        "notes",
        "readme",
        "introduction",
        "summary",
        "documentation",
        "index",
        "main",
        "home",
        "about",
        "info",
        "details",
        "misc",
        "draft",
        "untitled",
        "todo",
        "wip",
    }
)
GENERIC_HEADINGS = frozenset(
    {
        "configuration",
        "setup",
        "details",
        "notes",
        "overview",
        "examples",
        "usage",
        "summary",
        "background",
        "context",
        "description",
        "implementation",
        "results",
        "discussion",
        "conclusion",
        "references",
        "appendix",
        "changelog",
        "faq",
        "troubleshooting",
        "prerequisites",
        "requirements",
        "installation",
        "getting started",
    }
)


# The same lists' words as Chinese (simplified, traditional) and Japanese docs write them:
# with no space between words, a heading there is judged by these lists alone.
GENERIC_UNSPACED = frozenset(
    {
        # overview, introduction, about, notes, details, summary, guide, index
        "概述", "概要", "概览", "簡介", "简介", "介绍", "介紹", "はじめに", "紹介", "关于",
        "關於", "について", "说明", "說明", "説明", "注意", "注意事项", "注意事項", "备注",
        "備註", "備考", "详情", "詳細", "总结", "總結", "まとめ", "指南", "ガイド", "索引",
        "目录", "目錄", "目次", "首页", "首頁",
        # setup, installation, configuration, usage, examples, prerequisites, getting started
        "安装", "安裝", "インストール", "设置", "設定", "配置", "用法", "使用", "使い方",
        "使用方法", "示例", "範例", "例子", "例", "使用例", "前提条件", "先决条件",
        "先決條件", "要求", "要件", "入门", "入門", "快速入门", "快速入門", "はじめる",
        # background, references, appendix, FAQ, troubleshooting, changelog, other
        "背景", "参考", "參考", "参考资料", "參考資料", "参考文献", "附录", "附錄", "付録",
        "常见问题", "常見問題", "よくある質問", "故障排除", "疑难解答", "トラブルシューティング",
        "更新日志", "更新日誌", "変更履歴", "其他", "その他",
    }
)  # fmt: skip


def _one_word(text: str) -> bool:
    """One word by its spaces, as kenso counts; Chinese and Japanese put no space between
    words, so a heading of theirs is judged by the generic lists only."""
    return len(text.split()) == 1 and not unspaced(text)


def _generic(text: str, words: frozenset[str]) -> bool:
    """On a generic list: kenso's (English), or the unspaced scripts' own."""
    key = text.strip()
    return key.lower() in words or (unspaced(key) and key in GENERIC_UNSPACED)


def _title_line(doc: Document) -> int:
    for heading in doc.headings:
        if heading.level == 1:
            return heading.line
    return key_line(doc, "title")


@rule(
    "KS004",
    "missing-title",
    severity=Severity.WARNING,
    summary="A document has a title: an H1 or a frontmatter title.",
    why="The title prefixes every chunk's title and is the strongest ranking signal; without "
    "it chunks are named after the file stem.",
    action="give the document an ATX H1 title (`# Title`; the index does not read a setext "
    "`===` title)",
    deduction=18,
    emit=4,
    impact=18,
)
def missing_title(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    if doc.title is not None:
        return
    if 1 in setext_levels(doc):
        # a setext H1 (`Title` over `=====`) is a title on GitHub, but the index titles a
        # document by its ATX H1 or frontmatter only, as kenso does
        yield Finding(
            1,
            1,
            "the H1 is written setext-style (a line of `===` under it), which the index"
            " does not read as a title: write it as `# Title`",
        )
        return
    yield Finding(1, 1, "no H1 heading and no frontmatter title")


@rule(
    "KS005",
    "generic-title",
    severity=Severity.WARNING,
    summary="The title names the topic in more than one word.",
    why="A one-word or generic title ('Overview', 'Notes') matches every query a little and "
    "none well.",
    action="make the title specific",
    deduction=18,
    emit=5,
    impact=18,
)
def generic_title(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    title = doc.title
    if title is None:
        return
    if _one_word(title) or _generic(title, GENERIC_TITLES):
        yield Finding(_title_line(doc), 1, f'title "{title}" is too generic', subject=title)


@rule(
    "KS007",
    "generic-heading",
    severity=Severity.WARNING,
    summary="H2 headings say what the section is about.",
    why="Each H2 starts a chunk and names it; a bare 'Setup' heading gives ranking nothing to "
    "go on.",
    action="make H2 headings descriptive",
    deduction=6,
    emit=7,
    cap=14,
    impact=6,
)
def generic_heading(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    for heading in doc.headings_at(2):
        text = heading.text
        if _one_word(text) or _generic(text, GENERIC_HEADINGS):
            yield Finding(heading.line, 1, f'generic H2 heading "{text}"', subject=text)


RULES = (missing_title, generic_title, generic_heading)

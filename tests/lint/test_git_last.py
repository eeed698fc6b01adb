"""Lint reads git's moves last (#30): the search for where missing targets went runs while
the documents that do not need it are linted; the report is the same."""

from __future__ import annotations

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.runner import _git_last
from kenso_git.lint.runner import lint_documents
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.repo.moves import Move
from kenso_git.text.parse import parse_document


def _docs() -> list:
    pages = {
        "a.md": "# A\n\nSee [b](b.md).\n",
        "m.md": "# M\n\nSee [old](old.md).\n",
        "z.md": "# Z\n\nSee [a](a.md).\n",
    }
    return [parse_document(path, text) for path, text in pages.items()]


def _facts(docs: list):
    tree = TreeIndex([d.path for d in docs] + ["b.md", "new.md"])
    return build_facts(docs, tree=tree)


def test_the_documents_waiting_for_git_come_last_and_only_while_it_is_awaited() -> None:
    docs = _docs()
    facts = _facts(docs)
    assert facts.links is not None
    assert facts.links.missing(docs) == {"old.md"}
    assert [d.path for d in _git_last(docs, facts)] == ["a.md", "m.md", "z.md"]
    facts.links.await_moves(lambda: None, lambda: None)
    assert [d.path for d in _git_last(docs, facts)] == ["a.md", "z.md", "m.md"]
    facts.links.settle()
    assert [d.path for d in _git_last(docs, facts)] == ["a.md", "m.md", "z.md"]


def test_git_is_awaited_once_when_a_rule_first_reads_its_moves_and_the_report_is_the_same() -> None:
    docs = _docs()
    config = LintConfig()
    plain = _facts(docs)
    assert plain.links is not None
    plain.links.missing(docs)
    plain.links.moves["old.md"] = Move("new.md", "1a2b3c4")
    expected = lint_documents(docs, corpus=plain, config=config)

    awaited = _facts(docs)
    assert awaited.links is not None
    awaited.links.missing(docs)
    calls = []

    def settle() -> None:
        calls.append(1)
        awaited.links.moves["old.md"] = Move("new.md", "1a2b3c4")  # type: ignore[union-attr]

    awaited.links.await_moves(settle, lambda: None)
    order = list(_git_last(docs, awaited))
    assert [d.path for d in order][-1] == "m.md"
    report = lint_documents(docs, corpus=awaited, config=config)
    assert calls == [1]
    assert report == expected
    moved = [v for r in report.files for v in r.violations if v.rule == "KS024"]
    assert [v.path for v in moved] == ["m.md"]
    assert "renamed to new.md in 1a2b3c4" in moved[0].message


def test_the_path_rules_are_not_run_for_a_document_with_no_target_to_report() -> None:
    from dataclasses import replace

    from kenso_git.lint import runner
    from kenso_git.lint.rules import RULES_BY_ID

    docs = _docs()
    facts = _facts(docs)
    assert facts.links is not None
    assert [d.path for d in docs if facts.links.quiet(d)] == ["a.md", "z.md"]
    seen: list[str] = []
    dead_link = RULES_BY_ID["KS022"]

    def counted(doc, ctx):  # type: ignore[no-untyped-def]
        seen.append(doc.path)
        return dead_link.check(doc, ctx)

    config = LintConfig()
    expected = lint_documents(docs, corpus=facts, config=config)
    runner._groups.cache_clear()
    groups = runner.EMISSION_GROUPS
    try:
        runner.EMISSION_GROUPS = tuple(
            tuple(replace(r, check=counted) if r.id == "KS022" else r for r in g) for g in groups
        )
        report = lint_documents(docs, corpus=_facts(docs), config=config)
    finally:
        runner.EMISSION_GROUPS = groups
        runner._groups.cache_clear()
    assert seen == ["m.md"]
    assert report == expected

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kenso_git.search.ranked.query import Stage
from kenso_git.search.ranked.query import build_stages
from kenso_git.search.ranked.synonyms import Synonyms
from kenso_git.search.ranked.synonyms import load_synonyms

K8S = Synonyms.from_groups([["kubernetes", "k8s", "kube"]])


def stages(query: str, synonyms: Synonyms | None = None) -> list[tuple[str, str]]:
    return [(s.expression, s.label) for s in build_stages(query, synonyms)]


def test_single_word_gets_exact_then_prefix_stage() -> None:
    assert stages("deploy") == [('"deploy"', "AND"), ('"deploy"*', "AND")]


def test_short_single_word_has_no_prefix_stage() -> None:
    assert stages("ci") == [('"ci"', "AND")]


def test_all_stop_words_are_kept() -> None:
    assert stages("How do I") == [
        ('"How" AND "do" AND "I"', "AND"),
        ('NEAR("How" "do" "I", 10)', "NEAR"),
        ('"How" OR "do" OR "I"', "OR"),
    ]


def test_stop_word_dropped_and_four_items_get_near() -> None:
    assert stages("a b c d e") == [
        ('"b" AND "c" AND "d" AND "e"', "AND"),
        ('NEAR("b" "c" "d" "e", 10)', "NEAR"),
        ('"b" OR "c" OR "d" OR "e"', "OR"),
    ]


def test_five_items_have_no_near_stage() -> None:
    assert stages("alpha beta gamma delta epsilon") == [
        ('"alpha" AND "beta" AND "gamma" AND "delta" AND "epsilon"', "AND"),
        ('"alpha" OR "beta" OR "gamma" OR "delta" OR "epsilon"', "OR"),
    ]


def test_nothing_left_matches_nothing() -> None:
    assert stages("***") == [('""', "AND")]
    assert stages("   ") == [('""', "AND")]


def test_synonym_group_with_another_word() -> None:
    assert stages("deploy k8s", K8S) == [
        ('"deploy" AND ("kubernetes" OR "k8s" OR "kube")', "AND"),
        ('NEAR("deploy" "kubernetes", 10)', "NEAR"),
        ('"deploy" OR "kubernetes" OR "k8s" OR "kube"', "OR"),
    ]


def test_synonym_group_alone_is_one_or_stage() -> None:
    assert stages("k8s", K8S) == [('"kubernetes" OR "k8s" OR "kube"', "OR")]


def test_multi_word_synonym_entry_consumes_the_run_longest_first() -> None:
    syn = Synonyms.from_groups([["ci", "continuous integration"], ["continuous", "ongoing"]])
    assert build_stages("continuous integration setup", syn)[0] == Stage(
        '("ci" OR "continuous integration") AND "setup"', "AND"
    )
    assert stages("continuous delivery", syn)[0] == (
        '("continuous" OR "ongoing") AND "delivery"',
        "AND",
    )


# --- spec §8.9 fixes (deviations from kenso 2.0.0's Appendix B) ---------------------------


def test_compound_word_does_not_demand_the_fused_token() -> None:
    # kenso: AND "precommit" AND "pre" AND "commit" AND "hooks"; NEAR of those 4
    assert stages("pre-commit hooks") == [
        ('("precommit" OR "pre commit") AND "hooks"', "AND"),
        ('NEAR("pre commit" "hooks", 10)', "NEAR"),
        ('"precommit" OR "pre" OR "commit" OR "hooks"', "OR"),
    ]


def test_camel_case_word_alone_is_fused_or_phrase() -> None:
    # kenso: AND of the 4 terms, NEAR of the 4, OR
    assert stages("orderMatchingEngine") == [
        ('("orderMatchingEngine" OR "order matching engine")', "AND"),
        ('"orderMatchingEngine" OR "order" OR "matching" OR "engine"', "OR"),
    ]


def test_punctuation_only_tokens_are_dropped() -> None:
    assert stages("rollback ? & plan") == [
        ('"rollback" AND "plan"', "AND"),
        ('NEAR("rollback" "plan", 10)', "NEAR"),
        ('"rollback" OR "plan"', "OR"),
    ]


def test_prefix_stage_when_one_term_survives_a_spaced_query() -> None:
    # kenso: no prefix stage because the raw query has a space
    assert stages("the deployment") == [('"deployment"', "AND"), ('"deployment"*', "AND")]
    assert stages("NEAR AND OR") == [('"NEAR"', "AND"), ('"NEAR"*', "AND")]


def test_fts_special_characters_are_deleted_from_terms() -> None:
    assert stages('c++ "quoted"') == [
        ('"c" AND "quoted"', "AND"),
        ('NEAR("c" "quoted", 10)', "NEAR"),
        ('"c" OR "quoted"', "OR"),
    ]


# --- synonyms file loading ---------------------------------------------------------------


def test_synonyms_load_from_the_repository_root_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KENSO_SYNONYMS_PATH", raising=False)
    (tmp_path / ".kenso").mkdir()
    (tmp_path / ".kenso" / "synonyms.yml").write_text(
        "groups:\n  - [Kubernetes, k8s]\n  - [solo]\n"
    )
    monkeypatch.chdir(tmp_path.parent)
    loaded = load_synonyms(tmp_path)
    assert loaded is not None
    assert loaded.groups == (("kubernetes", "k8s"),)


def test_synonyms_json_fallback_and_env_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KENSO_SYNONYMS_PATH", raising=False)
    (tmp_path / ".kenso").mkdir()
    (tmp_path / ".kenso" / "synonyms.json").write_text('{"groups": [["db", "database", 42]]}')
    loaded = load_synonyms(tmp_path)
    assert loaded is not None and loaded.groups == (("db", "database", "42"),)
    other = tmp_path / "syn.json"
    other.write_text('{"groups": [["ui", "frontend"]]}')
    monkeypatch.setenv("KENSO_SYNONYMS_PATH", str(other))
    loaded = load_synonyms(tmp_path)
    assert loaded is not None and loaded.groups == (("ui", "frontend"),)


def test_synonyms_reload_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KENSO_SYNONYMS_PATH", raising=False)
    (tmp_path / ".kenso").mkdir()
    path = tmp_path / ".kenso" / "synonyms.json"
    path.write_text('{"groups": [["a1", "b1"]]}')
    first = load_synonyms(tmp_path)
    assert first is not None and first.groups == (("a1", "b1"),)
    path.write_text('{"groups": [["a1", "b1"], ["c22", "d22"]]}')
    second = load_synonyms(tmp_path)
    assert second is not None and second.groups == (("a1", "b1"), ("c22", "d22"))


def test_bad_synonyms_file_warns_and_gives_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("KENSO_SYNONYMS_PATH", raising=False)
    (tmp_path / ".kenso").mkdir()
    (tmp_path / ".kenso" / "synonyms.yml").write_text("groups: [unclosed\n")
    with caplog.at_level(logging.WARNING):
        assert load_synonyms(tmp_path) is None
    assert "synonyms.yml" in caplog.text
    (tmp_path / ".kenso" / "synonyms.yml").write_text("- just a list\n")
    assert load_synonyms(tmp_path) is None


def test_missing_synonyms_file_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KENSO_SYNONYMS_PATH", raising=False)
    assert load_synonyms(tmp_path) is None
    assert load_synonyms(None) is None


def test_compound_the_tokenizer_splits_anyway_is_just_the_phrase() -> None:
    assert stages("winforms/controls/button")[0] == ('"winforms controls button"', "AND")
    assert stages("my_var setup")[0] == ('"my var" AND "setup"', "AND")


def test_a_word_joined_by_a_special_character_is_also_its_tokens() -> None:
    # kenso deletes `:` and fuses the halves: `16:9` asked the index for "169", a token no
    # page holds (the tokenizer reads `16:9` as 16, 9), so it found nothing
    assert stages("16:9") == [('("169" OR "16 9")', "AND"), ('"169" OR "16" OR "9"', "OR")]
    assert stages("localhost:8080 setup")[0] == (
        '("localhost8080" OR "localhost 8080") AND "setup"',
        "AND",
    )
    assert stages("xref:System.IO")[0] == ('("xrefSystem.IO" OR "xref system io")', "AND")
    assert stages("X-Forwarded-For")[0] == ('("XForwardedFor" OR "x forwarded for")', "AND")
    # no token fused: as before
    assert stages('c++ "quoted"')[0] == ('"c" AND "quoted"', "AND")
    assert stages("pre-commit")[0] == ('("precommit" OR "pre commit")', "AND")

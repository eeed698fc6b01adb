"""Settings: the table drives loading, checking and docs/configuration.md."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from kenso_git.cli.config_docs import render_configuration_doc
from kenso_git.config import CORE_KEYS
from kenso_git.config import LINT_KEYS
from kenso_git.config import SETTINGS
from kenso_git.config import Settings
from kenso_git.config import check_env
from kenso_git.config import load_settings
from kenso_git.errors import ConfigError
from kenso_git.search.ranked import synonyms
from kenso_git.triggers.githooks import runner

ROOT = Path(__file__).resolve().parents[1]


def _load(root: Path, files: dict[str, str], env: dict[str, str] | None = None) -> Settings:
    """Load from a fresh folder under `root` holding just `files`."""
    case = Path(tempfile.mkdtemp(dir=root))
    for name, text in files.items():
        (case / name).write_text(text, encoding="utf-8")
    return load_settings(case, env or {})


def _error(root: Path, files: dict[str, str], env: dict[str, str] | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        _load(root, files, env)
    return info.value


def test_configuration_doc_is_current() -> None:
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == render_configuration_doc(), (
        "run: python -m kenso_git.cli.config_docs > docs/configuration.md"
    )


def test_module_run_prints_the_doc() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git.cli.config_docs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == render_configuration_doc()


def test_settings_defaults_are_the_table_defaults() -> None:
    parsed = {s.attr: s.default for s in SETTINGS if s.attr is not None}
    assert set(parsed) == set(Settings._fields) - {"lint", "source"}
    assert parsed == {attr: Settings._field_defaults[attr] for attr in parsed}


def test_doc_rows_agree_with_the_modules_that_read_them() -> None:
    by_env = {s.env: s for s in SETTINGS if s.env is not None}
    threshold = by_env[runner.THRESHOLD_ENV]
    assert threshold.default is None  # unset: detached from git (the shim decides)
    assert f"({runner.DEFAULT_THRESHOLD} when not a number)" in threshold.doc
    assert by_env[synonyms.ENV_VAR].attr == "synonyms_path"
    documented = {"KENSO_DATABASE_URL", "KENSO_HOOKS", "KENSO_HOOK_VERBOSE", "NO_COLOR"}
    assert documented | {"FORCE_COLOR", "KENSO_LOG_LEVEL"} <= set(by_env)
    doc = render_configuration_doc()
    for var in by_env:
        assert f"| `{var}` |" in doc


def test_known_keys_are_the_core_and_lint_keys() -> None:
    assert sorted(CORE_KEYS) == [
        "agent-scoped-roots",
        "allow-reindex",
        "call-budget",
        "call-cpu-budget",
        "chunk-overlap",
        "chunk-size",
        "cjk",
        "exclude",
        "max-file-size",
        "preview-chars",
        "query-sync",
        "query-watch",
        "revision-cache-bytes",
        "revision-cache-count",
        "revision-copies",
        "search-limit-max",
        "synonyms",
        "vectors",
        "watch",
    ]
    assert sorted(LINT_KEYS) == [
        "baseline",
        "extend-select",
        "fail-under",
        "ignore",
        "per-file-ignores",
        "select",
        "severity",
        "thresholds",
    ]


def test_unknown_key_names_the_table_and_lists_the_known_keys(tmp_path: Path) -> None:
    err = _error(tmp_path, {"pyproject.toml": "[tool.kenso]\nport = 1\n"})
    assert err.message == "unknown key 'port' in [tool.kenso] of pyproject.toml"
    assert err.path == "pyproject.toml"
    assert err.hint == "known keys: " + ", ".join(sorted(CORE_KEYS | LINT_KEYS))
    assert _error(tmp_path, {".kenso.toml": "bogus = 1\n"}).message == (
        "unknown key 'bogus' in .kenso.toml"
    )


def test_bad_integer_in_a_file_or_the_environment(tmp_path: Path) -> None:
    err = _error(tmp_path, {".kenso.toml": "chunk-size = 'abc'\n"})
    assert (err.message, err.hint, err.path) == (
        "chunk-size must be an integer, got 'abc'",
        "set chunk-size to a number",
        ".kenso.toml",
    )
    err = _error(tmp_path, {".kenso.toml": "chunk-size = true\n"})
    assert (err.message, err.hint) == ("chunk-size must be an integer, got True", None)
    err = _error(tmp_path, {}, {"KENSO_CHUNK_SIZE": "x"})
    assert (err.message, err.hint, err.path) == (
        "KENSO_CHUNK_SIZE must be an integer, got 'x'",
        "set KENSO_CHUNK_SIZE to a number",
        "environment",
    )


def test_numbers_under_their_minimum_are_refused(tmp_path: Path) -> None:
    err = _error(tmp_path, {".kenso.toml": "preview-chars = 9\n"})
    assert err.message == "preview-chars must be at least 10, got 9"
    err = _error(tmp_path, {".kenso.toml": "chunk_size = 99\n"})
    assert err.message == "chunk-size must be at least 100, got 99"
    with pytest.raises(ConfigError) as info:  # serve's own check: the only reader of it
        check_env("KENSO_PORT", {"KENSO_PORT": "-1"})
    assert info.value.message == "KENSO_PORT must be at least 0, got -1"
    assert _load(tmp_path, {}, {"KENSO_PORT": "-1"}).port == 8000  # a search is not stopped
    assert _load(tmp_path, {".kenso.toml": "chunk-size = 100\n"}).chunk_size == 100


def test_environment_beats_kenso_toml_beats_pyproject(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": "[tool.kenso]\nchunk-size = 500\nchunk-overlap = 5\npreview-chars = 50\n",
        ".kenso.toml": "chunk-size = 600\nchunk-overlap = 6\n",
    }
    settings = _load(tmp_path, files, {"KENSO_CHUNK_SIZE": " 700 ", "KENSO_MAX_FILE_SIZE": ""})
    assert (settings.chunk_size, settings.chunk_overlap, settings.preview_chars) == (700, 6, 50)
    assert settings.max_file_size == 2_000_000  # a blank variable is no setting
    assert settings.source == ".kenso.toml"


def test_bool_keys_take_only_true_or_false(tmp_path: Path) -> None:
    assert _load(tmp_path, {".kenso.toml": "allow-reindex = true\n"}).allow_reindex is True
    err = _error(tmp_path, {".kenso.toml": "allow-reindex = 1\n"})
    assert err.message == "allow-reindex must be true or false"


def test_list_keys_take_a_string_or_a_list_of_strings(tmp_path: Path) -> None:
    settings = _load(tmp_path, {".kenso.toml": "exclude = 'a/'\nagent-scoped-roots = ['docs']\n"})
    assert (settings.exclude, settings.agent_scoped_roots) == (("a/",), ("docs",))
    err = _error(tmp_path, {".kenso.toml": "exclude = [1]\n"})
    assert err.message == "exclude must be a list of strings, got [1]"


def test_path_keys_take_a_string(tmp_path: Path) -> None:
    assert _load(tmp_path, {".kenso.toml": "synonyms = 's.yml'\n"}).synonyms_path == "s.yml"
    assert _load(tmp_path, {}, {"KENSO_SYNONYMS_PATH": " a.json "}).synonyms_path == "a.json"
    err = _error(tmp_path, {".kenso.toml": "synonyms = 1\n"})
    assert err.message == "synonyms must be a path string"


def test_transport_is_a_choice_folded_to_lower_case(tmp_path: Path) -> None:
    assert _load(tmp_path, {}, {"KENSO_TRANSPORT": " Streamable-HTTP "}).transport == "http"
    assert _load(tmp_path, {}, {"KENSO_TRANSPORT": "STDIO"}).transport == "stdio"
    with pytest.raises(ConfigError) as info:
        check_env("KENSO_TRANSPORT", {"KENSO_TRANSPORT": "SSE"})
    err = info.value
    assert err.message == "KENSO_TRANSPORT must be one of stdio, http, streamable-http, got 'sse'"
    assert err.path == "environment"


def test_string_variables_are_stripped_and_the_log_level_upper_cased(tmp_path: Path) -> None:
    env = {"KENSO_HOST": " 0.0.0.0 ", "KENSO_PORT": "9", "KENSO_LOG_LEVEL": "debug "}
    settings = _load(tmp_path, {}, env)
    assert (settings.host, settings.port, settings.log_level) == ("0.0.0.0", 9, "DEBUG")


def test_lint_keys_pass_on_raw(tmp_path: Path) -> None:
    settings = _load(tmp_path, {".kenso.toml": "select = ['KS001']\nfail_under = 3\n"})
    assert dict(settings.lint) == {"select": ["KS001"], "fail-under": 3}
    assert settings.chunk_size == 4000


def test_no_configuration_gives_the_defaults(tmp_path: Path) -> None:
    assert _load(tmp_path, {}) == Settings(lint={})


def test_pre_commit_keeps_the_configuration_doc_fresh() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    hook = hooks["configuration-doc-fresh"]
    assert "python -m kenso_git.cli.config_docs | diff -u docs/configuration.md -" in hook["entry"]
    assert re.search(hook["files"], "kenso_git/config.py")
    assert re.search(hook["files"], "docs/configuration.md")

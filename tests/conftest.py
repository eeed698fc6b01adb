from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture
def anyio_backend() -> str:
    """The event loop of every `pytest.mark.anyio` test (MCP and LSP clients): asyncio."""
    return "asyncio"


def _fingerprint(folder: Path) -> dict[str, str]:
    db = folder / ".kenso"
    files = [db / "docs.db", db / "docs.db-wal"]  # -shm changes on reads too
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


@pytest.fixture(scope="session", autouse=True)
def project_index_untouched() -> Iterator[None]:
    """No test may write the index of the checkout (or cwd) the suite runs from."""
    folders = {PROJECT, Path.cwd().resolve()}
    before = {f: _fingerprint(f) for f in folders}
    yield
    after = {f: _fingerprint(f) for f in folders}
    assert after == before, "a test wrote the index of the folder the suite runs from"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test gets its own HOME and git global config, and no KENSO_* leaking in."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[init]\n\tdefaultBranch = main\n[user]\n\tname = kenso test\n"
        "\temail = test@example.invalid\n[advice]\n\tdetachedHead = false\n"
        '[protocol "file"]\n\tallow = always\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(key, raising=False)
    import os

    for key in list(os.environ):
        if key.startswith("KENSO_"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the session: its hook venvs are built once."""
    return tmp_path_factory.mktemp("pre-commit-home")

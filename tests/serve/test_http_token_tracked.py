"""A `.kenso/http.token` that git tracks is known to everyone with the repository: it is never
used as the bearer token, and no hint ever says to chmod a token file that is not ours."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.conftest import KENSO_EXE
from tests.serve.http_helpers import running_http_server
from tests.serve.http_helpers import server_env

DOC = "# Doc\n\nSome long enough content for the indexer to take it seriously here.\n"
KNOWN = "attackerknowntoken123456789012345678901234"


def _clone_with_committed_token(tmp_path: Path) -> Path:
    origin = init_repo(tmp_path / "origin", {"docs/a.md": DOC})
    (origin / ".kenso").mkdir()
    (origin / ".kenso" / "http.token").write_text(KNOWN, encoding="utf-8")
    git(origin, "add", "-f", ".kenso/http.token")
    git(origin, "commit", "-q", "-m", "hostile: committed token")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    return tmp_path / "clone"


def _serve_refused(root: Path) -> subprocess.CompletedProcess[str]:
    """An HTTP `serve` expected to refuse to start (port 1 is never bound)."""
    return subprocess.run(
        [str(KENSO_EXE), "serve", "--transport", "http", "--no-watch", "--port", "1"],
        cwd=root,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=30,  # bounds a server that started anyway
        check=False,
    )


def test_a_committed_token_is_refused_with_a_hint_to_delete_it(tmp_path: Path) -> None:
    clone = _clone_with_committed_token(tmp_path)
    token = clone / ".kenso" / "http.token"
    assert git(clone, "ls-files", ".kenso").strip() == ".kenso/http.token"
    proc = _serve_refused(clone)
    assert proc.returncode == 2, proc.stderr
    assert str(token) in proc.stderr and "git tracks" in proc.stderr
    assert "chmod" not in proc.stderr
    assert "rm -q --cached .kenso/http.token" in proc.stderr


def test_a_committed_token_made_private_is_still_refused(tmp_path: Path) -> None:
    clone = _clone_with_committed_token(tmp_path)
    token = clone / ".kenso" / "http.token"
    token.chmod(0o600)  # what the old hint said to do
    proc = _serve_refused(clone)
    assert proc.returncode == 2, proc.stderr
    assert "git tracks" in proc.stderr and "chmod" not in proc.stderr
    assert token.read_text(encoding="utf-8") == KNOWN  # nothing of the user's is changed


def test_a_token_readable_by_others_is_to_be_deleted_not_chmodded(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": DOC})
    token = root / ".kenso" / "http.token"
    token.parent.mkdir(mode=0o700)
    token.write_text("x" * 40, encoding="utf-8")
    token.chmod(0o644)
    proc = _serve_refused(root)
    assert proc.returncode == 2, proc.stderr
    assert "readable by other users" in proc.stderr
    assert "chmod" not in proc.stderr and f"rm {token}" in proc.stderr


def test_after_untracking_and_deleting_a_new_secret_token_is_served(tmp_path: Path) -> None:
    clone = _clone_with_committed_token(tmp_path)
    git(clone, "rm", "-q", "--cached", ".kenso/http.token")
    os.unlink(clone / ".kenso" / "http.token")
    with running_http_server(clone, args=("--no-watch",)) as server:
        assert server.token != KNOWN and len(server.token) >= 32


def test_a_tracked_token_deleted_from_the_work_tree_is_not_written_again(tmp_path: Path) -> None:
    """A new token written where git tracks one would show in `git diff` and be committed
    by the next `git commit -a`."""
    clone = _clone_with_committed_token(tmp_path)
    token = clone / ".kenso" / "http.token"
    token.unlink()
    proc = _serve_refused(clone)
    assert proc.returncode == 2, proc.stderr
    assert "git tracks" in proc.stderr
    assert not token.exists()

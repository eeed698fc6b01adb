"""An index folder this user may not read (another user's `.kenso/`, mode 0700) is named in
one error line with its exit code, never a Python traceback, on every command that opens it."""

from __future__ import annotations

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli
from tests.otheruser import as_other_user
from tests.otheruser import shared_folder

COMMANDS = [
    ("search", "apples"),
    ("search", "apples", "--no-sync", "--json"),
    ("stats",),
    ("state",),
    ("related", "a.md"),
    ("sync",),
    ("ingest",),
    ("hooks", "status"),
]


def test_every_command_names_an_index_folder_it_cannot_read() -> None:
    with shared_folder() as shared:
        root = init_repo(shared / "repo", {"a.md": doc("Alpha doc", "apples and orchards " * 10)})
        assert cli(root, "ingest", "--no-lint").returncode == 0
        run, other = as_other_user(root, shared / "home")
        kenso = root / ".kenso"
        kenso.chmod(0o700 if other else 0o000)  # the owner's alone: another user is kept out
        try:
            for args in COMMANDS:
                proc = run(*args)
                assert proc.returncode == 1, (args, proc.stderr)
                assert "Traceback" not in proc.stderr, (args, proc.stderr)
                first, hint = proc.stderr.splitlines()[:2]
                assert first == (
                    f"kenso-git: error: {kenso}: the index cannot be read by this user "
                    "(permission denied)"
                ), args
                assert hint.startswith("  hint: run kenso-git as its owner"), args
        finally:
            kenso.chmod(0o700)


def test_a_permission_error_no_check_named_is_one_line_not_a_traceback(capsys) -> None:
    from kenso_git.cli.exit import run_and_exit

    def run() -> None:
        raise PermissionError(13, "Permission denied", "/srv/x/.kenso/synonyms.yml")

    with pytest.raises(SystemExit) as stopped:
        run_and_exit(run)
    assert stopped.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        "kenso-git: error: permission denied: /srv/x/.kenso/synonyms.yml",
        "  hint: run kenso-git as a user who may read (and, for a sync, write) it",
    ]

"""`info/exclude` says what each kenso-git line is for: `connect --write` filed its backup
of `.mcp.json` under a second `# kenso-git search index` comment, and every index folder
added a copy of that comment."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

ORIGINAL = '{"mcpServers": {"other": {"command": "x"}}}\n'


def _kenso_lines(root: Path) -> list[str]:
    text = (root / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "kenso-git" in line)
    return lines[first:]


def test_a_connect_backup_is_excluded_under_a_comment_that_names_it(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha"), ".mcp.json": ORIGINAL})
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    proc = run_cli(root, "connect", "claude-code", "--write")
    assert proc.returncode == 0, proc.stderr
    assert _kenso_lines(root) == [
        "# kenso-git search index",
        "/.kenso/",
        "# kenso-git: the originals `kenso-git connect --write` replaced",
        "/.mcp.json.kenso-git.bak",
    ]


def test_a_second_index_folder_joins_the_first_one_s_comment(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha")})
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    proc = run_cli(root, "ingest", "--no-lint", "--db", "other/.kenso/docs.db")
    assert proc.returncode == 0, proc.stderr
    assert _kenso_lines(root) == ["# kenso-git search index", "/.kenso/", "/other/.kenso/"]

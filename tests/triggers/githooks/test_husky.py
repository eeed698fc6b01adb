"""`hooks install` and `hooks status` beside husky: install writes nothing into husky's
folders and prints, file by file, the line to add; status reports the same, in text and in
JSON; the lines as printed make git run kenso-git through husky.

Before, install printed a line for every hook file (post-index-change too, which husky 9
never runs) while status called husky's own post-checkout "another hook is there
(`kenso-git hooks install` chains to it)", and kept saying so once the line was added.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.testing import Result

from kenso_git.cli.main import cli
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

# The hooks husky 9 makes a wrapper for in `.husky/_` (no post-index-change among them)
HUSKY9_HOOKS = (
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-rebase",
    "post-rewrite",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-auto-gc",
)
# A stand-in for husky 9's `.husky/_/h`: each wrapper sources it, and it runs `.husky/NAME`
HUSKY9_H = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
[ "${HUSKY-}" = "0" ] && exit 0
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
"""
HUSKY9_WRAPPER = '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n'
LEGACY_HEAD = '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\n'
USER_CHECKOUT = 'echo husky-post-checkout "$@" >> husky.log\n'
RECORDER = '#!/bin/sh\necho "$*" >> "$KENSO_TEST_CALLS"\n'


def husky9(repo: Path) -> None:
    """husky 9: core.hooksPath `.husky/_` (generated, ignored), the team's scripts in `.husky/`."""
    generated = repo / ".husky" / "_"
    generated.mkdir(parents=True)
    (generated / ".gitignore").write_text("*\n", encoding="utf-8")
    (generated / "h").write_text(HUSKY9_H, encoding="utf-8")
    (generated / "husky.sh").write_text("", encoding="utf-8")
    for name in HUSKY9_HOOKS:
        (generated / name).write_text(HUSKY9_WRAPPER, encoding="utf-8")
        (generated / name).chmod(0o755)
    write(repo, {".husky/pre-commit": "echo lint\n", ".husky/post-checkout": USER_CHECKOUT})
    git(repo, "config", "core.hooksPath", ".husky/_")


def husky_legacy(repo: Path) -> None:
    """husky 5-8: core.hooksPath `.husky`, git runs the executable scripts there."""
    write(
        repo,
        {
            ".husky/_/husky.sh": "#!/usr/bin/env sh\n",
            ".husky/_/.gitignore": "*\n",
            ".husky/pre-commit": LEGACY_HEAD + "echo lint\n",
            ".husky/post-checkout": LEGACY_HEAD + USER_CHECKOUT,
        },
    )
    for name in ("pre-commit", "post-checkout"):
        (repo / ".husky" / name).chmod(0o755)
    git(repo, "config", "core.hooksPath", ".husky")


LAYOUTS = {"husky9": husky9, "husky-legacy": husky_legacy}


@pytest.fixture(params=sorted(LAYOUTS))
def husky(request: pytest.FixtureRequest, repo: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A repository whose hooks husky runs (either layout), committed, as the cwd."""
    write(repo, {"docs/a.md": "# A\n\nThe first page.\n", ".gitignore": "husky.log\n"})
    LAYOUTS[request.param](repo)
    commit_all(repo, "husky")
    monkeypatch.chdir(repo)
    return str(request.param)


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A recording `kenso-git` first on PATH; the file it appends its arguments to."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    (bin_dir / "kenso-git").write_text(RECORDER, encoding="utf-8")
    (bin_dir / "kenso-git").chmod(0o755)
    log = tmp_path / "calls.log"
    log.write_text("", encoding="utf-8")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KENSO_TEST_CALLS", str(log))
    return log


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def to_add(stdout: str) -> dict[str, str]:
    """`FILE: LINE` pairs of install's output: what to add to which hook file."""
    pairs = (line.strip().split(":  ", 1) for line in stdout.splitlines() if ":  " in line)
    return {pair[0]: pair[1] for pair in pairs}


def states() -> dict[str, tuple[str, str]]:
    result = invoke("hooks", "status", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["owner"] == "husky"
    return {name: (h["state"], h["file"]) for name, h in data["hooks"].items()}


def test_install_beside_husky_writes_nothing_and_names_each_file_to_edit(husky: str) -> None:
    repo = Path.cwd()
    before = snapshot(repo / ".husky")
    result = invoke("hooks", "install")
    assert result.exit_code == 0, result.output
    assert snapshot(repo / ".husky") == before
    assert git(repo, "status", "--porcelain").strip() == ""
    added = to_add(result.stdout)
    guarded = 'command -v kenso-git >/dev/null 2>&1 && kenso-git hook {} "$@" || true'
    wanted = ["post-checkout", "post-merge", "post-rewrite"]
    if husky == "husky9":  # husky 9 makes no post-index-change wrapper: git never runs it
        assert "post-index-change" in result.stderr
        assert "husky runs no post-index-change hook" in result.stderr
    else:
        wanted.append("post-index-change")
    assert sorted(added) == sorted(f".husky/{name}" for name in wanted)
    for name in ("post-checkout", "post-merge", "post-rewrite"):
        assert added[f".husky/{name}"] == guarded.format(name)
    assert "kenso-git wrote nothing" in result.stdout


def test_status_beside_husky_reports_what_install_did_in_text_and_json(husky: str) -> None:
    invoke("hooks", "install")
    found = states()
    assert found["post-checkout"] == ("foreign", ".husky/post-checkout")
    assert found["post-merge"] == ("missing", ".husky/post-merge")
    assert found["post-rewrite"] == ("missing", ".husky/post-rewrite")
    index_state = "not-run" if husky == "husky9" else "missing"
    assert found["post-index-change"] == (index_state, ".husky/post-index-change")
    text = invoke("hooks", "status").stdout
    assert "chains to it" not in text  # install chains nothing beside husky
    lines = {line.split()[0]: line for line in text.splitlines() if line.startswith("  post-")}
    assert "without kenso-git" in lines["post-checkout"]
    assert ".husky/post-checkout" in lines["post-checkout"]
    assert "not set up" in lines["post-merge"] and ".husky/post-merge" in lines["post-merge"]
    if husky == "husky9":
        assert "husky runs no post-index-change hook" in lines["post-index-change"]


def test_the_lines_install_prints_make_git_run_kenso_git_through_husky(
    husky: str, calls: Path
) -> None:
    repo = Path.cwd()
    for path, line in to_add(invoke("hooks", "install").stdout).items():
        target = repo / path
        text = target.read_text(encoding="utf-8") if target.exists() else "#!/bin/sh\n"
        target.write_text(text + line + "\n", encoding="utf-8")
    if husky == "husky-legacy":  # git skips a hook file that is not executable
        result = invoke("hooks", "install")
        assert ".husky/post-merge: chmod +x .husky/post-merge" in result.stdout
        assert states()["post-merge"][0] == "not-executable"
        for name in ("post-merge", "post-rewrite", "post-index-change"):
            (repo / ".husky" / name).chmod(0o755)
    commit_all(repo, "run kenso-git from husky's hooks")  # as install says: for everyone
    found = {name: state for name, (state, _file) in states().items()}
    wired = {"post-checkout", "post-merge", "post-rewrite"} | (
        {"post-index-change"} if husky == "husky-legacy" else set()
    )
    assert {name for name, state in found.items() if state == "wired"} == wired
    again = invoke("hooks", "install")
    assert again.exit_code == 0 and again.stdout == ""
    assert "already run from husky's hook files in .husky" in again.stderr
    text = invoke("hooks", "status").stdout
    assert text.count("runs kenso-git (") == len(wired)

    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"docs/b.md": "# B\n\nThe second page.\n"})
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "main")
    git(repo, "reset", "-q", "--hard", "side")
    made = calls.read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith("hook post-checkout ") for line in made) == 2
    assert any(line.startswith("hook post-index-change 1") for line in made) == (
        husky == "husky-legacy"
    )
    assert not any(line.startswith("hook post-index-change 0") for line in made)  # `git add`
    assert (repo / "husky.log").read_text(encoding="utf-8").count("husky-post-checkout") == 2

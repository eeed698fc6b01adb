"""Property: while ignore files are edited under a running server, every tool that takes a
`ref` answers at each call as a server started at that moment with no revision cache would,
and a server started afterwards (reading the revision cache the first one filled) answers
the same: the docs at the revision that today's rules show, and none other. The command
line's `search --ref` (plain and paged) answers the same docs at each step: what ingest
admits, never a vendored `node_modules/` page or a name no agent may give. So does a `re:`
filter, which reads the files as the revision holds them (#49)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.api.search import scope_for
from kenso_git.cli.main import cli
from kenso_git.config import load_settings
from kenso_git.errors import KensoError
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo

# at v1; HEAD keeps docs/ and removes old/ (a folder the work tree then lacks) and the link;
# ingest skips the vendored page and the name with a percent escape, and no door shows them
PAGES: tuple[str, ...] = ("a.md", "docs/p.md", "docs/sub/q.md", "old/r.md", "old/deep/s.md")
PAGES += ("docs/link.md", "node_modules/pkg/m.md", "docs/50%25.md")
LINKS = {"docs/link.md": "old/deep/s.md"}  # a symbolic link of v1 and the page it leads to
FOLDERS = ("", "docs", "docs/sub", "old", "old/deep")
NAMES = (".cursorignore", ".gitignore", ".kensoignore")
PATTERNS = ("p.md", "q.md", "!q.md", "*.md", "sub/", "deep/", "r.md", "/old/", "docs/p.md")

edits = st.lists(
    st.tuples(
        st.sampled_from(FOLDERS),
        st.sampled_from(NAMES),
        st.one_of(st.none(), st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=2)),
    ),
    min_size=1,
    max_size=5,
)


def _body(name: str) -> str:
    return f"# Page {name}\n\nThe marker word and the name {name} make this page long enough.\n"


def _repo(root: Path) -> None:
    init_repo(root, {page: _body(page) for page in PAGES if page not in LINKS})
    for link, target in LINKS.items():
        (root / link).symlink_to(os.path.relpath(root / target, (root / link).parent))
        git(root, "add", link)
    git(root, "commit", "-qm", "links")
    git(root, "tag", "v1")
    git(root, "rm", "-q", "-r", "old", *LINKS)
    git(root, "commit", "-qm", "remove old")
    KnowledgeBase.open(root).ingest()


def _edit(root: Path, step: int, folder: str, name: str, patterns: list[str] | None) -> None:
    path = root / folder / name
    if patterns is None:
        path.unlink(missing_ok=True)
        if (
            folder.startswith("old")
            and (root / "old").exists()
            and not any(p.is_file() for p in (root / "old").rglob("*"))
        ):
            shutil.rmtree(root / "old")  # the folder gone again: nothing to watch there
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # a size no earlier write had: two writes within one tick of the file system's clock
    # keep the file's signature only when their sizes match too
    path.write_text("\n".join(patterns) + "\n#" + "." * step + "\n", encoding="utf-8")


def _expected(root: Path) -> set[str]:
    """The pages of v1 a scope read afresh shows (a link: with the page it leads to)."""
    ws = find_workspace(root)
    scope = scope_for(ws, load_settings(ws.root))
    return {page for page in PAGES if all(map(scope.shows, (page, LINKS.get(page, page))))}


def _answers(service: Service, root: Path) -> dict[str, set[str]]:
    """What each tool taking `ref` gives or serves at v1, as a set of paths."""
    hits, _ = service.search_docs("marker", None, 50, "v1")
    page, _ = service.search("marker", page_size=50, ref="v1")
    # `re:` reads the revision's blobs (#49): the H1 line, which the index leaves out
    grep, _ = service.search('re:"^# Page "', page_size=50, mode="exhaustive", ref="v1")
    served: dict[str, set[str]] = {"get_doc": set(), "read_snippet": set()}
    for path in PAGES:
        for tool, read in (
            ("get_doc", lambda p=path: service.get_doc(p, None, "v1")),
            ("read_snippet", lambda p=path: service.read_snippet(p, "marker", 64, "v1")),
        ):
            try:
                body, _ = read()
            except KensoError:
                continue
            if "error" not in body:
                served[tool].add(path)
    return {
        "search_docs": {h["file_path"] for h in hits},  # type: ignore[index]
        "search": {h["path"] for h in page["results"]},
        "search re:": {h["path"] for h in grep["results"]},
        **served,
        **_cli_answers(root),
    }


def _cli_answers(root: Path) -> dict[str, set[str]]:
    """What `kenso-git search --ref v1` gives from the repository, plain and paged."""
    runner = CliRunner()
    with contextlib.chdir(root):
        plain = runner.invoke(cli, ["search", "marker", "--ref", "v1", "--json", "-n", "50"])
        paged = runner.invoke(
            cli, ["search", "marker", "--ref", "v1", "--format", "json", "--page-size", "50"]
        )
        grep = runner.invoke(
            cli, ["search", 're:"^# Page "', "--ref", "v1", "--format", "json", "--exhaustive"]
        )
    assert plain.exit_code == 0, plain.output
    assert paged.exit_code == 0, paged.output
    assert grep.exit_code == 0, grep.output
    return {
        "cli search --json": {h["file_path"] for h in json.loads(plain.stdout)},
        "cli search --format json": {h["path"] for h in json.loads(paged.stdout)["results"]},
        "cli search re:": {h["path"] for h in json.loads(grep.stdout)["results"]},
    }


def _check(service: Service, root: Path, when: object) -> None:
    want = _expected(root)
    for tool, got in _answers(service, root).items():
        assert got == want, (tool, when)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(steps=edits)
def test_ref_answers_follow_the_ignore_files_edited_mid_session(
    steps: list[tuple[str, str, list[str] | None]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        _repo(root)
        warm = Service(root)  # fills the revision cache, as an earlier server would
        _check(warm, root, "start")
        warm.revisions.close()
        service = Service(root)
        try:
            _check(service, root, "first call")
            for i, (folder, name, patterns) in enumerate(steps):
                _edit(root, i, folder, name, patterns)
                _check(service, root, steps[: i + 1])
            # every rule taken back: what the steps hid shows again at the next call
            for folder, name, _patterns in steps:
                _edit(root, 0, folder, name, None)
            _check(service, root, (steps, "all removed"))
        finally:
            service.revisions.close()
        later = Service(root)
        try:
            _check(later, root, ("a server started afterwards", steps))
        finally:
            later.revisions.close()

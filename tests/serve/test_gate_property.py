"""Property: whatever a tool reveals about a random tree, get_doc would serve it too, and
every tool that takes a path refuses the paths get_doc refuses: a file's path (read_snippet,
find_related), a folder's (the `path` filters: a folder the ignore files exclude is refused
as git's `check-ignore` would call it ignored, and so is one whose every entry git ignores,
`private/**`) and the paths changed_docs names. What a path naming no document may have
meant (get_doc's and find_related's "did you mean") is a doc get_doc serves. Nothing in an
environment folder (`node_modules`, a virtualenv), which ingest skips, is revealed or served
by any door, at a revision either, nor is a link leading into one. The same holds of a
folder that becomes a nested repository or an environment folder after the ingest, while the
server runs (its gate's verdicts already made): from the next call on, and the counts
agree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.errors import KensoError
from kenso_git.kb import KnowledgeBase
from kenso_git.search.pagination import keyset_cursor
from kenso_git.search.pagination import request_check
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo

# node_modules/pkg and venv/lib (a virtualenv: venv/pyvenv.cfg) are environment folders
FOLDERS = ("docs", "docs/sub", "private", "ignored", "node_modules/pkg", "venv/lib")
ENVIRONMENTS = ("node_modules", "venv")
# nested/e.md: a doc of a nested repository, when the tree has one (ingest never enters it)
TARGETS = (
    "docs/a.md",
    "docs/sub/b.md",
    "private/c.md",
    "ignored/d.md",
    ".env",
    ".git/config",
    "nested/e.md",
    "node_modules/pkg/f.md",
    "venv/lib/g.md",
)
PATTERNS = (
    *("ignored/", "*.secret.md", "docs/sub/", "private/c.md", "!private/c.md", ".env"),
    # every entry of the folder, not the folder itself (git: `check-ignore private` is empty)
    *("private/**", "docs/sub/**/*", "ignored/*", "!docs/sub/b.md"),
)
# what a folder of the tree may hold that a pattern names: git's verdict on these, as files
# and as folders, says whether every entry is ignored
PROBES = ("b.md", "c.md", "d.md", "x.md", "x.txt", "x")
ODD_NAMES = ("docs/~n.md", "docs/p%25q.md", "docs/b\\s.md", "docs/t\tab.md")
# folders that may gain a marker after the ingest: `git init` in them, or a virtualenv's or
# a conda environment's marker
MARKABLE = ("docs/sub", "private", "ignored")
MARKERS = {"nested": "nested-repo", "pyvenv.cfg": "environment", "conda-meta": "environment"}

trees = st.fixed_dictionaries(
    {
        "docs": st.lists(st.tuples(st.sampled_from(FOLDERS), st.booleans()), max_size=6),
        "links": st.lists(
            st.tuples(st.sampled_from(FOLDERS[:2]), st.sampled_from(TARGETS)), max_size=5
        ),
        "ignore": st.lists(st.sampled_from(PATTERNS), max_size=4),
        "scoped": st.sampled_from([(), ("docs",), ("docs/sub", "private")]),
        # #27: after the ingest, these links become regular files, with query-sync off, so
        # the index keeps their targets' text under paths that now hold other files
        "flipped": st.lists(st.integers(min_value=0, max_value=4), max_size=3),
        # docs whose paths no argument may name (a leading `~`, `%XX`, a backslash, a tab):
        # an answer that gave one would hand an agent a path get_doc refuses
        "odd": st.lists(st.sampled_from(ODD_NAMES), max_size=2, unique=True),
        # a nested repository at nested/ (a gitlink in the commits), which links may enter
        "nested": st.booleans(),
        # folders whose indexed docs a marker made while serving turns into foreign ones
        "marked": st.lists(
            st.tuples(st.sampled_from(MARKABLE), st.sampled_from(sorted(MARKERS))),
            max_size=2,
            unique_by=lambda mark: mark[0],
        ),
    }
)


# every document links (inline) to every target: find_related and get_related see them all
LINKS = " ".join(f"[{t}](/{t})" for t in TARGETS if t.endswith(".md"))
# ... and one of them in a list entry saying the words of QUESTION: the ranking signal
# `anchors` (#31) hands the entry's evidence to the page it links to, hidden or not
MARKDOWN_TARGETS = [t for t in TARGETS if t.endswith(".md")]
QUESTION = "shared marker"
RE_QUERY = 're:"^# Marker " marker'  # the H1 line, which only a file's text holds
# over the word cap, with a phrase: read by it and its first distinct words (longquery)
LONG_QUESTION = '"shared marker" ' + " ".join(["marker word name long enough"] * 14)


def _body(name: str) -> str:
    return (
        f"# Marker {name}\n\nThe shared marker word and the name {name} make this long enough.\n"
        # a CJK sentence: its inner word goes through the trigram side index's path (#18)
        "\n每篇文档都有共享标记词。\n"
        f"\n{LINKS}\n\n{_entry(name)}"
    )


def _entry(name: str) -> str:
    target = MARKDOWN_TARGETS[sum(map(ord, name)) % len(MARKDOWN_TARGETS)]
    return f"- [{target}](/{target}): the shared marker word\n"


def _build(root: Path, tree: dict[str, object]) -> None:
    files: dict[str, str | bytes] = {
        "docs/a.md": _body("a"),
        "docs/sub/b.md": _body("b"),
        "private/c.md": _body("c"),
        "ignored/d.md": _body("d"),
        "node_modules/pkg/f.md": _body("f"),
        "venv/lib/g.md": _body("g"),
        "venv/pyvenv.cfg": "home = /usr/bin\n",
        ".env": "marker " * 20,
        ".gitignore": "\n".join(tree["ignore"]) + "\n",  # type: ignore[arg-type]
    }
    for i, (folder, secret) in enumerate(tree["docs"]):  # type: ignore[attr-defined]
        files[f"{folder}/n{i}{'.secret' if secret else ''}.md"] = _body(f"n{i}")
    for i, name in enumerate(tree["odd"]):  # type: ignore[arg-type]
        files[name] = _body(f"odd{i}")
    init_repo(root, files, commit=False)
    if tree["nested"]:
        init_repo(root / "nested", {"e.md": _body("e")})
    for i, (folder, target) in enumerate(tree["links"]):  # type: ignore[attr-defined]
        link = root / folder / f"link{i}.md"
        link.symlink_to(os.path.relpath(root / target, link.parent))
    config = "query-sync = false\n" if tree["flipped"] else ""
    if tree["scoped"]:
        roots = ", ".join(f'"{r}"' for r in tree["scoped"])  # type: ignore[attr-defined]
        config += f"agent-scoped-roots = [{roots}]\n"
    (root / ".kenso.toml").write_text(config, encoding="utf-8")


def _mark(root: Path, tree: dict[str, object]) -> None:
    """Make the chosen folders nested repositories or environment folders (no sync)."""
    for folder, marker in tree["marked"]:  # type: ignore[attr-defined]
        (root / folder).mkdir(parents=True, exist_ok=True)
        if marker == "nested":  # with a commit: `git add -A` takes it for a gitlink
            git(root / folder, "init", "-q")
            git(root / folder, "commit", "-q", "--allow-empty", "-m", "nested")
        elif marker == "conda-meta":
            (root / folder / marker).mkdir()
        else:
            (root / folder / marker).write_text("home = /usr/bin\n", encoding="utf-8")


def _foreign(path: str, tree: dict[str, object]) -> str | None:
    """The rule a path in (or naming) an environment folder or a nested repository is
    refused by, as `resolve` checks them (an environment first), or None."""
    rules = {"environment"} if path.split("/")[0] in ENVIRONMENTS else set()
    if tree["nested"] and (path == "nested" or path.startswith("nested/")):
        rules.add("nested-repo")
    for folder, marker in tree["marked"]:  # type: ignore[attr-defined]
        if path == folder or path.startswith(folder + "/"):
            rules.add(MARKERS[marker])
    return "environment" if "environment" in rules else next(iter(rules), None)


def _flip(root: Path, tree: dict[str, object]) -> None:
    """Replace the chosen links by regular files of their own (no sync follows)."""
    links = tree["links"]
    for i in sorted(set(tree["flipped"])):  # type: ignore[call-overload]
        if i < len(links):  # type: ignore[arg-type]
            link = root / links[i][0] / f"link{i}.md"  # type: ignore[index]
            link.unlink()
            link.write_text(_body(f"flip{i}"), encoding="utf-8")


def _flipped(tree: dict[str, object]) -> set[str]:
    """The links `_flip` made regular files (what the index holds for them is older)."""
    links = tree["links"]
    return {
        f"{links[i][0]}/link{i}.md"  # type: ignore[index]
        for i in set(tree["flipped"])  # type: ignore[call-overload]
        if i < len(links)  # type: ignore[arg-type]
    }


def _snippet(service: Service, path: str) -> bool:
    """Whether read_snippet serves `path` from the work tree."""
    try:
        service.read_snippet(path, "", 64)
    except KensoError:
        return False
    return True


def _related(service: Service, path: str) -> set[str] | None:
    """The paths find_related reveals for `path`, or None when it refuses the path."""
    try:
        page, _ = service.find_related(path, 50, None)
    except KensoError:
        return None
    return {item["path"] for item in page["results"]}


def _scoped(service: Service, path: str) -> bool:
    """Whether the scope gate lets get_doc look `path` up (indexed or not)."""
    try:
        service.scope.resolve(path)
    except KensoError:
        return False
    return True


def _force_commit_everything(root: Path) -> str:
    """A branch `forced` whose commit holds every file of the tree, ignored ones included
    (`git add -f` into a scratch index: the work tree, git's index and HEAD untouched)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(root / ".git" / "forced-index")}
    for args in (["read-tree", "HEAD"], ["add", "-f", "-A"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    tree = subprocess.run(
        ["git", "write-tree"], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    commit = git(root, "commit-tree", tree, "-p", "HEAD", "-m", "forced").strip()
    git(root, "branch", "-f", "forced", commit)
    return "forced"


def _revealed_at(service: Service, ref: str) -> set[str]:
    """The paths search_docs and the search tool reveal at revision `ref` (#29)."""
    paths: set[str] = set()
    for query in ("marker", "标记词", QUESTION):
        hits, _ = service.search_docs(query, None, 50, ref)
        paths |= {h["file_path"] for h in hits}  # type: ignore[index]
        page, _ = service.search(query, page_size=50, ref=ref)
        paths |= {h["path"] for h in page["results"]}
    # `re:` reads each shown doc's file as the revision holds it (#49): every doc's H1
    _same_docs_by_re(service, ref)
    for mode in ("ranked", "exhaustive"):
        page, _ = service.search(RE_QUERY, page_size=50, mode=mode, ref=ref)
        paths |= {h["path"] for h in page["results"]}
    return paths


def _same_docs_by_re(service: Service, ref: str | None = None) -> None:
    """Every doc holds the word and begins with the H1 `RE_QUERY` greps: the docs `re:`
    keeps (reading files, #49) are those the word finds (reading the index)."""
    by_word, _ = service.search("marker", page_size=50, mode="exhaustive", ref=ref)
    by_re, _ = service.search(RE_QUERY, page_size=50, mode="exhaustive", ref=ref)
    found = {h["path"] for h in by_re["results"]}
    assert found == {h["path"] for h in by_word["results"]}, ref


def _small_pages(service: Service) -> set[str]:
    """The paths pages of one or two reveal: the gate judges a ranking's matches in rank
    order, only until the page is full (a first look, then the rest of the ranking when it
    refuses some: `store/chunkreads.py`), and the pages of one, in order, are the list a
    page of 50 holds."""
    paths: set[str] = set()
    for limit in (1, 2):
        hits, _ = service.search_docs("marker", None, limit)
        paths |= {h["file_path"] for h in hits}  # type: ignore[index]
        multi, _ = service.search_multi(["marker", "name"], None, limit)
        paths |= {h["file_path"] for h in multi}  # type: ignore[index]
    whole, _ = service.search("marker", page_size=50)
    paged: list[str] = []
    cursor = None
    for _ in range(len(whole["results"]) + 1):
        page, _ = service.search("marker", page_size=1, cursor=cursor)
        paged += [h["path"] for h in page["results"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert paged == [h["path"] for h in whole["results"]]
    return paths | set(paged)


def _read_at(service: Service, path: str, ref: str) -> bool:
    """Whether get_doc or read_snippet at revision `ref` serves `path` (#29)."""
    served = False
    for read in (
        lambda: service.get_doc(path, None, ref),
        lambda: service.read_snippet(path, "", 64, ref),
    ):
        try:
            body, _ = read()
        except KensoError:
            continue
        served = served or "error" not in body
    return served


def _near_asks(path: str) -> list[str]:
    """Paths an agent may write for `path`: in another case, without `.md`, or from one of
    its folders rather than the checkout's root."""
    parts = path.split("/")
    asks = {path.upper(), path.removesuffix(".md")}
    asks |= {"/".join(parts[i:]) for i in range(1, len(parts))}
    return sorted(asks)


def _suggested(service: Service, asked: str) -> list[str]:
    """The paths get_doc's and find_related's answers to `asked` name as what it may have
    meant: `did_you_mean`, and a refusal's "did you mean" hint."""
    named: list[str] = []
    for call in (
        lambda: service.get_doc(asked, None),
        lambda: service.find_related(asked, 50, None),
    ):
        try:
            body, _ = call()
        except KensoError as err:
            hint = err.hint or ""
            if hint.startswith("did you mean "):
                named += hint.removeprefix("did you mean ").split("? ")[0].split(", ")
            continue
        named += body.get("did_you_mean", [])  # type: ignore[union-attr]
    return named


def _served(service: Service, path: str) -> bool:
    try:
        body, _ = service.get_doc(path, None)
    except KensoError:
        return False
    return "error" not in body


def _in_foreign_folder(path: str, tree: dict[str, object]) -> bool:
    """In an environment folder, or a folder marked foreign since the ingest."""
    if path.split("/")[0] in ENVIRONMENTS:
        return True
    return any(path.startswith(folder + "/") for folder, _ in tree["marked"])  # type: ignore[attr-defined]


def _into_environment(tree: dict[str, object], *, committed: bool = False) -> set[str]:
    """The links of the tree that lead into an environment folder, or a marked one (ingest
    skips them): in the work tree, or with `committed` in the commit (where the flipped
    ones are links)."""
    links: list[tuple[str, str]] = tree["links"]  # type: ignore[assignment]
    flipped = set() if committed else _flipped(tree)
    into = {
        f"{folder}/link{i}.md" for i, (folder, t) in enumerate(links) if _in_foreign_folder(t, tree)
    }
    return into - flipped


def _every_entry_ignored(root: Path, folders: list[str]) -> set[str]:
    """The folders whose every probe entry, as a file and as a folder, git ignores: asked
    of a scratch repository with the tree's .gitignore, where the probe folders are made
    (git takes a path that is not there for a file's)."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        git(scratch, "init", "-q")
        shutil.copy(root / ".gitignore", scratch / ".gitignore")
        asked = [f"{folder}/{name}" for folder in folders for name in PROBES]
        ignored = set(_check_ignore(scratch, asked))
        for path in asked:
            (scratch / path).mkdir(parents=True, exist_ok=True)
        ignored &= set(_check_ignore(scratch, asked))
    return {f for f in folders if all(f"{f}/{name}" in ignored for name in PROBES)}


def _check_ignore(root: Path, paths: list[str]) -> list[str]:
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=root,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.split()


def _check_changed(service: Service, root: Path, base: str, tree: dict[str, object]) -> None:
    # changed_docs (#29) names paths at any revision: a regular file it names is one the
    # gate lets get_doc look up; a link or a path gone from the tree is only named
    changed, _ = service.changed_docs(base, None)
    for item in changed["results"]:
        for named in (item["path"], item.get("old_path")):
            if named is None:
                continue
            assert not named.startswith((".git/", ".kenso/")) and named != ".env"
            assert not _in_foreign_folder(named, tree) and named not in _into_environment(tree)
            here = root / named
            if here.is_file() and not here.is_symlink():
                assert _scoped(service, named), (named, tree)
            if here.is_symlink():  # a link is named only where the gate serves it
                assert _served(service, named), (named, tree)
    # ... and so at a revision: what it names there, get_doc at that revision serves
    at_head, _ = service.changed_docs(base, "HEAD")
    for item in at_head["results"]:
        assert _read_at(service, item["path"], "HEAD"), (item, tree)
    # its cursor is a door too: page by page, the same list; a cursor forged to resume
    # after any path, hidden ones included, gives only what the list holds after it
    whole = changed["results"]
    paged: list[object] = []
    cursor = None
    for _ in range(len(whole) + 1):
        page, _ = service.changed_docs(base, None, 1, cursor)
        paged += page["results"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert paged == whole, tree
    check = request_check("changed_docs", changed["since"], None)
    for after in sorted({*TARGETS, *ODD_NAMES, " ", "private/", "zzz"}):
        page, _ = service.changed_docs(base, None, 50, keyset_cursor(after, check))
        assert page["results"] == [i for i in whole if i["path"] > after], (after, tree)


def _check_related_cursor(
    service: Service, path: str, rows: list[dict[str, object]], tree: dict[str, object]
) -> None:
    # get_related's cursor is a door too: a cursor forged to resume after any row, hidden
    # paths included, gives only what the whole list holds after it
    check = request_check("get_related", path, 3, None)
    afters = sorted({*TARGETS, *ODD_NAMES, " ", "private/", "zzz"})
    for key in [(1, after, "") for after in afters] + [(2, " ", ""), (3, " ", "")]:
        page, _ = service.get_related(path, 3, None, keyset_cursor(json.dumps(key), check))
        rest = [r for r in rows if (r["depth"], r["related_path"], r["relation_type"]) > key]
        assert page["results"] == rest, (path, key, tree)  # type: ignore[call-overload]


def _filter_refusal(service: Service, folder: str, ref: str | None = None) -> str | None:
    """The rule search and regex_search refuse the `path` filter `folder` by (the same for
    both), or None when both take it; what they then show, get_doc serves."""
    rules: list[str | None] = []
    shown: set[str] = set()
    for regex in (False, True) if ref is None else (False,):
        try:
            if regex:
                page, _ = service.regex_search("marker", page_size=50, path=folder)
            else:
                page, _ = service.search("marker", page_size=50, path=folder, ref=ref)
        except KensoError as err:
            rules.append(getattr(err, "rule", None) or "error")
            continue
        rules.append(None)
        shown |= {h["path"] for h in page["results"]}
    assert len(set(rules)) == 1, (folder, rules)
    for path in shown:
        assert _read_at(service, path, ref) if ref else _served(service, path), (folder, path)
    return rules[0]


def _check_folders(service: Service, root: Path, tree: dict[str, object]) -> None:
    # the `path` filters name folders: one the ignore files exclude is refused as `ignored`
    # (as git's check-ignore calls it), and so is one whose every entry git ignores; one
    # outside the scope, a nested repository or an environment folder too; any other is
    # taken, and shows only what get_doc serves
    roots = tree["scoped"] or ("",)
    folders = [*FOLDERS, "nested", *ENVIRONMENTS]
    wholly = _every_entry_ignored(root, folders)
    for folder in folders:
        ignored = bool(git(root, "check-ignore", folder, check=False).strip()) or folder in wholly
        in_scope = any(not r or folder == r or folder.startswith(r + "/") for r in roots)  # type: ignore[attr-defined]
        foreign = _foreign(folder, tree)  # a nested repository, an environment folder
        # at a revision too: judged by the folder's markers in the work tree
        for ref in (None, "HEAD"):
            rule = _filter_refusal(service, folder, ref)
            refused = ignored or not in_scope or foreign is not None
            assert (rule is not None) == refused, (folder, ref, rule, tree)
            if in_scope and ignored:
                assert rule == "ignored", (folder, ref, rule, tree)
            if in_scope and foreign and not ignored:
                assert rule == foreign, (folder, ref, rule, tree)


def _check_refs(service: Service, root: Path, tree: dict[str, object]) -> None:
    # `ref` (#29) is a door too: at a revision that holds every file, ignored and
    # out-of-scope ones included, only paths today's scope shows come out, and a path
    # that is a regular file here is one the gate lets get_doc look up; nothing in an
    # environment folder comes out, nor a link into one (HEAD holds the flipped links)
    for ref in ("HEAD", _force_commit_everything(root)):
        hidden = _into_environment(tree, committed=ref == "HEAD")
        for named in _revealed_at(service, ref):
            assert service.scope.shows(named), (ref, named, tree)
            assert not named.startswith((".git/", ".kenso/")) and named != ".env"
            assert not _in_foreign_folder(named, tree) and named not in hidden, (ref, named, tree)
            here = root / named
            if here.is_file() and not here.is_symlink():
                assert _scoped(service, named), (ref, named, tree)
        # get_doc and read_snippet at the revision: every path it holds, and the targets
        at_ref = git(root, "ls-tree", "-r", "--name-only", ref).split("\n")
        for named in sorted({*TARGETS, *filter(None, at_ref)}):
            if _read_at(service, named, ref):
                assert service.scope.shows(named), (ref, named, tree)
                assert not _in_foreign_folder(named, tree) and named not in hidden, (ref, tree)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(tree=trees)
def test_every_revealed_path_is_one_get_doc_serves(tree: dict[str, object]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        _build(root, tree)
        git(root, "commit", "-q", "--allow-empty", "-m", "base")
        base = git(root, "rev-parse", "HEAD").strip()
        git(root, "add", "-A")  # what .gitignore hides stays out; .cursorignore's goes in
        git(root, "commit", "-q", "-m", "docs")
        KnowledgeBase.open(root).ingest()
        _flip(root, tree)
        service = Service(root)
        for query in ("marker", QUESTION):  # the gate decides every indexed path once
            service.search_docs(query, None, 50)
            service.regex_search(query.split()[0], page_size=50)
        _revealed_at(service, "HEAD")  # ... and a copy of HEAD's docs is kept for the next
        _mark(root, tree)
        _check_changed(service, root, base, tree)
        _check_refs(service, root, tree)
        _check_folders(service, root, tree)
        revealed: set[str] = set()
        hits, _ = service.search_docs("marker", None, 50)
        revealed |= {h["file_path"] for h in hits}  # type: ignore[index]
        cjk_hits, _ = service.search_docs("标记词", None, 50)
        cjk_paths = {h["file_path"] for h in cjk_hits}  # type: ignore[index]
        assert cjk_paths == {h["file_path"] for h in hits}  # type: ignore[index]  # same docs
        revealed |= cjk_paths
        multi, _ = service.search_multi(["marker", "name"], None, 50)
        revealed |= {h["file_path"] for h in multi}  # type: ignore[index]
        page, _ = service.search("marker", page_size=50)
        revealed |= {h["path"] for h in page["results"]}
        hits, _ = service.search_docs(QUESTION, None, 50)
        revealed |= {h["file_path"] for h in hits}  # type: ignore[index]
        page, _ = service.search(QUESTION, page_size=50)
        revealed |= {h["path"] for h in page["results"]}
        for mode in ("ranked", "exhaustive"):
            page, _ = service.search(LONG_QUESTION, page_size=50, mode=mode)
            revealed |= {h["path"] for h in page["results"]}
            assert {h["path"] for h in page["results"]} <= {h["file_path"] for h in hits}
        page, _ = service.search("标记词", page_size=50)
        revealed |= {h["path"] for h in page["results"]}
        page, _ = service.regex_search("marker", page_size=50)
        revealed |= {h["path"] for h in page["results"]}
        revealed |= _small_pages(service)
        _same_docs_by_re(service)
        for mode in ("ranked", "exhaustive"):  # `re:` reads the gated docs' files (#49)
            page, _ = service.search(RE_QUERY, page_size=50, mode=mode)
            revealed |= {h["path"] for h in page["results"]}
        for path in sorted(revealed):
            rows, _ = service.get_related(path, 3, None)
            revealed |= {r["related_path"] for r in rows}  # type: ignore[index]
            _check_related_cursor(service, path, rows, tree)  # type: ignore[arg-type]
            revealed |= _related(service, path) or set()
        for path in sorted(revealed):
            assert _served(service, path), (path, tree)
            assert not path.startswith((".git/", ".kenso/")) and path != ".env"
            assert not _in_foreign_folder(path, tree) and path not in _into_environment(tree), tree
        candidates = {*TARGETS, *(str(p.relative_to(root)) for p in root.rglob("*.md"))}
        flipped = _flipped(tree)
        for path in sorted(candidates):
            if not _served(service, path):  # refused or not indexed: find_related says so
                assert _related(service, path) is None, (path, tree)
                # ... and read_snippet, unless the file there is one the index has not read
                assert path in flipped or not _snippet(service, path), (path, tree)
        # a path that names no doc is answered with the docs it may have meant: only
        # those get_doc serves (#31, fourteenth round)
        for path in sorted(candidates):
            for asked in _near_asks(path):
                for near in _suggested(service, asked):
                    assert _served(service, near), (asked, near, tree)
        # #27: the counts are those of the documents get_doc serves, and nothing else
        # (of the index the server answers from: a scoped one when the scope hides docs)
        indexed = service.kb().read(
            lambda conn: [r[0] for r in conn.execute("SELECT DISTINCT file_path FROM chunks")]
        )
        state, _ = service.state()
        health, _ = service.health()
        served = sum(1 for path in indexed if _served(service, path))
        assert state["documents"] == health["documents"] == served, tree
        _check_query_watch(service, root, [state["query_watch"], health["query_watch"]], tree)


def _check_query_watch(
    service: Service, root: Path, seen: list[dict[str, object]], tree: dict[str, object]
) -> None:
    # `query_watch` (index/quiet.py) names no path, and is null when the scope hides part
    # of the tree: the whole tree's watch (its state, its folder count) tells of hidden ones
    for watch in seen:
        if service.scoped:
            assert watch is None, (watch, tree)
            continue
        assert watch["state"] in {"armed", "arming", "off", "aside"}, (watch, tree)
        assert isinstance(watch["folders"], int), (watch, tree)
        reason = watch["reason"]
        assert reason is None or isinstance(reason, str), (watch, tree)
        named = {*TARGETS, *ODD_NAMES, *FOLDERS, str(root)}
        assert not [n for n in named if reason and n in reason], (watch, tree)


def test_a_page_filled_past_the_gates_first_look_shows_only_what_get_doc_serves(
    tmp_path: Path,
) -> None:
    # the best matches all lie in a folder that becomes a nested repository while the
    # server runs: the gate refuses every row of its first look at the ranking (twice the
    # page's chunks), and the page is filled from the rest, still judged row by row
    hot = "# Marker hot\n\n" + "marker " * 30 + "\n"
    cold = "# Cold {}\n\nA page that says marker once, among many other words here.\n"
    files: dict[str, str | bytes] = {f"docs/hot/h{i:02d}.md": hot for i in range(30)}
    files |= {f"docs/cold/c{i}.md": cold.format(i) for i in range(4)}
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    service = Service(root)
    first, _ = service.search_docs("marker", None, 3)
    assert {h["file_path"] for h in first} <= set(files)  # type: ignore[index]
    git(root / "docs" / "hot", "init", "-q")
    git(root / "docs" / "hot", "commit", "-q", "--allow-empty", "-m", "nested")
    shown: list[set[str]] = []
    for limit in (1, 2, 3):
        hits, _ = service.search_docs("marker", None, limit)
        shown.append({h["file_path"] for h in hits})  # type: ignore[index]
        assert len(hits) == limit, limit
        multi, _ = service.search_multi(["marker"], None, limit)
        shown.append({h["file_path"] for h in multi})  # type: ignore[index]
    shown.append(_small_pages(service))
    for path in set().union(*shown):
        assert path.startswith("docs/cold/") and _served(service, path), path
    assert shown[-1] == {f"docs/cold/c{i}.md" for i in range(4)}

"""repo/history.py and merges: a doc's commits and last commit are those `git log -- PATH`
shows, with git's default history simplification. A merge that leaves the doc unlike every
parent (a conflict resolved, an evil merge) counts and can be the last commit; a merge the
same as a parent there does not, and a branch whose change a merge left out is not counted.
Checked by name on small histories, and against `git log` itself on seeded random ones."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from kenso_git.repo import history
from kenso_git.repo.workspace import find_workspace


class Dated:
    """git in `root`, each command a second later than the last (an unambiguous date order)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = 1_700_000_000
        self.serial = 0
        self.run("init", "-q", "-b", "main")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        self.clock += 1
        env = dict(os.environ, GIT_AUTHOR_DATE=f"{self.clock} +0000")
        env["GIT_COMMITTER_DATE"] = f"{self.clock} +0000"
        proc = subprocess.run(
            ["git", *args], cwd=self.root, capture_output=True, text=True, check=False, env=env
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def write(self, path: str, text: str | None = None) -> None:
        """Write `path` (a new text of its own unless `text`)."""
        self.serial += 1
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text or f"# {path}\n\nversion {self.serial} {'x' * self.serial}\n")

    def commit(self, message: str, *paths: str) -> str:
        for path in paths:
            self.write(path)
        self.run("add", "-A")
        self.run("commit", "-q", "--allow-empty", "-m", message)
        return self.out("rev-parse", "HEAD")


def _changes(g: Dated, since: str, until: str = "HEAD") -> dict[str, history.Change]:
    ws = find_workspace(g.root)
    old = history.resolve_revision(ws, since)
    new = history.resolve_revision(ws, until)
    return {c.path: c for c in history.changes(ws, old, new, is_doc=lambda _p: True)}


def _git_log(g: Dated, revs: str, path: str) -> list[str]:
    return g.out("log", "--format=%H", revs, "--", path).split()


def _last(g: Dated) -> dict[str, str]:
    ws = find_workspace(g.root)
    return {p: c.id for p, c in history.last_commits(ws, history.paths_at(ws, "HEAD")).items()}


def _conflict_resolved_in_the_merge(g: Dated) -> dict[str, str]:
    """The tester's r2: both branches edit docs/a.md, the merge resolves it with new text."""
    ids = {"base": g.commit("base", "docs/a.md", "docs/b.md")}
    g.run("checkout", "-q", "-b", "side")
    ids["side"] = g.commit("side", "docs/a.md")
    g.run("checkout", "-q", "main")
    ids["main"] = g.commit("main", "docs/a.md")
    assert g.run("merge", "-q", "side", "-m", "merge", check=False).returncode != 0
    ids["merge"] = g.commit("merge side (resolved)", "docs/a.md")
    return ids


def test_a_merge_that_resolved_a_conflict_counts_and_is_the_last_commit(tmp_path: Path) -> None:
    g = Dated(tmp_path)
    ids = _conflict_resolved_in_the_merge(g)

    one = _changes(g, "HEAD~1")["docs/a.md"]
    two = _changes(g, "HEAD~2")["docs/a.md"]

    assert (one.commits, one.last_commit and one.last_commit.id) == (2, ids["merge"])
    assert (two.commits, two.last_commit and two.last_commit.id) == (3, ids["merge"])
    assert one.last_commit is not None and one.last_commit.subject == "merge side (resolved)"
    assert len(_git_log(g, "HEAD~1..HEAD", "docs/a.md")) == 2
    assert len(_git_log(g, "HEAD~2..HEAD", "docs/a.md")) == 3
    assert _last(g) == {"docs/a.md": ids["merge"], "docs/b.md": ids["base"]}


def test_a_merge_that_kept_one_side_drops_the_other_sides_commits(tmp_path: Path) -> None:
    """`git merge -s ours`: the side's edit is in no doc of HEAD, so it is no commit of the
    doc's, though it is newer than main's."""
    g = Dated(tmp_path)
    base = g.commit("base", "docs/a.md")
    main = g.commit("main edit", "docs/a.md")
    g.run("checkout", "-q", "-b", "side", base)
    g.commit("side edit, newer", "docs/a.md")
    g.run("checkout", "-q", "main")
    g.run("merge", "-q", "-s", "ours", "side", "-m", "merge, keeping main's text")

    found = _changes(g, base)["docs/a.md"]

    assert (found.commits, found.last_commit and found.last_commit.id) == (1, main)
    assert _git_log(g, f"{base}..HEAD", "docs/a.md") == [main]
    assert _last(g) == {"docs/a.md": main}


def test_a_clean_merge_is_no_commit_of_the_doc_its_branch_changed(tmp_path: Path) -> None:
    g = Dated(tmp_path)
    base = g.commit("base", "docs/a.md", "docs/b.md")
    g.run("checkout", "-q", "-b", "side")
    side = g.commit("side edits a", "docs/a.md")
    g.run("checkout", "-q", "main")
    main = g.commit("main edits b, newer", "docs/b.md")
    g.run("merge", "-q", "--no-edit", "side")

    found = _changes(g, base)

    assert (found["docs/a.md"].commits, found["docs/a.md"].last_commit.id) == (1, side)  # type: ignore[union-attr]
    assert (found["docs/b.md"].commits, found["docs/b.md"].last_commit.id) == (1, main)  # type: ignore[union-attr]
    assert set(_changes(g, main)) == {"docs/a.md"}
    assert _changes(g, main)["docs/a.md"].commits == 1
    assert _last(g) == {"docs/a.md": side, "docs/b.md": main}


def _octopus(g: Dated, evil: bool) -> dict[str, str]:
    ids = {"base": g.commit("base", "docs/a.md", "docs/b.md", "docs/c.md")}
    for name, doc in (("one", "docs/a.md"), ("two", "docs/b.md")):
        g.run("checkout", "-q", "-b", name, ids["base"])
        ids[name] = g.commit(f"{name} edits {doc}", doc)
    g.run("checkout", "-q", "main")
    ids["main"] = g.commit("main edits c", "docs/c.md")
    g.run("merge", "-q", "--no-commit", "one", "two")
    ids["merge"] = g.commit("octopus", *(["docs/b.md"] if evil else []))
    assert g.out("rev-list", "--parents", "-n1", "HEAD").count(" ") == 3
    return ids


@pytest.mark.parametrize("evil", [False, True])
def test_an_octopus_merge_counts_where_it_differs_from_every_parent(
    tmp_path: Path, evil: bool
) -> None:
    g = Dated(tmp_path)
    ids = _octopus(g, evil)

    found = _changes(g, ids["base"])

    b = ids["merge"] if evil else ids["two"]
    assert {p: (c.commits, c.last_commit and c.last_commit.id) for p, c in found.items()} == {
        "docs/a.md": (1, ids["one"]),
        "docs/b.md": (2 if evil else 1, b),
        "docs/c.md": (1, ids["main"]),
    }
    for path, change in found.items():
        assert len(_git_log(g, f"{ids['base']}..HEAD", path)) == change.commits
    assert _last(g) == {"docs/a.md": ids["one"], "docs/b.md": b, "docs/c.md": ids["main"]}


DOCS = [f"docs/d{n}.md" for n in range(6)]


def _random_history(g: Dated, rng: random.Random) -> list[str]:
    """Branches, edits, reverts of a doc to an older text, deletes and merges of every kind:
    clean, conflicted (resolved with new text or one side's), `-s ours`, evil, octopus.
    Returns every commit made."""
    g.commit("base", *DOCS)
    branches = ["main"]
    made: list[str] = []
    texts: dict[str, list[str]] = {}
    for step in range(45):
        roll = rng.random()
        if roll < 0.12:
            name = f"b{step}"
            g.run("checkout", "-q", "-b", name, rng.choice(made) if made else "main")
            branches.append(name)
        elif roll < 0.22:
            g.run("checkout", "-q", rng.choice(branches))
        elif roll < 0.45 and len(branches) > 1:
            _random_merge(g, rng, branches)
        else:
            doc = rng.choice(DOCS)
            if rng.random() < 0.2 and texts.get(doc):
                g.write(doc, rng.choice(texts[doc]))  # back to a text it had
            elif rng.random() < 0.1 and (g.root / doc).exists():
                (g.root / doc).unlink()
            else:
                g.write(doc)
            if (g.root / doc).exists():
                texts.setdefault(doc, []).append((g.root / doc).read_text())
            g.run("add", "-A")
            g.run("commit", "-q", "--allow-empty", "-m", f"step {step}")
        made.append(g.out("rev-parse", "HEAD"))
    return list(dict.fromkeys(made))


def _random_merge(g: Dated, rng: random.Random, branches: list[str]) -> None:
    here = g.out("rev-parse", "--abbrev-ref", "HEAD")
    others = [b for b in branches if b != here]
    picked = rng.sample(others, min(len(others), 2 if rng.random() < 0.25 else 1))
    how = ["-s", "ours"] if len(picked) == 1 and rng.random() < 0.15 else []
    done = g.run("merge", "-q", "--no-ff", "--no-commit", *how, *picked, check=False)
    if done.returncode != 0 and len(picked) > 1:  # an octopus with a conflict stops
        g.run("reset", "-q", "--hard", "HEAD")
        return
    for path in g.out("diff", "--name-only", "--diff-filter=U").split():
        side = rng.choice(["--ours", "--theirs", None])
        if side is None or g.run("checkout", side, "--", path, check=False).returncode:
            g.write(path)
    if rng.random() < 0.2:
        g.write(rng.choice(DOCS))  # an evil merge
    g.run("add", "-A")
    g.run("commit", "-q", "--allow-empty", "-m", f"merge {' '.join(picked)}")


def _git_walk_order_decides(g: Dated, since: str, until: str) -> bool:
    """Whether a merge of `since..until` has a parent outside the range other than `since`.
    git then simplifies to that parent, or not, by whether its walk has yet marked it as
    outside (revision.c, `relevant_commit`): a matter of commit dates. history never follows
    it (as git does once it knows)."""
    lines = [
        line.split() for line in g.out("rev-list", "--parents", f"{since}..{until}").splitlines()
    ]
    inside = {ids[0] for ids in lines}
    return any(p not in inside and p != since for ids in lines if len(ids) > 2 for p in ids[1:])


@pytest.mark.parametrize("seed", range(8))
def test_commits_and_last_commit_match_git_log_on_random_merge_histories(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    g = Dated(tmp_path)
    made = _random_history(g, rng)
    heads = [g.out("rev-parse", b) for b in g.out("branch", "--format=%(refname:short)").split()]
    compared = 0
    for since in rng.sample(made, min(8, len(made))):
        for until in heads:
            if since == until or _git_walk_order_decides(g, since, until):
                continue
            for path, change in _changes(g, since, until).items():
                want = _git_log(g, f"{since}..{until}", path)
                got = change.last_commit.id if change.last_commit else None
                assert (change.commits, got) == (len(want), want[0] if want else None), (
                    f"{path} {since[:7]}..{until[:7]}"
                )
                compared += 1
    assert compared >= 5


def test_the_users_log_settings_change_no_answer(tmp_path: Path) -> None:
    """The walk reads git's raw records: settings that would decorate, colour, shorten or
    reshape them are turned off (a root commit's docs are still its changes)."""
    g = Dated(tmp_path)
    ids = _conflict_resolved_in_the_merge(g)
    before = _changes(g, "HEAD~2")
    for key, value in (
        ("log.decorate", "full"),
        ("color.ui", "always"),
        ("log.abbrevCommit", "true"),
        ("log.showRoot", "false"),
        ("log.showSignature", "true"),
        ("log.diffMerges", "first-parent"),
        ("diff.renames", "false"),
        ("format.pretty", "oneline"),
    ):
        g.run("config", key, value)

    assert _changes(g, "HEAD~2") == before
    assert before["docs/a.md"].commits == 3  # side, main and the merge
    assert _last(g) == {"docs/a.md": ids["merge"], "docs/b.md": ids["base"]}

"""A page git moved keeps relates_to entries written for its old folder: each that names a
document from there (or a path git moved too) is a KS024 re-based as the page's links are,
with no KS002, and `lint --fix` rewrites the entry."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = (
    "---\ntitle: {t}\ntags: [a, b, c]\nrelates_to:\n{rel}---\n# {t}\n\n"
    "Words that make a page of it here.\n"
)
ALPHA = PAGE.format(t="Alpha", rel="  - path: ./b.md\n  - path: ../ref/c.md\n")
BETA = PAGE.format(t="Beta", rel="  - ./a.md\n  - ./gone.md\n")
GAMMA = PAGE.format(t="Gamma", rel="  - path: ../guide/a.md\n")
SELECT = ("--select", "KS002,KS022,KS024")


def test_a_moved_pages_relates_to_entries_are_rebased_and_fixed(repo: Path) -> None:
    write(repo, {"docs/guide/a.md": ALPHA, "docs/guide/b.md": BETA, "docs/ref/c.md": GAMMA})
    commit_all(repo, "pages")
    (repo / "docs" / "x" / "y").mkdir(parents=True)
    (repo / "docs" / "z").mkdir()
    git(repo, "mv", "docs/guide/a.md", "docs/x/y/a.md")
    git(repo, "mv", "docs/guide/b.md", "docs/z/b.md")
    commit_all(repo, "move a and b")
    short = git(repo, "log", "-1", "--format=%h").strip()
    a_moved = f"docs/guide/a.md was moved to docs/x/y/a.md in {short}"
    b_moved = f"docs/guide/b.md was moved to docs/z/b.md in {short}"
    old = "the entry was written for its old folder: lint --fix rewrites"
    shown = run(repo, "--format", "concise", *SELECT, "docs/x", "docs/z")
    assert shown.returncode == 1
    # before: KS002 relates_to target "./b.md" does not exist (and "../ref/c.md",
    # and b's "./a.md"), none of them fixed by --fix
    assert shown.stdout.splitlines() == [
        f"docs/x/y/a.md:5:11: KS024 relates_to: {a_moved}, and docs/guide/b.md was renamed "
        f'to docs/z/b.md in {short}; {old} "./b.md" to "../../z/b.md" (moved-target)',
        f'docs/x/y/a.md:6:11: KS024 relates_to: {a_moved}; {old} "../ref/c.md" to '
        '"../../ref/c.md" (moved-target)',
        'docs/z/b.md:6:5: KS002 relates_to target "./gone.md" does not exist (broken-link)',
        f"docs/z/b.md:5:5: KS024 relates_to: {b_moved}, and docs/guide/a.md was renamed to "
        f'docs/x/y/a.md in {short}; {old} "./a.md" to "../x/y/a.md" (moved-target)',
    ]
    fixed = run(repo, "--fix", *SELECT, "docs")
    assert fixed.returncode == 1, fixed.stderr  # the entry naming no page is left
    assert "fixed 4 findings in 3 files" in fixed.stderr
    assert (repo / "docs" / "x" / "y" / "a.md").read_text(encoding="utf-8") == ALPHA.replace(
        "./b.md", "../../z/b.md"
    ).replace("../ref/c.md", "../../ref/c.md")
    assert "  - ../x/y/a.md\n  - ./gone.md\n" in (repo / "docs" / "z" / "b.md").read_text(
        encoding="utf-8"
    )
    assert run(repo, "--format", "concise", *SELECT, "docs").stdout.splitlines() == [
        'docs/z/b.md:6:5: KS002 relates_to target "./gone.md" does not exist (broken-link)'
    ]


def test_a_page_git_never_moved_keeps_its_dead_relates_to_entry_as_ks002(repo: Path) -> None:
    write(repo, {"docs/z/b.md": BETA, "docs/guide/a.md": ALPHA.replace("./b.md", "../z/b.md")})
    commit_all(repo, "pages")
    shown = run(repo, "--format", "concise", *SELECT, "docs/z")
    assert [line.split(": ")[1].split(" ")[0] for line in shown.stdout.splitlines()] == [
        "KS002",
        "KS002",
    ]


def test_fixed_relates_to_entries_stay_valid_yaml_whatever_the_new_name(repo: Path) -> None:
    # the new path was written as it came: `path: Issue #42.md` (a comment), `'it's.md'`
    # and `@team.md` made the frontmatter invalid (KS020) or read as another path
    import yaml

    names = {"a": "Issue #42.md", "b": "it's.md", "c": "@team.md", "d": 'say "hi".md'}
    names |= {"e": "x: y.md", "f": "e, f}.md"}
    rel = "  - path: a.md\n  - path: 'b.md'\n  - path: c.md\n  - path: \"d.md\"\n  - e.md\n"
    rel += "  - {path: f.md}\n"
    pages = {f"docs/{k}.md": PAGE.format(t=k.upper(), rel="") for k in names}
    write(repo, {**pages, "docs/p.md": PAGE.format(t="P", rel=rel)})
    commit_all(repo, "pages")
    for k, new in names.items():
        git(repo, "mv", f"docs/{k}.md", f"docs/{new}")
    commit_all(repo, "rename")
    fixed = run(repo, "--fix", *SELECT, "docs")
    text = (repo / "docs" / "p.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])
    entries = front["relates_to"]
    got = [e["path"] if isinstance(e, dict) else e for e in entries]
    assert got == list(names.values()), text
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert run(repo, "--select", "KS002,KS020,KS022,KS024", "docs").returncode == 0


def test_a_moved_target_is_a_dead_link_where_ks024_is_ignored_for_the_file(repo: Path) -> None:
    # `--ignore KS024` reported the link as KS022; `per-file-ignores` for KS024 hid it
    # altogether (KS022 left it to KS024, whose finding the file ignores)
    legacy = "# Legacy\n\nLegacy [old](../old.md) link, and words enough for a page.\n"
    rel = "  - path: ../old.md\n"
    write(
        repo,
        {
            "old.md": "# Old\n\nThe old page, with words enough for a page of its own.\n",
            "legacy/l.md": legacy,
            "legacy/r.md": PAGE.format(t="R", rel=rel),
            ".kenso.toml": '[tool.kenso]\nper-file-ignores = { "legacy/**" = ["KS024"] }\n',
        },
    )
    commit_all(repo, "pages")
    git(repo, "mv", "old.md", "new.md")
    commit_all(repo, "rename")
    shown = run(repo, "--format", "concise", *SELECT, "legacy")
    assert shown.returncode == 1
    lines = shown.stdout.splitlines()
    assert [line.split(": ")[1].split(" ")[0] for line in lines] == ["KS022", "KS002"], lines


def test_a_toml_table_entry_is_found_on_its_line_and_fixed(repo: Path) -> None:
    # `[[relates_to]]` then `path = 'a.md'`: the finding was at the block's first line and
    # --fix, looking for the path there, fixed nothing
    page = (
        "+++\ntitle = 'R'\ntags = ['x', 'y', 'z']\n[[relates_to]]\npath = 'a.md'\n\n"
        "[[relates_to]]\nrelation = 'see'\npath = 'b.md'\n+++\n# R\n\nWords enough for a page.\n"
    )
    body = "# {t}\n\nThe {t} page, with words enough for a page of its own.\n"
    write(repo, {"a.md": body.format(t="A"), "b.md": body.format(t="B"), "r.md": page})
    commit_all(repo, "pages")
    git(repo, "mv", "a.md", "it's a.md")
    git(repo, "mv", "b.md", "c.md")
    commit_all(repo, "rename")
    shown = run(repo, "--format", "concise", *SELECT, "r.md")
    assert [line.split(": KS")[0] for line in shown.stdout.splitlines()] == ["r.md:5:9", "r.md:9:9"]
    assert run(repo, "--fix", *SELECT, "r.md").returncode == 0
    fixed = (repo / "r.md").read_text(encoding="utf-8")
    assert 'path = "it\'s a.md"\n' in fixed and "path = 'c.md'\n" in fixed, fixed

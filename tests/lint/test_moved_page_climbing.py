"""A page git moved up a folder keeps relative links written for its old folder that now
climb above the repository root (`../../img/a.png` from `docs/p.md`): they were counted as
"link outside the repository", with no finding and no fix, though KS024 re-bases a moved
page's own relative links (t49a #2). They are re-based like the others now."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

PAGE = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\nWords that make a page of it here.\n"
MOVING = PAGE.format(t="Moving") + (
    "\n![a](../../img/a.png) and [r](../r.md) and [i](../../img/a.png#x).\n"
    "[o](../../../outside.md) climbs out from the old folder too.\n"
)


def test_a_moved_pages_link_that_now_climbs_out_of_the_repository_is_rebased(
    repo: Path,
) -> None:
    write(
        repo,
        {
            "img/a.png": "PNGDATA",
            "docs/r.md": PAGE.format(t="R") + "\nSee [p](guide/p.md).\n",
            "docs/guide/p.md": MOVING,
        },
    )
    commit_all(repo, "pages")
    git(repo, "mv", "docs/guide/p.md", "docs/p.md")
    commit_all(repo, "move p up one folder")
    moved = "docs/guide/p.md was moved to docs/p.md in "
    moved += git(repo, "log", "-1", "--format=%h").strip()
    shown = run(repo, "--format", "concise", "--select", "KS022,KS024", "docs/p.md")
    # before: only "../r.md" was a KS024; both images were "link outside the repository"
    assert shown.stdout.splitlines() == [
        f"docs/p.md:9:6: KS024 {moved}; the image was written for its old folder: "
        'lint --fix rewrites "../../img/a.png" to "../img/a.png" (moved-target)',
        f"docs/p.md:9:31: KS024 {moved}; the link was written for its old folder: "
        'lint --fix rewrites "../r.md" to "r.md" (moved-target)',
        f"docs/p.md:9:48: KS024 {moved}; the link was written for its old folder: "
        'lint --fix rewrites "../../img/a.png#x" to "../img/a.png#x" (moved-target)',
    ]
    run(repo, "--fix", "docs/p.md")
    text = (repo / "docs/p.md").read_text(encoding="utf-8")
    assert text == MOVING.replace("../../img/", "../img/").replace("(../r.md)", "(r.md)")
    shown = run(repo, "--format", "concise", "--select", "KS022,KS024", "docs/p.md")
    assert shown.returncode == 0, shown.stdout


def test_a_moved_pages_only_link_above_the_root_is_rebased_to_where_its_target_went(
    repo: Path,
) -> None:
    """A page whose one dead link climbs above the root was never asked of git (it named
    nothing missing), so no KS024; nor when the image moved too, in a later commit."""
    page = PAGE.format(t="Only") + "\n![a](../../img/a.png)\n"
    write(repo, {"img/a.png": "PNGDATA", "docs/guide/p.md": page})
    commit_all(repo, "pages")
    git(repo, "mv", "docs/guide/p.md", "docs/p.md")
    moved = commit_all(repo, "move p up one folder")[:7]
    git(repo, "mv", "img", "assets")
    renamed = commit_all(repo, "move the images")[:7]
    shown = run(repo, "--format", "concise", "--select", "KS022,KS024", "docs/p.md")
    assert shown.stdout.splitlines() == [
        f"docs/p.md:9:6: KS024 docs/guide/p.md was moved to docs/p.md in {moved}, and "
        f"img/a.png was renamed to assets/a.png in {renamed}; the image was written for its "
        'old folder: lint --fix rewrites "../../img/a.png" to "../assets/a.png" (moved-target)'
    ]
    run(repo, "--fix", "docs/p.md")
    text = (repo / "docs/p.md").read_text(encoding="utf-8")
    assert text == page.replace("../../img/", "../assets/")

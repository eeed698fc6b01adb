"""`lint.siteurls`: which pages MkDocs and Hugo serve at a folder URL of their own, read
from the nearest config above the page, each config read once."""

from __future__ import annotations

import pytest

from kenso_git.lint.siteurls import served_at_folder
from kenso_git.lint.siteurls import served_by_mkdocs
from kenso_git.lint.treeindex import TreeIndex


def _tree(configs: dict[str, str], pages: list[str]) -> tuple[TreeIndex, list[str]]:
    """A tree of `configs` and `pages`, and the config paths read, in order."""
    tree = TreeIndex([*configs, *pages])
    asked: list[str] = []

    def read(path: str, limit: int) -> str | None:
        asked.append(path)
        return configs.get(path)

    tree.read_text = read
    return tree, asked


@pytest.mark.parametrize(
    ("configs", "page", "served"),
    [
        ({"mkdocs.yml": "site_name: x\n"}, "docs/a/p.md", True),
        ({"mkdocs.yml": "site_name: x\n"}, "README.md", False),  # outside docs_dir
        ({"mkdocs.yml": "site_name: x\ndocs_dir: content\n"}, "content/p.md", True),
        ({"mkdocs.yml": "docs_dir: 'content' # the pages\n"}, "content/a/p.md", True),
        ({"mkdocs.yml": "site_name: x\nuse_directory_urls: false\n"}, "docs/p.md", False),
        ({"mkdocs.yml": "docs_dir: ../elsewhere\n"}, "docs/p.md", False),
        ({"site/mkdocs.yml": "site_name: x\n"}, "site/docs/p.md", True),
        ({"site/mkdocs.yml": "site_name: x\n"}, "docs/p.md", False),  # no config above it
        ({"hugo.toml": 'title = "x"\n'}, "content/en/p.md", True),
        ({"hugo.toml": 'contentDir = "pages"\n'}, "pages/p.md", True),
        ({"hugo.toml": 'contentDir = "pages"\n'}, "content/p.md", False),
        ({"config.yaml": "contentDir: site/content\n"}, "site/content/p.md", True),
        ({"hugo.toml": "uglyURLs = true\n"}, "content/p.md", False),
        ({"hugo.toml": "uglyURLs = false\n"}, "content/p.md", True),
        ({"hugo.toml": "[uglyURLs]\n  posts = true\n"}, "content/p.md", False),  # per section
        ({"config/_default/hugo.toml": 'title = "x"\n'}, "content/p.md", True),
        ({}, "docs/p.md", False),
    ],
)
def test_a_page_is_served_at_its_folder_url_as_its_config_says(
    configs: dict[str, str], page: str, served: bool
) -> None:
    tree, _asked = _tree(configs, [page])
    assert served_at_folder(tree, page) is served
    assert served_by_mkdocs(tree, page) is (served and "mkdocs.yml" in str(configs))


def test_an_unreadable_config_serves_no_page_at_a_folder_url() -> None:
    tree = TreeIndex(["mkdocs.yml", "docs/p.md"])  # no reader: the config cannot be read
    assert served_at_folder(tree, "docs/p.md") is False


def test_a_config_is_read_once_for_all_the_folders_it_governs() -> None:
    pages = [f"docs/section{i}/page.md" for i in range(50)]
    tree, asked = _tree({"mkdocs.yml": "site_name: x\n"}, pages)
    assert all(served_at_folder(tree, page) for page in pages)
    assert asked == ["mkdocs.yml"]

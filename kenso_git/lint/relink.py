"""Where KS024's fix points a link (#30): the path of a moved target written from the folder
the page's dialect reads the link from. MkDocs (directory URLs) and Hugo serve `a/p.md` at
`a/p/`, and a browser reads the page's directory-style links (`../x/`, `./x`) from there,
so the path is written from that URL folder, a page named by its URL (`x.md` and
`x/index.md` as `x`). Every path offered is read back as the path rules read the link
(`placement.leads_to`): one they would report, or find elsewhere, is never written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenso_git.lint.placement import INDEX_PAGES
from kenso_git.lint.placement import PAGE_EXTENSIONS
from kenso_git.lint.placement import directory_style
from kenso_git.lint.placement import leads_to
from kenso_git.lint.placement import page_url_folder
from kenso_git.lint.relpaths import relative_to
from kenso_git.lint.siteurls import served_at_folder

if TYPE_CHECKING:
    from kenso_git.lint.treeindex import TreeIndex


def rewrite(source: str, raw_path: str, new: str, tree: TreeIndex, *, html: bool) -> str | None:
    """`raw_path` (the path part of a link of the page `source`, as written; raw HTML when
    `html`) re-pointed at `new`, written as `relpaths.relative_to` writes it: a
    directory-style path from the page's URL folder when a site serves the page at one of
    its own, else (or when that reading misses `new`) from the file's folder. None when no
    such path leads to `new` as the path rules read it."""
    tries = []
    if directory_style(raw_path):
        url = url_path(new)
        if served_at_folder(tree, source):
            tries.append(relative_to(source, raw_path, url, base=page_url_folder(source)))
        tries.append(relative_to(source, raw_path, url))
    tries.append(relative_to(source, raw_path, new))
    for fixed in dict.fromkeys(tries):
        if leads_to(source, fixed, tree, new, html=html):
            return fixed
    return None


def url_path(path: str) -> str:
    """The root-relative path a site serves the page at `path` at (`a/x.md` and
    `a/x/index.md` at `a/x`); any other path as it is."""
    folder, _, name = path.rpartition("/")
    if name in INDEX_PAGES:
        return folder
    for ext in PAGE_EXTENSIONS:
        if name.endswith(ext) and len(name) > len(ext):
            return path[: -len(ext)]
    return path

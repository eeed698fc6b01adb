"""A link destination that is a site generator's template (`{{< relref "x.md" >}}`,
`{{% eturl rss %}}`, `/docs/{{< param version >}}/api`, `{{ site.baseurl }}/x.png`):
Hugo's `ref` and `relref` shortcodes resolved against the tree as Hugo's page finder
resolves them, any other template skipped and counted (#30).

Hugo looks a `ref` path up relative to the page first (a leaf bundle's `index.md` from
its bundle's folder), then from the content root, and a name with no slash by its base
name anywhere in the site; a page is found with or without its extension, as a bundle
(`x/index.md`, `x/_index.md`) or a section folder, in any case (Hugo lowercases paths).
Lint does not know the content root (`content/`, `content/en/`), so each folder from the
page's up to the repository's root is tried as it. A `ref` none of them answers is skipped
and counted, not reported: a site mounts pages from other repositories (Dapr's SDK docs),
and Hugo's own build fails on a `ref` to no page (`REF_NOT_FOUND`). A `lang=` argument
names another language's content folder: skipped too.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from kenso_git.records import NamedTuple

if TYPE_CHECKING:
    from kenso_git.lint.treeindex import TreeIndex

TEMPLATE = "site template"  # a template lint does not expand (counted as not checked)
OFF_TREE = "Hugo ref to no page of the tree"  # a module mount may hold it: not judged
AMBIGUOUS_REF = "anchor of a Hugo ref to one of several pages"  # the root is not known
# `{{< ref "x.md" >}}`, `{{% relref path="x" outputFormat="rss" %}}`, `{{< ref x >}}`; what
# follows the shortcode may be a fragment (`{{< relref "x" >}}#part`)
_REF = re.compile(
    r"\{\{[<%]\s*(?:rel)?ref\s+(?:path\s*=\s*)?(?:\"([^\"]*)\"|`([^`]*)`|([^\s\"`=]+))"
    r"((?:\s+\w+\s*=\s*(?:\"[^\"]*\"|`[^`]*`|[^\s\"`]+))*)\s*[%>]\}\}(#[^\s]*)?"
)
_EXTENSIONS: tuple[str, ...] = (".md", ".markdown", ".mdown", ".html", ".htm", ".adoc")
_EXTENSIONS += (".asciidoc", ".ad", ".org", ".pandoc", ".pdc", ".rst")  # Hugo's content formats
_INDEX = ("index", "_index")
_LANG = re.compile(r"\blang\s*=")


class Ref(NamedTuple):
    """A `ref`/`relref` shortcode as written: its path and fragment (None: none)."""

    path: str
    fragment: str | None


def is_template(raw: str) -> bool:
    """Whether the link destination `raw` holds a template: Hugo's (`{{<`, `{{%`), or
    Liquid's, Jinja's or Go's (`{{ site.baseurl }}`, `{% link x.md %}`)."""
    return "{{" in raw or "{%" in raw


def parse_ref(raw: str) -> Ref | None:
    """The `ref`/`relref` shortcode `raw` is, or None: another template, arguments lint
    cannot follow (`lang=`), or text around the shortcode other than a fragment."""
    match = _REF.fullmatch(raw)
    if match is None or _LANG.search(match[4]) is not None:
        return None
    path = next(group for group in (match[1], match[2], match[3]) if group is not None)
    path, hashed, inner = path.partition("#")
    fragment = inner if hashed else None
    if match[5]:
        fragment = match[5][1:]
    return Ref(path, fragment)


def resolve_ref(source: str, path: str, tree: TreeIndex) -> tuple[str | None, bool]:
    """(the file or folder of the tree Hugo's `ref` of `path` in the page `source` names, or
    None when no reading of it finds one; whether that page is the one Hugo takes): a path
    relative to the page is sure; from the content root or by name it is when only one
    reading finds a page (lint does not know which folder is the root)."""
    path = path.rstrip("/")
    folder = posixpath.dirname(source)
    if not path.startswith("/"):
        for base in dict.fromkeys((folder, posixpath.dirname(folder))):  # a bundle's parent
            found = _joined(tree, base, path)
            if found is not None:
                return found, True
        if path.startswith("."):
            return None, True
    parts = folder.split("/") if folder else []
    roots = ["/".join(parts[:i]) for i in range(len(parts) + 1)]
    pages = {found for root in roots if (found := _joined(tree, root, path)) is not None}
    if not pages and path and "/" not in path:
        named = tree.pages_named(_stem(path))
        pages = set(named)
    if not pages:
        return None, True
    return min(pages), len(pages) == 1


def _joined(tree: TreeIndex, base: str, path: str) -> str | None:
    joined = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    if joined.startswith("../") or joined == "..":
        return None
    return _page(tree, "" if joined == "." else joined)


def _stem(path: str) -> str:
    lowered = path.lower()
    for ext in _EXTENSIONS:
        if lowered.endswith(ext):
            return path[: -len(ext)]
    return path


def _page(tree: TreeIndex, base: str) -> str | None:
    """The page at the root-relative `base` (extension optional), case-blind."""
    stem = _stem(base)
    lead = f"{stem}/" if stem else ""
    tried = [base, stem] if base else []
    tried += [stem + ext for ext in _EXTENSIONS]
    tried += [f"{lead}{name}{ext}" for name in _INDEX for ext in _EXTENSIONS]
    for path in tried:
        if path in tree:
            return path
        real = tree.case_of(path)
        if real is not None:
            return real
    return None


def page_stem(path: str) -> str | None:
    """The name Hugo finds the content file `path` by (`x` of `a/x.md` and of
    `a/x/index.md`), case-folded, or None when it is no content file."""
    folder, _, name = path.rpartition("/")
    stem = _stem(name)
    if stem == name:
        return None
    if stem in _INDEX:
        stem = folder.rpartition("/")[2]
    return stem.casefold() or None

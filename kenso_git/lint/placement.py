"""Where one link target or code path leads in the work tree (#30): `classify` places a
link written in a page with the same path normalisation the link graph uses
(`text.parse.normalise_target`), `classify_code` a backticked path, `from_page_url` a
directory-style link missing from its page's folder as a site with directory URLs serves
it; `Target` is one of a document's links or code paths with what it came to."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from kenso_git.lint.hugoref import AMBIGUOUS_REF
from kenso_git.lint.hugoref import OFF_TREE
from kenso_git.lint.hugoref import TEMPLATE
from kenso_git.lint.hugoref import is_template
from kenso_git.lint.hugoref import parse_ref
from kenso_git.lint.hugoref import resolve_ref
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.records import NamedTuple
from kenso_git.text.mdlinks import LinkRef
from kenso_git.text.parse import normalise_target

# What a target came to.
FOUND = "found"
MISSING = "missing"
CASE = "case"  # exists only with another case: breaks on case-sensitive checkouts
UNSTAGED = "unstaged"  # exists, untracked, and a commit is being made: not in it
SKIPPED = "skipped"
# Why a target was skipped (counted in the summary).
EXTERNAL = "external URL"  # not fetched: lint is offline
SITE = "site-absolute link"  # `/dotnet/api/x`, `~/includes/x.md`: the site's root, not the tree's
SCHEME = "scheme link"  # `xref:System.String`, `vscode:...`
OUTSIDE = "link outside the repository"
SUBMODULE = "link into a submodule not checked out"
_WEB = frozenset({"http", "https", "ftp", "ftps", "mailto", "tel", "news", "irc", "data"})
TAB = "tab marker"  # `# [.NET](#tab/dotnet)`: Microsoft Learn's tabbed sections, not a link
LINE_ANCHOR = re.compile(r"L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?")  # GitHub's line links


class Target(NamedTuple):
    """One link or code path of a document and what it came to."""

    ref: LinkRef
    line: int  # 1-based file line of the target's first character
    column: int  # 1-based column of it
    status: str  # FOUND, MISSING, CASE, UNSTAGED or SKIPPED
    path: str  # root-relative normal form of the path part ("" when skipped)
    fragment: str | None  # the text after `#`, None when there is no `#`
    reason: str = ""  # why it was skipped; the real path when status is CASE


def _scheme(target: str) -> str | None:
    head = target.partition("/")[0]
    if ":" not in head:
        return None
    return head.partition(":")[0].lower()


Placed = tuple[str, str, str | None, str]  # (status, path, fragment, reason)


def classify(source: str, raw: str, tree: TreeIndex) -> Placed:
    """(status, path, fragment, reason) of the link target `raw` written in `source`."""
    if raw.startswith("#"):
        if raw.startswith("#tab/"):
            return SKIPPED, "", None, TAB
        return FOUND, source, unquote(raw[1:]), ""
    if raw.startswith("//") or ((scheme := _scheme(raw)) is not None and scheme in _WEB):
        return SKIPPED, "", None, EXTERNAL
    if "{" in raw and is_template(raw):
        return _template(source, raw, tree)
    if scheme is not None:
        return SKIPPED, "", None, SCHEME
    if raw.startswith("~/"):
        return SKIPPED, "", None, SITE
    path, hashed, fragment = raw.partition("#")
    path = unquote(path.partition("?")[0]) if "%" in path else path.partition("?")[0]
    if not path:
        return SKIPPED, "", None, SCHEME
    if path.startswith("/"):
        if path.lstrip("/").split("/", 1)[0] not in tree.top:
            return SKIPPED, "", None, SITE
        normal = normalise_target(source, path)
    elif (plain := path.rstrip()) and "/." not in f"/{plain}" and "//" not in f"{plain}/":
        # a plain relative path (no `.`/`..` part, no trailing slash, no doubled one): what
        # normalise_target makes of it, without normpath (most links of a corpus)
        folder = source.rpartition("/")[0]
        normal = f"{folder}/{plain}" if folder else plain
    else:
        normal = normalise_target(source, path if path.startswith(".") else "./" + path)
    if not normal or normal in (".", "..") or normal.startswith("../"):
        return SKIPPED, "", None, OUTSIDE
    return _placed(tree, normal, unquote(fragment) if hashed else None)


# The pages a site serves at their folder's URL (MkDocs, Hugo, GitHub): for a directory-style
# link `x/`, the pages it may name are `x.md` and these in `x/`.
INDEX_PAGES = ("index.md", "_index.md", "README.md")


def page_url_folder(source: str) -> str:
    """The folder a site with directory URLs serves the page `source` from (`a/b/p.md` at
    `a/b/p/`, an index page at its own folder's URL): what its relative links are read from
    in a browser."""
    folder, _, name = source.rpartition("/")
    if name in INDEX_PAGES:
        return folder
    stem = name.rpartition(".")[0] or name
    return f"{folder}/{stem}" if folder else stem


def from_page_url(source: str, raw: str, tree: TreeIndex, placed: Placed) -> Placed:
    """`placed`, the place of the link target `raw` of the page `source`; or, when it is
    missing and `raw` is a relative directory-style link (`../x/#part`, a trailing
    slash), the page it names read from the page's URL folder (`page_url_folder`: MkDocs'
    and Hugo's directory URLs), `x/` served by `x.md`, `x/index.md`, `x/_index.md` or
    `x/README.md`. A link neither reading finds stays `placed` (said missing as written
    from the file's folder)."""
    if placed[0] != MISSING:
        return placed
    path, hashed, fragment = raw.partition("#")
    path = path.partition("?")[0]
    if not path.endswith("/") or path[:1] in ("/", "~") or "{" in path:
        return placed
    if "%" in path:
        path = unquote(path)
    joined = posixpath.normpath(posixpath.join(page_url_folder(source), path))
    if joined == ".." or joined.startswith("../"):
        return placed
    lead = "" if joined == "." else f"{joined}/"
    pages = [f"{lead}{name}" for name in INDEX_PAGES]
    if lead:
        pages.insert(0, f"{joined}.md")
    for page in pages:
        found = _placed(tree, page, unquote(fragment) if hashed else None)
        if found[0] in (FOUND, UNSTAGED):
            return found
    return placed


def _template(source: str, raw: str, tree: TreeIndex) -> Placed:
    """A Hugo `ref`/`relref` placed as Hugo finds its page; skipped when no page of the
    tree answers it (`OFF_TREE`: a module mount may) and any other template (`TEMPLATE`)."""
    ref = parse_ref(raw)
    if ref is None:
        return SKIPPED, "", None, TEMPLATE
    fragment = unquote(ref.fragment) if ref.fragment is not None else None
    if not ref.path:  # `{{< ref "#part" >}}`: this page's anchor
        return (SKIPPED, "", None, TEMPLATE) if fragment is None else (FOUND, source, fragment, "")
    found, sure = resolve_ref(source, ref.path, tree)
    if found is None:
        return SKIPPED, "", None, OFF_TREE
    if not sure and fragment is not None:  # which page's anchors? not judged
        return SKIPPED, "", None, AMBIGUOUS_REF
    return FOUND, found, fragment, ""


def _placed(tree: TreeIndex, normal: str, frag: str | None) -> Placed:
    """(status, path, fragment, reason) of the root-relative `normal` in `tree`."""
    if normal in tree:
        if tree.unstaged and normal in tree.unstaged:
            return UNSTAGED, normal, frag, ""
        return FOUND, normal, frag, ""
    if tree.absent and tree.in_absent(normal):
        return SKIPPED, "", None, SUBMODULE
    if tree.leaves_through_link(normal):  # `ext/page.md`, `ext` a symlink to a folder outside
        return SKIPPED, "", None, OUTSIDE
    return (CASE if tree.case_of(normal) is not None else MISSING), normal, frag, ""


def classify_code(token: str, tree: TreeIndex) -> tuple[str, str] | None:
    """(status, path) of a backticked path whose first segment is in the tree, else None."""
    path = token.rstrip("/")
    first = path.split("/", 1)[0]
    if first not in tree.top and tree.case_of(first) is None:
        return None
    if path in tree:
        return FOUND, path
    return (CASE, path) if tree.case_of(path) is not None else (MISSING, path)

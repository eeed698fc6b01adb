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
from kenso_git.lint.siteurls import content_root
from kenso_git.lint.siteurls import keeps_links
from kenso_git.lint.siteurls import served_at_folder
from kenso_git.lint.siteurls import served_by_mkdocs
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
ROOT = "."  # the path a link to the repository's root comes to (`../` in `docs/a.md`)
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
    # why it was skipped; the real path when status is CASE; when MISSING, the page only the
    # file's folder finds for a link its site reads from the page's URL (`from_page_url`)
    reason: str = ""


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
        return _site_absolute(source, path, unquote(fragment) if hashed else None, tree)
    if (plain := path.rstrip()) and "/." not in f"/{plain}" and "//" not in f"{plain}/":
        # a plain relative path (no `.`/`..` part, no trailing slash, no doubled one): what
        # normalise_target makes of it, without normpath (most links of a corpus)
        folder = source.rpartition("/")[0]
        normal = f"{folder}/{plain}" if folder else plain
    else:
        normal = normalise_target(source, path if path.startswith(".") else "./" + path)
    if not normal or normal == ".." or normal.startswith("../"):
        return SKIPPED, "", None, OUTSIDE
    if normal == ".":  # the repository's root: a folder of the tree like any other
        return FOUND, ROOT, unquote(fragment) if hashed else None, ""
    return _placed(tree, normal, unquote(fragment) if hashed else None)


# The pages a site serves at their folder's URL (MkDocs, Hugo, GitHub): for a page link
# `x/` or `x` (no extension), the pages it may name are `x.md`, `x.markdown` and these in `x/`.
INDEX_PAGES = ("index.md", "_index.md", "README.md")
PAGE_EXTENSIONS = (".md", ".markdown")
AMBIGUOUS_SITE = "anchor of a site-absolute link to one of several pages"  # which root?


def _site_absolute(source: str, path: str, fragment: str | None, tree: TreeIndex) -> Placed:
    """A site-absolute link (`/a/b/`, `/a/b.md`) placed: from the repository's root as
    written when its first part is there; else the page a site generator serves at it from
    the root or a content root (`site_page`); else missing from the root in a project no
    site config holds (`TreeIndex.in_site`), and skipped otherwise: the site may serve it
    from elsewhere (static files, another repository)."""
    if not path.strip("/"):  # `/`: GitHub's repository root, or a site's home
        return (
            _home(source, fragment, tree) if tree.in_site(source) else (FOUND, ROOT, fragment, "")
        )
    inside = path.lstrip("/").split("/", 1)[0] in tree.top
    placed: Placed = (SKIPPED, "", None, SITE)
    if inside:
        normal = normalise_target(source, path)
        if not normal or normal == ".." or normal.startswith("../"):
            return SKIPPED, "", None, OUTSIDE
        placed = _placed(tree, normal, fragment)
        if placed[0] != MISSING:
            return placed
    found = site_page(source, path, tree, fragment)
    if found is not None:
        return found
    return placed if inside and not tree.in_site(source) else (SKIPPED, "", None, SITE)


def _home(source: str, fragment: str | None, tree: TreeIndex) -> Placed:
    """The site-absolute link `/` of the site page `source`: the root of its site's domain,
    which is always served. Its fragment is checked against the home page when an MkDocs or
    Hugo site is served at that root (`siteurls.content_root`): the content folder's
    `index.md`, `_index.md` or `README.md`; anywhere else it is not judged (skipped)."""
    root = content_root(tree, source)
    home = None if root is None else _page_at(tree, root or ".", fragment)
    if home is not None:
        return home
    return (FOUND, ROOT, None, "") if fragment is None else (SKIPPED, "", None, SITE)


def site_page(source: str, path: str, tree: TreeIndex, fragment: str | None) -> Placed | None:
    """The page a site generator serves at the site-absolute `path` (`/a/b/` or `/a/b`:
    `a/b.md`, `a/b/index.md`, `a/b/_index.md`, `a/b/README.md`), read from the repository's
    root or a content root: as `hugoref.resolve_ref` does, each folder from the page's
    `source` up is tried as one (`content/`, `content/en/`). None when no root makes it a
    page; several roots making different pages leave its anchor unjudged (skipped)."""
    rest = path.strip("/")
    if not rest or "/." in f"/{rest}" or "//" in rest:  # the root itself, or `..` parts
        return None
    folder = source.rpartition("/")[0]
    parts = folder.split("/") if folder else []
    pages = {
        page
        for i in range(len(parts) + 1)
        if (page := _served(tree, "/".join((*parts[:i], rest)), fragment)) is not None
    }
    if not pages:
        return None
    if len(pages) > 1 and fragment is not None:
        return SKIPPED, "", None, AMBIGUOUS_SITE
    return min(pages)


def _served(tree: TreeIndex, joined: str, fragment: str | None) -> Placed | None:
    """The file at the root-relative `joined`, or the page a site serves at it (`_page_at`)."""
    if joined in tree.files:
        return _placed(tree, joined, fragment)
    return _page_at(tree, joined, fragment)


def _page_at(tree: TreeIndex, joined: str, fragment: str | None) -> Placed | None:
    """The page a site serves at the root-relative folder URL `joined` (`x.md`,
    `x.markdown`, `x/index.md`, `x/_index.md`, `x/README.md`; `.` is the root), placed."""
    lead = "" if joined == "." else f"{joined}/"
    pages = [f"{lead}{name}" for name in INDEX_PAGES]
    if lead:
        pages[:0] = [f"{joined}{ext}" for ext in PAGE_EXTENSIONS]
    for page in pages:
        found = _placed(tree, page, fragment)
        if found[0] in (FOUND, UNSTAGED):
            return found
    return None


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
    missing and `raw` is a relative page link as static sites write them (a trailing slash,
    `../x/#part`, or no extension, `./x`), the page it names: `x.md`, `x.markdown`,
    `x/index.md`, `x/_index.md` or `x/README.md`, read from the file's folder and from the
    page's URL folder (`page_url_folder`: MkDocs' and Hugo's directory URLs), the URL's
    first for a trailing slash. A link neither reading finds stays `placed` (said missing
    as written from the file's folder). One that differs in case from the file's folder is
    read so too in a page MkDocs or Hugo serves at a folder URL of its own
    (`siteurls.served_at_folder`): its URL folder's reading is the one its site makes. In a
    page whose site leaves such links as written (`siteurls.keeps_links`: MkDocs, Hugo
    without a link render hook) only the URL's reading finds it: one only the file's folder
    finds stays MISSING, at the URL's reading, with that page as its reason."""
    if placed[0] != MISSING and (placed[0] != CASE or not served_at_folder(tree, source)):
        return placed
    path, hashed, fragment = raw.partition("#")
    path = path.partition("?")[0]
    if not directory_style(path):
        return placed
    slashed = path.endswith("/")
    if "%" in path:
        path = unquote(path)
    folder, url = source.rpartition("/")[0], page_url_folder(source)
    frag = unquote(fragment) if hashed else None
    kept = url != folder and keeps_links(tree, source)  # the site reads it from `url` alone
    for base in (url, folder) if slashed or kept else (folder, url):
        joined = posixpath.normpath(posixpath.join(base, path))
        if joined == ".." or joined.startswith("../"):
            continue
        found = _page_at(tree, joined, frag)
        if found is not None and kept and base == folder:
            # only the file's folder finds it: dead on the site, said so (`served_only`)
            served = posixpath.normpath(posixpath.join(url, path))
            at = placed[1] if served == ".." or served.startswith("../") else served
            return MISSING, at, frag, found[1]
        if found is not None:
            return found
    return placed


def directory_style(path: str) -> bool:
    """Whether the path part `path` of a link is a relative page link as static sites write
    them: a trailing slash (`../x/`), or no extension (`./x`); not root- or `~`-based, and
    no template."""
    if not path or path[:1] in ("/", "~") or "{" in path:
        return False
    return path.endswith("/") or "." not in path.rpartition("/")[2]


def served_readings(source: str, raw: str) -> list[str]:
    """The root-relative paths the directory-style link target `raw` of the page `source`
    may name as `from_page_url` reads it (`x.md`, `x.markdown`, `x/index.md`, `x/_index.md`,
    `x/README.md` and the folder `x`, from the page's URL folder and its file's folder):
    what git is asked about when it is dead. None for any other link."""
    path = raw.partition("#")[0].partition("?")[0]
    if not directory_style(path):
        return []
    slashed = path.endswith("/")
    path = unquote(path) if "%" in path else path
    folder, url = source.rpartition("/")[0], page_url_folder(source)
    out: dict[str, None] = {}
    for base in (url, folder) if slashed else (folder, url):
        joined = posixpath.normpath(posixpath.join(base, path))
        if joined not in (".", "..") and not joined.startswith("../"):
            out.update(dict.fromkeys([f"{joined}{ext}" for ext in PAGE_EXTENSIONS]))
            out.update(dict.fromkeys([*(f"{joined}/{name}" for name in INDEX_PAGES), joined]))
    return list(out)


def as_served(source: str, raw: str, tree: TreeIndex, placed: Placed, *, html: bool) -> Placed:
    """`placed`, the place of the link target `raw` of the page `source` read from its
    file's folder, read as its site serves the page too: a missing directory-style link
    from the page's URL (`from_page_url`), a folder's `#fragment` as the page the folder
    shows (`folder_page`), and raw HTML (`html`) from an MkDocs page's URL
    (`html_from_page_url`)."""
    if placed[0] in (MISSING, CASE):
        placed = from_page_url(source, raw, tree, placed)
    else:
        placed = folder_page(source, raw, tree, placed)
    return html_from_page_url(source, raw, tree, placed) if html else placed


def rewritable(source: str, raw: str, tree: TreeIndex, *, html: bool) -> bool:
    """Whether `--fix` may rewrite the path of the link `raw` of the page `source` (raw HTML
    when `html`) from what it names read from the file's folder: whether that reading is
    the one the page's dialect makes. GitHub reads every relative link so, a site an index
    page's (its URL is its folder's), and MkDocs and other generators a Markdown link to a
    file, which they rewrite for the page's URL. A directory-style link (`../x/`, `./x`)
    or raw HTML of another site page is read from its URL's folder (`page_url_folder`), and
    Hugo leaves a page's links as written: not rewritten."""
    if not tree.in_site(source) or page_url_folder(source) == source.rpartition("/")[0]:
        return True
    if html or tree.in_hugo(source):
        return False
    path = raw.partition("#")[0].partition("?")[0]
    return not path.endswith("/") and "." in path.rpartition("/")[2]


def html_from_page_url(source: str, raw: str, tree: TreeIndex, placed: Placed) -> Placed:
    """`placed`, the place of the raw HTML `src`/`href` `raw` of the page `source`; or, when
    it is missing (or differs in case) and MkDocs serves the page at a folder URL of its own
    (`a/b.md` at `a/b/`), what it names read from that URL folder, when that is a file of
    the tree. MkDocs rewrites a Markdown link for the page's URL but leaves raw HTML as
    written, so its authors write it for the URL folder; GitHub reads it from the file's
    folder, so that reading passes too."""
    if placed[0] not in (MISSING, CASE) or not served_by_mkdocs(tree, source):
        return placed
    url = page_url_folder(source)
    path, hashed, fragment = raw.partition("#")
    path = path.partition("?")[0]
    if url == source.rpartition("/")[0] or not path or path[:1] in ("/", "~") or "{" in path:
        return placed
    joined = posixpath.normpath(posixpath.join(url, unquote(path) if "%" in path else path))
    if joined in (".", "..") or joined.startswith("../"):
        return placed
    found = _placed(tree, joined, unquote(fragment) if hashed else None)
    return found if found[0] in (FOUND, UNSTAGED) else placed


def folder_page(source: str, raw: str, tree: TreeIndex, placed: Placed) -> Placed:
    """`placed`, the place of the link target `raw` of the page `source`; or, when `raw`
    names a folder with a `#fragment`, the page whose anchor that is. In a page an MkDocs
    or Hugo site serves at a folder URL of its own (`siteurls.served_at_folder`), `./#part`
    (or `.#part`) is the page itself and another folder link is read from that URL
    (`page_url_folder`: `../#part` in `a/b/p.md` is `a/b/`'s index page); in a project no
    site config holds (GitHub's rendering), a folder shows its README (`TreeIndex.readme`).
    Anything else (another site's folder, a URL no page answers, a folder with no Markdown
    README) stays `placed`: its anchor is not judged."""
    if not is_folder(tree, placed[1]):  # most links: a file, or skipped
        return placed
    path, hashed, fragment = raw.partition("#")
    if not hashed or "{" in raw:
        return placed
    path = path.partition("?")[0]
    if path in (".", "./"):
        if served_at_folder(tree, source):
            return FOUND, source, unquote(fragment), ""
        folder = source.rpartition("/")[0]
    elif placed[0] not in (FOUND, UNSTAGED):
        return placed
    elif served_at_folder(tree, source):  # read from the page's URL, as its site does
        joined = posixpath.normpath(posixpath.join(page_url_folder(source), unquote(path)))
        if joined in (".", "..") or joined.startswith("../"):
            return placed
        return _page_at(tree, joined, unquote(fragment)) or placed
    else:
        folder = "" if placed[1] == ROOT else placed[1]
    readme = None if tree.in_site(source) else tree.readme(folder)
    return placed if readme is None else _placed(tree, readme, unquote(fragment))


def read_at(source: str, raw: str, tree: TreeIndex, *, html: bool) -> Placed:
    """The link target `raw` placed as a link of the page `source` (raw HTML when `html`):
    from the file's folder (`classify`), and when it is missing there, as the page's site
    serves it too (`as_served`); what a moved page's link named at its old place."""
    placed = classify(source, raw, tree)
    return as_served(source, raw, tree, placed, html=html) if placed[0] == MISSING else placed


def leads_to(source: str, raw: str, tree: TreeIndex, new: str, *, html: bool) -> bool:
    """Whether the link target `raw` of the page `source` (raw HTML when `html`), read as
    the path rules read it (`classify`, then `as_served`), names `new`: that file or
    folder, or the page a site serves at the folder `new`."""
    placed = as_served(source, raw, tree, classify(source, raw, tree), html=html)
    if placed[0] not in (FOUND, UNSTAGED):
        return False
    if placed[1] == new:
        return True
    served = _page_at(tree, new, None) if new in tree.dirs else None
    return served is not None and served[1] == placed[1]


def is_folder(tree: TreeIndex, path: str) -> bool:
    """Whether the placed `path` is a folder of the tree (the root, `ROOT`, included)."""
    return path == ROOT or path in tree.dirs


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

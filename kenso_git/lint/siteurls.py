"""Whether a static site serves a page at a folder URL of its own (#30): MkDocs (with
`use_directory_urls`, its default) serves `docs/a/b.md` at `a/b/`, Hugo (without
`uglyURLs`) `content/a/b.md` at `a/b/`, so a link `./#part` written in the page is the page
itself. Read from the nearest `mkdocs.yml` or Hugo config above the page, for pages under
its `docs_dir` (`docs`) or `contentDir` (`content`); lint reads nothing else of a site's
config but whether a link render hook may rewrite links (`keeps_links`) and the site's URL
(`content_root`: the home page a link `/` names), and a page it cannot place so is not said
to be served at a folder URL."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from kenso_git.lint.treeindex import HUGO_CONFIGS
from kenso_git.lint.treeindex import MAX_CONFIG_CHARS
from kenso_git.lint.treeindex import MKDOCS_CONFIGS

if TYPE_CHECKING:
    from kenso_git.lint.treeindex import TreeIndex

# A key at the start of a line (YAML, TOML, or JSON's `"key":`), case-blind as Hugo reads its
# keys; MkDocs' are lower-case YAML.
_DOCS_DIR = re.compile(r"^docs_dir\s*:\s*['\"]?([^'\"#\s]+)", re.MULTILINE)
_FLAT = re.compile(r"^use_directory_urls\s*:\s*(?:false|no|off)\b", re.MULTILINE | re.IGNORECASE)
_CONTENT_DIR = re.compile(
    r"^\s*['\"]?contentdir['\"]?\s*[:=]\s*['\"]?([^'\"#\s,]+)", re.MULTILINE | re.IGNORECASE
)
_SITE_URL = re.compile(r"^site_url\s*:\s*['\"]?([^'\"#\s]+)", re.MULTILINE)
_BASE_URL = re.compile(
    r"^\s*['\"]?baseurl['\"]?\s*[:=]\s*['\"]?([^'\"#\s,]+)", re.MULTILINE | re.IGNORECASE
)
_UGLY = re.compile(r"uglyurls", re.IGNORECASE)  # any setting: per section, per language
_NOT_UGLY = re.compile(r"uglyurls['\"]?\s*[:=]\s*false\b", re.IGNORECASE)


MKDOCS = "mkdocs"
HUGO = "hugo"
HUGO_HOOKED = "hugo, its links maybe rewritten"  # a link render hook may read them from the file
# Hugo's embedded link render hook (on for a multilingual site, or `enableDefault`) and a
# project's own `render-link.html` may resolve a link from the page's file; Docsy's keeps it.
_RENDER_HOOKS = re.compile(r"renderhooks", re.IGNORECASE)
_LANGUAGE = re.compile(r"^\s*\[\s*languages\.['\"]?([\w-]+)", re.MULTILINE | re.IGNORECASE)
# languages set as a YAML or JSON map (`languages:`, `"languages": {`), or in a file of the
# config folder (`config/_default/languages.toml`): how many is not read, so the site may be
# multilingual, and Hugo's own hook on
_LANGUAGES_MAP = re.compile(r"^\s*['\"]?languages['\"]?\s*:", re.MULTILINE | re.IGNORECASE)
# `permalinks` serve a section's pages at URLs of another shape than their files' paths
_PERMALINKS = re.compile(
    r"^\s*(?:\[\s*permalinks|['\"]?permalinks['\"]?\s*:)", re.MULTILINE | re.IGNORECASE
)
_URL_FILES = tuple(  # the config folder's files of those settings
    f"config/_default/{name}.{ext}"
    for name in ("languages", "permalinks")
    for ext in ("toml", "yaml", "json")
)
_HOOK_FILE = "render-link.html"
# a theme or module the site imports: its own link render hook, when not in the tree, is unknown
_THEME = re.compile(
    r"^\s*['\"]?(?:theme|imports)['\"]?\s*[:=]|\[\[\s*module\.imports", re.MULTILINE | re.IGNORECASE
)


def served_at_folder(tree: TreeIndex, path: str) -> bool:
    """Whether the page at `path` is an MkDocs or Hugo page served at a folder URL of its own
    (`a/b.md` at `a/b/`, an index page at its folder's): its `./` is itself. False when no
    such config governs it, the page is outside the config's content folder, the config
    turns folder URLs off (or may, for some sections), or the config cannot be read."""
    return bool(_server(tree, path))


def served_by_mkdocs(tree: TreeIndex, path: str) -> bool:
    """Whether `served_at_folder` holds of the page at `path` because MkDocs serves it."""
    return _server(tree, path) == MKDOCS


def keeps_links(tree: TreeIndex, path: str) -> bool:
    """Whether `served_at_folder` holds of the page at `path` and its site leaves its
    directory-style links (`./x/`, `../x`) as written, for a browser to read from the page's
    URL: MkDocs (it rewrites only links to `.md` files), and Hugo unless a link render hook
    may rewrite them (a `render-link.html` under the config's folder, a config setting
    `renderHooks`, one of two or more languages, where Hugo's own hook is on, or a theme or
    module the config imports that is not in the tree: its layouts are not known)."""
    return _server(tree, path) in (MKDOCS, HUGO)


def content_root(tree: TreeIndex, path: str) -> str | None:
    """The content folder of the MkDocs or Hugo site the page at `path` is in (its
    `docs_dir`, `docs`; its `contentDir`, `content`, the deepest of a multilingual site's
    holding it; "" for the root), when the site is served at its domain's root (`site_url`,
    `baseURL`: `https://x.io/`): the folder of its home page, which a link `/` names. None
    when no such config governs the page, it is outside the content folder, the site's URL
    is not given or has a path (`https://x.io/docs/`: `/` is another site's), or the config
    cannot be read."""
    folder = path.rpartition("/")[0]
    base, configs = _config_folder(tree, folder, MKDOCS_CONFIGS)
    text = _read(tree, configs[0]) if configs else None
    if text is not None:
        found = _DOCS_DIR.search(text)
        roots, texts = [found[1] if found else "docs"], [text]
        urls = [url[1] for url in _SITE_URL.finditer(text)]
    else:
        base, configs = _config_folder(tree, folder, HUGO_CONFIGS)
        read = [_read(tree, config) for config in configs]
        texts = [t for t in read if t is not None]
        if not configs or len(texts) < len(read):
            return None
        roots = [found for t in texts for found in _CONTENT_DIR.findall(t)] or ["content"]
        urls = [url for t in texts for url in _BASE_URL.findall(t)]
    if not urls or any(urlsplit(url).path not in ("", "/") for url in urls):
        return None
    held = [name for name in roots if _under(folder, base, name)]
    if not held:
        return None
    name = max(held, key=len).strip("/")
    return f"{base}/{name}" if base else name


def _server(tree: TreeIndex, path: str) -> str:
    """MKDOCS or HUGO when that generator serves the page at `path` at a folder URL of its
    own, else "" (remembered per folder)."""
    folder = path.rpartition("/")[0]
    found = tree.folder_urls.get(folder)
    if found is None:
        found = MKDOCS if _mkdocs(tree, folder) else _hugo(tree, folder)
        tree.folder_urls[folder] = found
    return found


def _config_folder(tree: TreeIndex, folder: str, names: tuple[str, ...]) -> tuple[str, list[str]]:
    """The nearest folder at or above `folder` holding one of `names`, with the ones it holds
    (none: no folder does)."""
    while True:
        lead = f"{folder}/" if folder else ""
        held = [lead + name for name in names if lead + name in tree.files]
        if held or not folder:
            return folder, held
        folder = folder.rpartition("/")[0]


def _read(tree: TreeIndex, path: str) -> str | None:
    """The text of the config at `path`, read once however many folders it governs."""
    if path in tree.config_texts:
        return tree.config_texts[path]
    read = tree.read_text
    text = tree.config_texts[path] = None if read is None else read(path, MAX_CONFIG_CHARS)
    return text


def _under(folder: str, base: str, content: str) -> bool:
    """Whether `folder` is the content folder `content` (relative to `base`) or below it."""
    content = content.strip("/")
    if not content or content.startswith(("/", "..")) or "/.." in content:
        return False
    root = f"{base}/{content}" if base else content
    return folder == root or folder.startswith(root + "/")


def _mkdocs(tree: TreeIndex, folder: str) -> bool:
    base, configs = _config_folder(tree, folder, MKDOCS_CONFIGS)
    text = _read(tree, configs[0]) if configs else None
    if text is None or _FLAT.search(text):
        return False
    docs_dir = _DOCS_DIR.search(text)
    return _under(folder, base, docs_dir[1] if docs_dir else "docs")


def _hugo(tree: TreeIndex, folder: str) -> str:
    base, configs = _config_folder(tree, folder, HUGO_CONFIGS)
    texts = [_read(tree, config) for config in configs]
    if not configs or None in texts:
        return ""
    read = [text for text in texts if text is not None]
    if any(_UGLY.search(text) and not _NOT_UGLY.search(text) for text in read):
        return ""
    found = [found for text in read for found in _CONTENT_DIR.findall(text)]
    if not any(_under(folder, base, name) for name in found or ["content"]):
        return ""
    named = {lang.casefold() for text in read for lang in _LANGUAGE.findall(text)}
    hooked = max(len(found), len(named)) > 1 or any(_RENDER_HOOKS.search(t) for t in read)
    lead = f"{base}/" if base else ""
    hooked = hooked or any(_LANGUAGES_MAP.search(t) or _PERMALINKS.search(t) for t in read)
    hooked = hooked or any(lead + name in tree.files for name in _URL_FILES)
    themed = any(_THEME.search(text) for text in read) and not _has_themes(tree, base)
    return HUGO_HOOKED if hooked or themed or _has_hook_file(tree, base) else HUGO


def _has_themes(tree: TreeIndex, base: str) -> bool:
    """Whether the site at `base` has its themes in the tree (`themes/`), or none to have."""
    return f"{base}/themes" in tree.dirs if base else "themes" in tree.dirs


def _has_hook_file(tree: TreeIndex, base: str) -> bool:
    """Whether a `render-link.html` is in the tree under `base` (a project's layouts or a
    theme's), looked for once per site."""
    hooked = tree.hooked_sites.get(base)
    if hooked is None:
        lead = f"{base}/" if base else ""
        hooked = any(p.startswith(lead) and p.endswith(_HOOK_FILE) for p in tree.files)
        tree.hooked_sites[base] = hooked
    return hooked

"""Every file and folder of the work tree, with a case-blind lookup and a typo's nearest
name (found in bounded work: `lint/rules/_typo.py`), and the anchors of its Markdown pages
lint does not lint: what lint's path rules judge links and code paths against (#30)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kenso_git.lint.hugoref import page_stem
from kenso_git.repo.workspace import is_markdown
from kenso_git.text.anchors import anchors as document_anchors
from kenso_git.text.hugoslug import HUGO_ID_TYPES
from kenso_git.text.hugoslug import id_type
from kenso_git.text.hugoslug import pulls_content
from kenso_git.text.mdlinks import region_list
from kenso_git.text.parse import Document

if TYPE_CHECKING:
    from kenso_git.lint.rules._typo import Guesser
    from kenso_git.lint.rules._typo import WordIndex

NEAR_CUTOFF = 0.8  # difflib ratio of a name to its folder's closest entry: a typo
_NEAR_KEPT = 4096  # typos whose nearest name the tree remembers: a page may repeat one
# Why a link's `#fragment` into the tree outside the corpus was not checked (counted).
NOT_A_PAGE = "anchor into a folder or a file that is not Markdown"
UNREAD_PAGE = "anchor into a Markdown file lint could not read"
PULLED_IN = "anchor into a page whose shortcodes may make headings lint cannot read"
# What the pages outside the corpus may hold together, read for their anchors: links into
# a submodule's generated reference cannot make lint read it all.
MAX_OUTSIDE_CHARS = 16_000_000
MKDOCS_CONFIGS = ("mkdocs.yml", "mkdocs.yaml")
PAGE_SUFFIXES = (".md", ".markdown")  # a README GitHub renders that lint reads too
# A static site's config: Hugo's (and its config folder's), MkDocs', Docusaurus', Jekyll's.
_EXTS = ("toml", "yaml", "json")
_HUGO = tuple(f"{name}.{ext}" for name in ("hugo", "config") for ext in _EXTS)
# Hugo's configs in the order read for a setting (the config folder's `markup` file holds
# the `markup` key's settings), each at most this many characters
HUGO_CONFIGS = (
    *(f"config/_default/{name}.{ext}" for name in ("markup", "hugo", "config") for ext in _EXTS),
    *_HUGO,
)
MAX_CONFIG_CHARS = 1_000_000
SITE_CONFIGS = (
    *_HUGO,
    *(f"config/_default/{name}" for name in _HUGO),
    *MKDOCS_CONFIGS,
    *(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts", "cts")),
    "_config.yml",
)
# The names of the files the dialect of a page is read from (`in_site`, `siteurls`): what an
# editor session watches so that a config created, edited or deleted is read again.
SITE_CONFIG_NAMES = frozenset(path.rpartition("/")[2] for path in (*SITE_CONFIGS, *HUGO_CONFIGS))

ReadText = Callable[[str, int], "str | None"]
"""The text of the file at a root-relative path, when it is a regular file of at most the
given number of characters that reads as text (None otherwise)."""
ReadPage = Callable[[str, int], "Document | None"]
"""The Markdown page at a root-relative path read from disk, when it is a regular file of at
most the given number of bytes that reads as text (None otherwise)."""


class TreeIndex(Collection[str]):
    """Every file and folder of the work tree (repo-relative POSIX), with a case-blind lookup.

    `ignored` folders (ignored by git, so not listed file by file) exist with what
    `on_disk` finds in them (given none, with all they could hold); under an `absent` one (a
    submodule not checked out) nothing can be judged. `leads_out` says whether the entry at
    a path (a symlink, which git lists as a file) leads out of the work tree. `unstaged`
    files are there but not in the commit being made (lint runs from a commit hook).
    """

    __slots__ = (
        "_children",
        "_folded",
        "_folded_top",
        "_hugo",
        "_indexed",
        "_mkdocs",
        "_named",
        "_nearest",
        "_site",
        "absent",
        "config_texts",
        "dirs",
        "files",
        "folder_urls",
        "hooked_sites",
        "ignored",
        "leads_out",
        "on_disk",
        "read_text",
        "top",
        "unstaged",
    )

    def __init__(
        self,
        files: Iterable[str],
        ignored: Iterable[str] = (),
        absent: Iterable[str] = (),
        on_disk: Callable[[str], bool] | None = None,
        leads_out: Callable[[str], bool] | None = None,
        unstaged: Iterable[str] = (),
    ) -> None:
        self.on_disk = on_disk
        self.unstaged = frozenset(unstaged)  # files a commit now would leave out (untracked)
        self.leads_out = leads_out
        self.absent = tuple(sorted(p.rstrip("/") for p in absent))
        self.files = frozenset(files)
        dirs: set[str] = set()
        for path in self.files:
            cut = path.rfind("/")
            while cut > 0:
                folder = path[:cut]
                if folder in dirs:
                    break
                dirs.add(folder)
                cut = path.rfind("/", 0, cut)
        self.ignored = tuple(sorted(p.rstrip("/") for p in ignored))
        self.dirs = frozenset(dirs) | frozenset(self.ignored)
        self.top = frozenset(p.split("/", 1)[0] for p in (*self.files, *self.dirs))
        self._folded: dict[str, str | None] | None = None
        self._folded_top: frozenset[str] | None = None
        self._children: dict[str, list[str]] | None = None
        self._indexed: dict[str, WordIndex] = {}  # folder -> its names, indexed when asked
        self._nearest: dict[str, str | None] = {}
        self._named: dict[str, tuple[str, ...]] | None = None
        self._mkdocs: dict[str, bool] = {}  # folder -> whether an MkDocs project holds it
        self._site: dict[str, bool] = {}  # folder -> whether a static site's project holds it
        # folder -> the governing Hugo config's autoHeadingIDType ("" none, None no config)
        self._hugo: dict[str, str | None] = {}
        self.read_text: ReadText | None = None  # how Hugo's configs are read (None: never)
        self.folder_urls: dict[str, str] = {}  # folder -> what serves its pages (`siteurls`)
        self.hooked_sites: dict[str, bool] = {}  # a site's folder -> holds a link render hook
        self.config_texts: dict[str, str | None] = {}  # a site config's text, read once

    def __contains__(self, item: object) -> bool:
        if item in self.files or item in self.dirs:
            return True
        if not isinstance(item, str) or not self._under_ignored(item):
            return False
        return self.on_disk is None or self.on_disk(item)

    def changed(self, files: Iterable[str]) -> TreeIndex:
        """The same tree holding `files` instead (its ignored, absent, `on_disk` and
        `read_text` kept)."""
        tree = TreeIndex(files, self.ignored, self.absent, self.on_disk, self.leads_out)
        tree.read_text = self.read_text
        return tree

    def in_absent(self, path: str) -> bool:
        """Whether `path` is under a submodule that is not checked out."""
        return _under(self.absent, path)

    def leaves_through_link(self, path: str) -> bool:
        """Whether `path` lies below a file of the tree (a symlink: nothing is below a file)
        that leads out of the work tree: where it goes is not the tree's to judge."""
        if self.leads_out is None:
            return False
        cut = path.find("/")
        while cut > 0:
            if path[:cut] in self.files:
                return self.leads_out(path[:cut])
            cut = path.find("/", cut + 1)
        return False

    def _under_ignored(self, path: str) -> bool:
        return _under(self.ignored, path)

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def case_of(self, path: str) -> str | None:
        """The one path of the tree that differs from `path` in case only, else None."""
        if self._folded is None:
            folded: dict[str, str | None] = {}
            for known in (*self.files, *self.dirs):
                key = known.casefold()
                folded[key] = None if key in folded else known
            self._folded = folded
        return self._folded.get(path.casefold())

    @property
    def folded_top(self) -> frozenset[str]:
        """The top-level names, case-folded: a name `case_of` may match is among them."""
        if self._folded_top is None:
            self._folded_top = frozenset(name.casefold() for name in self.top)
        return self._folded_top

    def pages_named(self, name: str) -> tuple[str, ...]:
        """The content files Hugo finds by the base name `name` (case-blind): `x` names
        `a/x.md` and the bundle `a/x/index.md`."""
        if self._named is None:
            named: dict[str, list[str]] = {}
            for known in self.files:
                stem = page_stem(known)
                if stem is not None:
                    named.setdefault(stem, []).append(known)
            self._named = {stem: tuple(sorted(paths)) for stem, paths in named.items()}
        return self._named.get(name.casefold(), ())

    def in_mkdocs(self, path: str) -> bool:
        """Whether the page at `path` is an MkDocs project's: an `mkdocs.yml` (`.yaml`) is
        in its folder or a folder above it (its anchors are Python-Markdown's too)."""
        return self._held(path, MKDOCS_CONFIGS, self._mkdocs)

    def in_site(self, path: str) -> bool:
        """Whether the page at `path` is a static site's: a site config (`SITE_CONFIGS`:
        Hugo, MkDocs, Docusaurus, Jekyll) is in its folder or a folder above it."""
        return self._held(path, SITE_CONFIGS, self._site)

    def in_hugo(self, path: str) -> bool:
        """Whether the page at `path` is a Hugo site's: a Hugo config (`HUGO_CONFIGS`) is
        in its folder or a folder above it."""
        return self._hugo_type(path.rpartition("/")[0]) is not None

    def heading_ids(self, path: str) -> str | None:
        """The `autoHeadingIDType` the Hugo config nearest the page at `path` (in its folder
        or above) sets, lower-cased; None when none governs it or it sets none (GitHub's
        ids, Hugo's default, or a type Hugo does not know). Each config is read once."""
        kind = self._hugo_type(path.rpartition("/")[0])
        return kind if kind in HUGO_ID_TYPES else None

    def _hugo_type(self, folder: str) -> str | None:
        if folder in self._hugo:
            return self._hugo[folder]
        lead = f"{folder}/" if folder else ""
        configs = [lead + name for name in HUGO_CONFIGS if lead + name in self.files]
        found: str | None = None
        if configs:
            found = ""
            read = self.read_text
            for config in configs:
                text = None if read is None else read(config, MAX_CONFIG_CHARS)
                kind = None if text is None else id_type(text)
                if kind is not None:
                    found = kind
                    break
        elif folder:
            found = self._hugo_type(folder.rpartition("/")[0])
        self._hugo[folder] = found
        return found

    def _held(self, path: str, configs: tuple[str, ...], known: dict[str, bool]) -> bool:
        """Whether one of `configs` is in the folder of `path` or above (`known`: by folder)."""
        folder = path.rpartition("/")[0]
        found = known.get(folder)
        if found is None:
            lead = f"{folder}/" if folder else ""
            found = any(lead + name in self.files for name in configs)
            if not found and folder:
                found = self._held(folder, configs, known)
            known[folder] = found
        return found

    def near(self, path: str, guesser: Guesser | None = None) -> str | None:
        """The entry of `path`'s folder whose name is closest to its name (a typo), or None
        when the folder is not in the tree or no name is close. A folder of at most 200
        names is compared whole, as `difflib.get_close_matches` does; a larger one only
        where a typo of the name would stand (`lint/rules/_typo.py`: each call's work is
        bounded). Given no `guesser`, the answer is remembered: the same typo costs nothing
        the next time."""
        # imported when called: the rules package imports every rule, and they import this
        from kenso_git.lint.rules._typo import Guesser

        if guesser is None and path in self._nearest:
            return self._nearest[path]
        folder, _, name = path.rpartition("/")
        names = self._names(folder)
        budget = Guesser() if guesser is None else guesser
        close = None if names is None else budget.closest(name, names, NEAR_CUTOFF)
        found = None if close is None else f"{folder}/{close}" if folder else close
        if guesser is None:
            if len(self._nearest) >= _NEAR_KEPT:
                self._nearest.clear()
            self._nearest[path] = found
        return found

    def _names(self, folder: str) -> WordIndex | None:
        """The names of the entries of `folder`, indexed, or None when it holds none."""
        index = self._indexed.get(folder)
        if index is None:
            from kenso_git.lint.rules._typo import word_index  # see `near`

            names = self._entries(folder)
            if not names:
                return None
            index = self._indexed[folder] = word_index(names)
        return index

    def _entries(self, folder: str) -> list[str]:
        """The names of the files and folders in `folder` (`""`: the root)."""
        if self._children is None:
            children: dict[str, list[str]] = {}
            for known in (*self.files, *self.dirs):
                parent, _, name = known.rpartition("/")
                children.setdefault(parent, []).append(name)
            self._children = children
        return self._children.get(folder, [])

    def readme(self, folder: str) -> str | None:
        """The Markdown README GitHub shows for `folder` (`""`: the root): its one file named
        README (any case, any extension) when that is `.md` or `.markdown`; None when it has
        none, several, or one lint cannot read, and for a root whose `.github/` holds one
        (GitHub shows that one first)."""
        if not folder and self._readmes(".github"):
            return None
        lead = f"{folder}/" if folder else ""
        named = self._readmes(folder)
        if len(named) != 1 or lead + named[0] not in self.files:
            return None
        return lead + named[0] if named[0].casefold().endswith(PAGE_SUFFIXES) else None

    def _readmes(self, folder: str) -> list[str]:
        return [n for n in self._entries(folder) if n.casefold().partition(".")[0] == "readme"]


def _under(folders: tuple[str, ...], path: str) -> bool:
    """Whether `path` lies under one of the sorted `folders`."""
    at = bisect.bisect_right(folders, path) - 1
    return at >= 0 and path.startswith(folders[at] + "/")


class OutsidePages:
    """The anchors of the tree's Markdown pages that are not in the corpus (a checked-out
    submodule's, an ignored folder's, an excluded page's), read from disk the first time a
    link's fragment asks, with the same anchor rules as any page (`text.anchors`); or why
    they are not known: `NOT_A_PAGE`, `UNREAD_PAGE` (unreadable, a symlink, over the size
    cap, binary, past `MAX_OUTSIDE_CHARS`). The fragments into them no page could judge
    are noted per linking document, to be counted as not checked."""

    __slots__ = ("_known", "_left", "_pulling", "_read", "_unjudged")

    def __init__(self, read: ReadPage | None = None) -> None:
        self._read = read
        self._known: dict[str, frozenset[str] | str] = {}
        self._pulling: set[str] = set()  # pages read whose shortcodes may pull in headings
        self._left = MAX_OUTSIDE_CHARS
        # per linking document: (line, column) of the fragment -> why it was not checked
        self._unjudged: dict[str, dict[tuple[int, int], str]] = {}

    def anchors(
        self, path: str, *, toc: bool = False, hugo: str | None = None
    ) -> frozenset[str] | str:
        """The anchors of the page at `path` (with `toc`, MkDocs' too; with `hugo`, those of
        Hugo's `autoHeadingIDType`: `text.anchors`), or the reason they are not known."""
        known = self._known.get(path)
        if known is None:
            if not is_markdown(path):
                known = NOT_A_PAGE
            else:
                doc = None if self._read is None else self._read(path, self._left)
                known = UNREAD_PAGE if doc is None else document_anchors(doc, toc=toc, hugo=hugo)
                self._left -= 0 if doc is None else len(doc.text)
                if doc is not None and pulls_content(doc.body, region_list(doc)):
                    self._pulling.add(path)
            self._known[path] = known
        return known

    def pulls(self, path: str) -> bool:
        """Whether the page at `path`, read for its anchors, calls a shortcode that may pull
        in headings (`text.hugoslug.pulls_content`)."""
        return path in self._pulling

    def unjudged(
        self, source: str, line: int, column: int, path: str, why: str | None = None
    ) -> None:
        """Note the fragment at `line`, `column` of `source` into `path` as not checked: no
        page lint reads is there, or `why` (noted once however often `source` is linted)."""
        known = self.anchors(path) if why is None else why
        reason = known if isinstance(known, str) else UNREAD_PAGE
        self._unjudged.setdefault(source, {})[line, column] = reason

    def unjudged_reasons(self) -> Iterator[str]:
        """Why each fragment noted by `unjudged` was not checked, one reason per fragment."""
        for noted in self._unjudged.values():
            yield from noted.values()

    def forget(self, source: str) -> None:
        """Drop the fragments noted for `source` (linted again after an edit or a fix)."""
        self._unjudged.pop(source, None)

    def clear(self) -> None:
        """Forget what was read and noted (a new listing of the tree: files may have changed)."""
        self._known.clear()
        self._pulling.clear()
        self._unjudged.clear()
        self._left = MAX_OUTSIDE_CHARS

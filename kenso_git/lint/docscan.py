"""One scan of a document's links and code paths (`scan_document`), and the file line and
column of each (`Places`): what the rules of `lint/rules/paths.py` and the language server
read through `lint.targets.LinkFacts`."""

from __future__ import annotations

from kenso_git.records import NamedTuple
from kenso_git.text.anchors import dialect_anchors
from kenso_git.text.hugoslug import pulls_content
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import MAX_REFS
from kenso_git.text.mdlinks import LinkRef
from kenso_git.text.mdlinks import code_paths
from kenso_git.text.mdlinks import first_unchecked
from kenso_git.text.mdlinks import region_list
from kenso_git.text.mdlinks import scan_links
from kenso_git.text.parse import Document


class Scan(NamedTuple):
    """A document's links and code paths in body order; its anchors when known (computed
    when a fragment asks, or kept with a slim document); the file line and column of each
    ref when kept (a slim document's body is cut, so its places are taken from the full one;
    otherwise only the refs a rule reports are placed, see `Places`); the line and column of
    the first link or code path the caps of `text.mdlinks` left out, if any (KS026); with
    its anchors, the ones MkDocs makes besides and the heading ids each of Hugo's
    `autoHeadingIDType`s makes (`text.anchors.dialect_anchors`), and whether a
    shortcode may pull in more (`text.hugoslug.pulls_content`)."""

    refs: tuple[LinkRef, ...]
    anchors: frozenset[str] | None = None
    places: tuple[tuple[int, int], ...] | None = None
    unchecked: tuple[int, int] | None = None
    toc_anchors: frozenset[str] = frozenset()
    hugo_anchors: tuple[tuple[str, frozenset[str]], ...] = ()
    pulls: bool = False


def scan_document(doc: Document, *, with_anchors: bool = False, placed: bool = False) -> Scan:
    """Scan once: every link and code path of `doc`; its anchors and places if asked."""
    spans = region_list(doc)
    refs, stopped = scan_links(doc, spans)
    paths = code_paths(doc, spans)
    unchecked = None
    if stopped >= 0 or len(refs) >= MAX_REFS or len(paths) >= MAX_REFS:  # capped: rare
        offset = first_unchecked(doc, spans)
        if offset is not None:
            unchecked = Places(doc, ()).of(LinkRef(CODE, "", offset))
    if paths:
        refs.extend(paths)
        refs.sort(key=_offset)
    places = None
    if placed:
        at = Places(doc, ())
        places = tuple(at.of(ref) for ref in refs)
    if not with_anchors:
        return Scan(tuple(refs), None, places, unchecked)
    github, toc, site = dialect_anchors(doc)
    pulls = pulls_content(doc.body, spans)
    return Scan(tuple(refs), github, places, unchecked, toc, tuple(site.items()), pulls)


def _offset(ref: LinkRef) -> int:
    return ref.offset


class Places:
    """The 1-based file line and column of a document's refs, asked in body order: the
    newlines are counted once however many refs are placed (linear in the body)."""

    __slots__ = ("_body", "_counted", "_kept", "_line")

    def __init__(self, doc: Document, kept: tuple[tuple[int, int], ...] | None) -> None:
        self._body, self._line, self._counted = doc.body, doc.body_line, 0
        self._kept = kept

    def of(self, ref: LinkRef, index: int = 0) -> tuple[int, int]:
        """(line, column) of `ref`, the `index`-th ref of the scan."""
        if self._kept:
            return self._kept[index]
        body, offset = self._body, ref.offset
        self._line += body.count("\n", self._counted, offset)
        self._counted = offset
        return self._line, offset - body.rfind("\n", 0, offset)

"""The targets of a document a path rule may report, found in one pass (#30).

`LinkFacts.notable` asks, of every link and code path of a document, whether it is missing,
differs in case or has a fragment to check. Most links of a corpus lead where they say: this
pass looks each target up in the classification cache as soon as the `](` scan meets it and
moves on when it leads to a file with no fragment, so such a link costs one dictionary
lookup, with no record made, no code-span check and no image check. Everything else is
what `text.mdlinks.links` and `LinkFacts._classify` make of it, in body order.

The caps of `links` and `code_paths` (`MAX_REFS`, `MAX_LINK_SCANS`) stop a pathological
page part way; a body that reaches `MAX_REFS` links (fewer than `MAX_LINK_SCANS`) or code
paths is left to the two-pass scan, which applies them and notes where they bound (KS026),
so this pass never has to.
"""

from __future__ import annotations

import re

from kenso_git.lint.docscan import Places
from kenso_git.lint.targets import CASE
from kenso_git.lint.targets import FOUND
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import SITE
from kenso_git.lint.targets import SKIPPED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.targets import Placed
from kenso_git.lint.targets import Target
from kenso_git.lint.targets import as_served
from kenso_git.lint.targets import classify
from kenso_git.lint.targets import classify_code
from kenso_git.lint.targets import folder_page
from kenso_git.lint.targets import from_page_url
from kenso_git.lint.targets import is_folder
from kenso_git.text.mdcode import code_spans
from kenso_git.text.mddefs import DEFINITIONS
from kenso_git.text.mdlinks import CODE_OPENING
from kenso_git.text.mdlinks import DEFINITION
from kenso_git.text.mdlinks import HTML_KINDS
from kenso_git.text.mdlinks import HTML_TAG
from kenso_git.text.mdlinks import LINK_TARGET
from kenso_git.text.mdlinks import MAX_REFS
from kenso_git.text.mdlinks import LinkRef
from kenso_git.text.mdlinks import code_paths
from kenso_git.text.mdlinks import destination
from kenso_git.text.mdlinks import html_ref
from kenso_git.text.mdlinks import link_kind
from kenso_git.text.mdlinks import link_ref
from kenso_git.text.mdlinks import region_list
from kenso_git.text.parse import Document

# What a folder's table holds for a target that leads where it says with no fragment (most
# links of a corpus): the one thing a pass asks of it is whether it is this.
_QUIET: Placed = (FOUND, "", None, "")
_SITE_LINK: Placed = (SKIPPED, "", None, SITE)
# `](target)` as `_INLINE` reads it, or a `]` before `:` (a definition's label may end there)
_LINK_OR_COLON = re.compile(r"\](?:\(" + LINK_TARGET.pattern + r"|(?=:))")


def notable_targets(
    facts: LinkFacts, doc: Document
) -> tuple[tuple[Target, ...], dict[str, int]] | None:
    """(the notable targets of `doc`, its skipped links by reason), or None when the
    two-pass scan must answer (a kept scan, or a body that reaches the caps)."""
    if doc.path in facts.scans:
        return None
    found = _Pass(facts, doc)
    spans = region_list(doc)
    for start, end in spans:
        if not found.region(start, end):
            return None
    paths = code_paths(doc, _naming_the_tree(doc.body, spans, facts.tree.folded_top))
    if len(paths) >= MAX_REFS:  # the cap of `code_paths` may bind
        return None
    return _placed_targets(doc, found.kept, paths, facts), found.skipped


class _Pass:
    """One document's pass: the links kept so far and the skipped ones counted."""

    __slots__ = (
        "body",
        "code",
        "facts",
        "folder",
        "here",
        "kept",
        "seen",
        "skipped",
        "source",
        "tried",
    )

    def __init__(self, facts: LinkFacts, doc: Document) -> None:
        self.facts, self.body, self.source = facts, doc.body, doc.path
        self.folder = doc.path.rpartition("/")[0]
        # what a target comes to depends on the source's folder alone: a table per folder
        here = facts._by_folder.get(self.folder)
        if here is None:
            here = facts._by_folder[self.folder] = {}
        self.here = here
        self.kept: list[tuple[LinkRef, Placed]] = []
        self.skipped: dict[str, int] = {}  # a dict: a Counter costs ~1 us to make
        self.seen = 0  # `](` and definitions met: at MAX_REFS the caps of `links` may bind
        self.code = code_spans(doc)  # paired when a link is first met
        self.tried = -1  # the line start last tried as a definition (a region's)

    def region(self, start: int, end: int) -> bool:
        """The inline links, reference definitions and HTML links of `body[start:end]`;
        False when the caps may bind.

        One regex scan finds every `](target)` as `_INLINE.finditer` does and every `]:`
        outside them; the line of a `]:` (one inside a link's title too) is tried as a
        definition as `DEFINITIONS.finditer` would (`^` holds only at a line start inside
        the region), once per line. A `](` that opens no link and holds another in its
        destination or title is text: the scan reads on from inside it, as `links` does.
        """
        body, here = self.body, self.here
        seen, self.tried = self.seen, -1
        pos = covered = start  # the last link kept ends at `covered`
        while pos < end:
            restart = end
            for match in _LINK_OR_COLON.finditer(body, pos, end):
                raw = match[1]
                if raw is None or "]:" in match[0]:
                    defined = self._line_definition(match.start(), start, end)
                    if defined is not None and not self.code.inside(defined.start()):
                        seen += 1
                        if seen >= MAX_REFS:
                            return False
                        self._definition(defined)
                    if raw is None:
                        continue
                if match.start() < covered:
                    continue
                seen += 1
                if seen >= MAX_REFS:
                    return False
                placed = here.get(raw)
                if placed is None or placed[0] in (MISSING, CASE):
                    placed = self._place(raw, placed)
                # a `](` past the first, in the destination or the title, may open a link
                # when this one is text: `[\](a "t](x)")` links to x
                nested = body.find("](", match.start() + 2, match.end()) >= 0
                # a quiet one leads where it says: inside code or not, no finding
                if (placed is _QUIET and not nested) or self._inline(match, start, placed):
                    covered = match.end()
                elif nested:
                    restart = match.start() + 2
                    break
            pos = restart
        self.seen = seen
        return body.find("<", start, end) < 0 or self._tags(start, end)

    def _tags(self, start: int, end: int) -> bool:
        """The HTML `<a href>` and `<img src>` of `body[start:end]`; False when the caps
        may bind."""
        body = self.body
        for match in HTML_TAG.finditer(body, start, end):
            ref = html_ref(body, match, self.code.inside)
            if ref is None:
                continue
            self.seen += 1
            if self.seen >= MAX_REFS:
                return False
            self._kept_if_notable(ref)
        return True

    def _line_definition(self, at: int, start: int, end: int) -> re.Match[str] | None:
        """The definition on the line of `body[at]`, the first time its line is asked."""
        line = self.body.rfind("\n", 0, at) + 1
        if line == self.tried or line < start:
            return None
        self.tried = line
        return DEFINITIONS.match(self.body, line, end)

    def _first(self, raw: str) -> Placed:
        """`raw` (a destination as written) placed, the first time this folder meets it."""
        target = destination(raw)
        placed = _placed(self.source, target, self.facts)
        paged = folder_page(self.source, target, self.facts.tree, placed)
        if paged is not placed or (placed[2] is not None and is_folder(self.facts.tree, placed[1])):
            return paged  # a folder's `#part`: this page's answer (its URL's), not its folder's
        if placed[0] is FOUND and placed[2] is None:
            placed = _QUIET  # leads where it says: inside a code span or not, nothing to say
        if target[:1] != "#":  # a fragment of this document: its own page's
            self.here[raw] = placed
        return placed

    def _place(self, raw: str, placed: Placed | None) -> Placed:
        """`raw` (a destination as written) placed: its folder's answer (`here`'s, or found
        now), and when that is missing, read from the page's URL too."""
        if placed is None:
            # `~/x` (a docs site's root, a third of the docs corpus' links) is always
            # skipped: what `classify` gives it, without the calls or a table entry
            placed = _SITE_LINK if raw[:2] == "~/" else self._first(raw)
        if placed[0] in (MISSING, CASE):  # its folder's answer: the page's URL may find it
            placed = self._from_page_url(destination(raw), placed)
        return placed

    def _from_page_url(self, target: str, placed: Placed) -> Placed:
        """A missing target read from the page's URL folder too (`from_page_url`): the
        answer is this page's, not its folder's (not kept in `here`)."""
        placed = from_page_url(self.source, target, self.facts.tree, placed)
        return _QUIET if placed[0] == FOUND and placed[2] is None else placed

    def _inline(self, match: re.Match[str], start: int, placed: Placed) -> bool:
        """Whether an inline link that may be reported is one: not inside a code span and
        opened by a `[` (the rules of `links`, `text.mdcode`); kept unless quiet or skipped
        (counted)."""
        at = match.start()
        if self.code.inside(at) or (kind := link_kind(self.body, at, start)) is None:
            return False
        if placed[0] == SKIPPED:
            self.skipped[placed[3]] = self.skipped.get(placed[3], 0) + 1
        elif placed is not _QUIET:
            self.kept.append((link_ref(kind, match[1], match.start(1)), placed))
        return True

    def _definition(self, match: re.Match[str]) -> None:
        self._kept_if_notable(link_ref(DEFINITION, match[2], match.start(2)))

    def _kept_if_notable(self, ref: LinkRef) -> None:
        """A definition's or an HTML tag's target: kept when a rule may report it, counted
        when skipped."""
        raw = ref.target
        if raw[:1] == "#":
            placed = _placed(self.source, raw, self.facts)
        else:
            placed = _cached(self.facts, self.source, self.folder, raw)
            html = ref.kind in HTML_KINDS  # raw HTML MkDocs leaves for the page's URL
            placed = as_served(self.source, raw, self.facts.tree, placed, html=html)
        if placed[0] == SKIPPED:
            self.skipped[placed[3]] = self.skipped.get(placed[3], 0) + 1
        elif placed[0] != FOUND or placed[2] is not None:
            self.kept.append((ref, placed))


def _placed(source: str, raw: str, facts: LinkFacts) -> Placed:
    placed = classify(source, raw, facts.tree)
    if placed[0] == CASE:
        placed = (CASE, placed[1], placed[2], facts.tree.case_of(placed[1]) or "")
    return placed


def _cached(facts: LinkFacts, source: str, folder: str, raw: str) -> Placed:
    key = raw if ":" in raw.partition("/")[0] else (folder, raw)  # as `LinkFacts._classify`
    placed = facts._placed.get(key)
    if placed is None:
        placed = facts._placed[key] = _placed(source, raw, facts)
    return placed


def _placed_targets(
    doc: Document,
    kept: list[tuple[LinkRef, Placed]],
    paths: list[LinkRef],
    facts: LinkFacts,
) -> tuple[Target, ...]:
    """The kept links and the notable ones of the code paths `paths`, placed, in body order."""
    tree = facts.tree
    items: list[tuple[LinkRef, tuple[str, str, str | None, str]]] = list(kept)
    for ref in paths:
        code = classify_code(ref.target, tree)
        if code is not None and code[0] != FOUND:
            real = (tree.case_of(code[1]) or "") if code[0] == CASE else ""
            items.append((ref, (code[0], code[1], None, real)))
    if not items:  # most documents
        return ()
    items.sort(key=_offset)
    places = Places(doc, None)
    out = []
    for ref, placed in items:
        line, column = places.of(ref)
        out.append(Target(ref, line, column, *placed))
    return tuple(out)


def _naming_the_tree(
    body: str, spans: list[tuple[int, int]], folded_top: frozenset[str]
) -> list[tuple[int, int]]:
    """The regions of `spans` with an inline code span whose first path segment may name
    a top-level entry of the tree (case-blind): the only ones where `code_paths` can find
    a path `classify_code` places. What follows each backtick run is taken in C (every
    code span's opening is one, whichever run closes it); most regions have no such run."""
    out = []
    for start, end in spans:
        if body.find("`", start, end) < 0:
            continue
        for code in CODE_OPENING.findall(body, start, end):
            if "/" in code and code.partition("/")[0].casefold() in folded_top:
                out.append((start, end))
                break
    return out


def _offset(item: tuple[LinkRef, Placed]) -> int:
    return item[0].offset

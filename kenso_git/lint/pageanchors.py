"""What anchors each page of the corpus makes, as the path rules ask (#30): `PageAnchors` is
the part of `targets.LinkFacts` that answers whether a page makes a `#fragment` (its ATX
headings first, then its whole body in the dialects its site renders: MkDocs' `toc`, Hugo's
`autoHeadingIDType`), which ids a Hugo site renders, and whether a Hugo page's shortcodes may
pull in headings lint cannot read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kenso_git.text.anchors import anchors as document_anchors
from kenso_git.text.anchors import dialect_anchors
from kenso_git.text.anchors import heading_anchors
from kenso_git.text.hugoslug import pulls_content
from kenso_git.text.mdlinks import region_list

if TYPE_CHECKING:
    from kenso_git.lint.docscan import Scan
    from kenso_git.lint.treeindex import OutsidePages
    from kenso_git.lint.treeindex import TreeIndex
    from kenso_git.text.parse import Document


class PageAnchors:
    """The anchor lookups of `targets.LinkFacts`, over the fields it declares."""

    __slots__ = ()

    tree: TreeIndex
    docs: Mapping[str, Document]
    scans: dict[str, Scan]
    pages: OutsidePages
    anchors: dict[str, frozenset[str]]
    _headings: dict[str, frozenset[str]]
    _pulls: dict[str, bool]
    _site_ids: dict[str, frozenset[str]]

    def offers(self, path: str, fragment: str) -> bool | None:
        """Whether the document at `path` makes the anchor `fragment` (None: no page lint
        reads is there, see `OutsidePages.unjudged`). Its ATX headings are asked first;
        the body is read only when they do not make it."""
        doc = self.docs.get(path)
        if doc is not None:
            quick = self._headings.get(path)
            if quick is None:
                toc, hugo = self.tree.in_mkdocs(path), self.tree.heading_ids(path)
                quick = self._headings[path] = heading_anchors(doc, toc=toc, hugo=hugo)
            if fragment in quick:
                return True
        found = self.anchors_of(path)
        return None if found is None else fragment in found

    def anchors_of(self, path: str) -> frozenset[str] | None:
        """The anchors of the page at `path` (outside the corpus: `pages`'), else None."""
        found = self.anchors.get(path)
        if found is not None:
            return found
        toc = self.tree.in_mkdocs(path)  # a fragment may be MkDocs' too
        hugo = self.tree.heading_ids(path)  # or Hugo's, under its config's id type
        kept = self.scans.get(path)
        if kept is not None and kept.anchors is not None:
            more = dict(kept.hugo_anchors).get(hugo or "", frozenset())
            if toc:
                more |= kept.toc_anchors
            if not more:
                return kept.anchors
            found = self.anchors[path] = kept.anchors | more
            return found
        doc = self.docs.get(path)
        if doc is None:
            outside = self.pages.anchors(path, toc=toc, hugo=hugo)
            return outside if isinstance(outside, frozenset) else None
        found = self.anchors[path] = document_anchors(doc, toc=toc, hugo=hugo)
        return found

    def site_ids(self, path: str) -> frozenset[str] | None:
        """The heading ids Hugo renders on the page at `path` under the `autoHeadingIDType`
        its config sets (what a site's reader follows: a suggestion is looked for among
        them first); None when none is set or the page is not in the corpus."""
        hugo = self.tree.heading_ids(path)
        if hugo is None:
            return None
        kept = self.scans.get(path)
        if kept is not None and kept.anchors is not None:
            return dict(kept.hugo_anchors).get(hugo)
        doc = self.docs.get(path)
        if doc is None:
            return None
        found = self._site_ids.get(path)
        if found is None:
            made = dialect_anchors(doc, toc=False, hugo=(hugo,))[2]
            found = self._site_ids[path] = made.get(hugo, frozenset())
        return found

    def pulls_headings(self, path: str) -> bool:
        """Whether the page at `path`, a Hugo site's, calls a shortcode that may pull in
        headings lint cannot read (`text.hugoslug.pulls_content`): a fragment none of its
        anchors makes is not checked."""
        if not self.tree.in_hugo(path):
            return False
        kept = self.scans.get(path)
        if kept is not None and kept.anchors is not None:
            return kept.pulls
        doc = self.docs.get(path)
        if doc is None:
            return self.pages.pulls(path)
        found = self._pulls.get(path)
        if found is None:
            found = self._pulls[path] = pulls_content(doc.body, region_list(doc))
        return found

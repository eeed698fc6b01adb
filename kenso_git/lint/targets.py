"""What lint knows of each document's links and code paths (#30).

`LinkFacts` keeps, per document, its scanned links and anchors and what each target came
to (`lint.placement` places them in the work tree's `TreeIndex`), and git's answer on where
missing targets and moved pages went, so that the rules of `lint/rules/paths.py` share one
scan and a language server can forget one document when it changes; what anchors each page
makes is asked of its base, `lint.pageanchors.PageAnchors`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from functools import cache

from kenso_git.lint.docscan import Places
from kenso_git.lint.docscan import Scan
from kenso_git.lint.docscan import scan_document
from kenso_git.lint.hugoref import is_template
from kenso_git.lint.pageanchors import PageAnchors
from kenso_git.lint.placement import CASE as CASE
from kenso_git.lint.placement import FOUND as FOUND
from kenso_git.lint.placement import LINE_ANCHOR as LINE_ANCHOR
from kenso_git.lint.placement import MISSING as MISSING
from kenso_git.lint.placement import OUTSIDE as OUTSIDE
from kenso_git.lint.placement import SITE as SITE
from kenso_git.lint.placement import SKIPPED as SKIPPED
from kenso_git.lint.placement import UNSTAGED as UNSTAGED
from kenso_git.lint.placement import Placed as Placed
from kenso_git.lint.placement import Target as Target
from kenso_git.lint.placement import as_served as as_served
from kenso_git.lint.placement import classify as classify
from kenso_git.lint.placement import classify_code as classify_code
from kenso_git.lint.placement import folder_page as folder_page
from kenso_git.lint.placement import from_page_url as from_page_url
from kenso_git.lint.placement import is_folder as is_folder
from kenso_git.lint.placement import read_at as read_at
from kenso_git.lint.placement import rewritable as rewritable
from kenso_git.lint.placement import served_readings as served_readings
from kenso_git.lint.relpaths import Rebased
from kenso_git.lint.relpaths import relation_paths
from kenso_git.lint.treeindex import OutsidePages
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.repo.moves import Move
from kenso_git.repo.moves import Origin
from kenso_git.text.links import PathIndex
from kenso_git.text.links import is_glob
from kenso_git.text.links import resolve_links
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import HTML_KINDS
from kenso_git.text.parse import Document
from kenso_git.text.parse import Relation


def _rebased(target: Target) -> bool:
    """Whether `target` is a dead link whose meaning depends on its page's folder."""
    raw = target.ref.target
    return (
        target.status == MISSING
        and target.ref.kind != CODE
        and raw[:1] not in ("/", "#")
        and not is_template(raw)
    )


OnePass = Callable[["LinkFacts", Document], "tuple[tuple[Target, ...], dict[str, int]] | None"]


@cache
def _one_pass() -> OnePass:
    """lint/notable's `notable_targets` (that module imports this one), bound on first use:
    an import statement per document cost ~1 ms a corpus."""
    from kenso_git.lint.notable import notable_targets

    return notable_targets


@dataclass(slots=True)
class LinkFacts(PageAnchors):
    """The tree, git's moves, each document's scan, anchors and targets, the other pages."""

    tree: TreeIndex
    docs: Mapping[str, Document]  # the corpus by path (slim ones have their scan in `scans`)
    paths: PathIndex  # the documents' paths, for relates_to entries (as KS002 resolves them)
    scans: dict[str, Scan]
    _moves: dict[str, Move] = field(default_factory=dict)
    _deleted: dict[str, str] = field(default_factory=dict)  # path -> commit that deleted it
    _settle: Callable[[], None] | None = None  # git's answer for them, while it is awaited
    _drop: Callable[[], None] | None = None  # stops that git
    _asking: set[str] = field(default_factory=set)  # documents naming a missing path
    # where moved documents were, newest first (`repo.moves.Moves.origins`)
    _origins: dict[str, tuple[Origin, ...]] = field(default_factory=dict)
    _sources: set[str] = field(default_factory=set)  # documents with a dead relative link
    anchors: dict[str, frozenset[str]] = field(default_factory=dict)
    _headings: dict[str, frozenset[str]] = field(default_factory=dict)  # `offers`' first try
    _pulls: dict[str, bool] = field(default_factory=dict)  # `pulls_headings`, by path
    _site_ids: dict[str, frozenset[str]] = field(default_factory=dict)  # `site_ids`, by path
    _targets: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    _notable: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    _skipped: dict[str, Mapping[str, int]] = field(default_factory=dict)
    _placed: dict[tuple[str, str] | str, Placed] = field(default_factory=dict)
    _by_folder: dict[str, dict[str, Placed]] = field(default_factory=dict)  # lint/notable.py
    _relations: dict[str, list[tuple[Relation, tuple[str, ...]]]] = field(default_factory=dict)
    pages: OutsidePages = field(default_factory=OutsidePages)

    @classmethod
    def build(
        cls,
        docs: Iterable[Document],
        paths: PathIndex,
        *,
        tree: TreeIndex,
        scans: Mapping[str, Scan] | None = None,
        pages: OutsidePages | None = None,
    ) -> LinkFacts:
        """The facts of `docs` (the whole corpus) judged against the work tree `tree`."""
        by_path = {doc.path: doc for doc in docs}
        return cls(tree, by_path, paths, dict(scans or {}), pages=pages or OutsidePages())

    @property
    def moves(self) -> dict[str, Move]:
        """Where git moved missing paths (git's answer awaited first, when pending)."""
        self.settle()
        return self._moves

    @property
    def origins(self) -> dict[str, tuple[Origin, ...]]:
        """Where git renamed documents of `sources()` from (awaited as `moves`)."""
        self.settle()
        return self._origins

    @property
    def deleted(self) -> dict[str, str]:
        """Missing paths a commit deleted, with its short id (awaited as `moves`)."""
        self.settle()
        return self._deleted

    def await_moves(self, settle: Callable[[], None], drop: Callable[[], None]) -> None:
        """`settle` fills `moves` and `deleted` the first time either is read (git runs
        meanwhile: lint reads them last, see `waits_for_git`); `drop` stops git when they
        will not be read (`drop_moves`)."""
        self._settle, self._drop = settle, drop

    def drop_moves(self) -> None:
        """Stop the git awaited for `moves`, unless read already (idempotent)."""
        drop, self._drop, self._settle = self._drop, None, None
        if drop is not None:
            drop()

    def settle(self) -> None:
        """Wait for git's moves now, if they are awaited (idempotent)."""
        settle, self._settle, self._drop = self._settle, None, None
        if settle is not None:
            settle()

    def quiet(self, doc: Document) -> bool:
        """Whether `doc` has no target a path rule may report, no link past the caps and no
        unanswered relates_to entry: the rules declared `targets_only` have nothing to say
        of it."""
        return (
            not self.notable(doc)
            and self.unchecked(doc) is None
            and not self.missing_relations(doc)
            and doc.path not in self._sources  # a link above the root: KS024 may re-base it
        )

    def unchecked(self, doc: Document) -> tuple[int, int] | None:
        """The line and column of the first link or code path of `doc` the scan's caps left
        out (`text.mdlinks.MAX_REFS`...): no path rule sees it or any after it. None when
        every one is checked (a page the one pass answered never reached the caps)."""
        self.notable(doc)
        scan = self.scans.get(doc.path)
        return None if scan is None else scan.unchecked

    @property
    def awaiting(self) -> bool:
        """Whether git's moves are awaited (`await_moves`, not settled yet)."""
        return self._settle is not None

    def waits_for_git(self, path: str) -> bool:
        """Whether the document at `path` names a missing path while git's moves are
        awaited (its lint reads them)."""
        return self._settle is not None and path in self._asking

    def scan(self, doc: Document) -> Scan:
        found = self.scans.get(doc.path)
        if found is None:
            found = self.scans[doc.path] = scan_document(doc)
        return found

    def targets(self, doc: Document) -> tuple[Target, ...]:
        """Every link and code path of `doc`, classified (code paths outside the tree's first
        segments are left out: they are prose, not paths)."""
        found = self._targets.get(doc.path)
        if found is None:
            found = self._targets[doc.path] = self._classify(doc, every=True)
        return found

    def notable(self, doc: Document) -> tuple[Target, ...]:
        """The targets of `doc` a path rule may report: missing, differing in case, or with
        a fragment to check. Only these are placed (line and column), and the skipped ones
        are counted for `tally`: most links of a corpus lead where they say."""
        found = self._notable.get(doc.path)
        if found is None:
            fused = _one_pass()(self, doc)  # None: the scan is kept or capped
            if fused is None:
                found = self._classify(doc, every=False)
            else:
                found, self._skipped[doc.path] = fused
            self._notable[doc.path] = found
        return found

    def _classify(self, doc: Document, *, every: bool) -> tuple[Target, ...]:
        out = []
        skipped: Counter[str] = Counter()
        scan = self.scan(doc)
        places = Places(doc, scan.places)
        folder = doc.path.rpartition("/")[0]  # a target's meaning depends on it alone
        cache, tree = self._placed, self.tree
        for index, ref in enumerate(scan.refs):
            raw = ref.target
            if ref.kind == CODE:
                code = classify_code(raw, tree)
                if code is not None and (every or code[0] != FOUND):
                    real = (tree.case_of(code[1]) or "") if code[0] == CASE else ""
                    line, column = places.of(ref, index)
                    out.append(Target(ref, line, column, code[0], code[1], None, real))
                continue
            local = raw.startswith("#")
            # a URL or a scheme means the same from every folder (a site-absolute path does
            # not: the content roots tried are the page's folders, `placement.site_page`)
            key = raw if ":" in raw.partition("/")[0] else (folder, raw)
            placed = None if local else cache.get(key)
            if placed is None:
                placed = classify(doc.path, raw, tree)
                if placed[0] == CASE:
                    placed = (CASE, placed[1], placed[2], tree.case_of(placed[1]) or "")
                if not local:
                    cache[key] = placed
            # a directory-style link may be read from the page's URL, a folder's `#part` is
            # its page's (this page, or the folder's README), raw HTML MkDocs leaves as written
            placed = as_served(doc.path, raw, tree, placed, html=ref.kind in HTML_KINDS)
            status = placed[0]
            if status == SKIPPED:
                skipped[placed[3]] += 1
            elif not every and status == FOUND and placed[2] is None:
                continue  # leads where it says, nothing to check
            if every or status != SKIPPED:
                line, column = places.of(ref, index)
                out.append(Target(ref, line, column, *placed))
        if not every:
            self._skipped[doc.path] = skipped
        return tuple(out)

    def missing_relations(self, doc: Document) -> list[tuple[Relation, tuple[str, ...]]]:
        """The relates_to entries of `doc` no document answers (KS002's), each with the
        root-relative paths it may name, in the order KS002 tries them."""
        known = self._relations.get(doc.path)
        if known is not None:
            return known
        if not doc.relations:  # most documents: nothing to resolve
            known = self._relations[doc.path] = []
            return known
        relations = [rel for rel in doc.relations if not is_glob(rel.target) and rel.target]
        found = resolve_links(doc.path, [rel.target for rel in relations], self.paths)
        known = self._relations[doc.path] = [
            (rel, relation_paths(doc.path, rel.target))
            for rel, hit in zip(relations, found, strict=True)
            if hit is None
        ]
        return known

    def missing(self, docs: Iterable[Document]) -> set[str]:
        """The paths the links, code paths and relates_to entries of `docs` name and the tree
        lacks: what git's rename history is asked about (and, of the documents with a dead
        relative link, where they were before a rename: `sources`)."""
        out: set[str] = set()
        for doc in docs:
            notable = self.notable(doc)
            named = [t.path for t in notable if t.status == MISSING]
            for t in filter(_rebased, notable):  # a directory-style link: its site's pages too
                named.extend(
                    p for p in served_readings(doc.path, t.ref.target) if p not in self.tree
                )
            if named and any(_rebased(t) for t in notable):
                self._sources.add(doc.path)
            elif self._skipped.get(doc.path, {}).get(OUTSIDE):
                # a link above the root (or through a symlink out): if git moved the page,
                # it may have been written for an old folder (KS024 re-bases it)
                self._sources.add(doc.path)
                self._asking.add(doc.path)
            for rel, paths in self.missing_relations(doc):
                named.extend(path for path in paths if path and path not in self.tree)
                if not rel.target.startswith("/"):  # read from the page's folder
                    self._sources.add(doc.path)
            if named:
                out.update(named)
                self._asking.add(doc.path)
        return out

    def relation_move(self, paths: Iterable[str]) -> tuple[str, Move] | None:
        """The first of a relates_to entry's paths git moved, with its move."""
        for path in paths:
            move = self.move_of(path)
            if move is not None:
                return path, move
        return None

    def sources(self) -> list[str]:
        """The documents `missing` found with a dead relative link or relates_to entry, in
        path order: if git moved one, they may have been written for an old folder."""
        return sorted(self._sources)

    def moved_source(self, doc: Document, target: Target) -> Rebased | None:
        """Where git moved `doc` from and the path its dead relative link `target` names
        from there, when that path is in the tree (the link was written for the old folder)
        or git moved it too, in the same change or another (the link follows it). Each of
        the page's old places is tried, the newest first (a page moved more than once)."""
        if not _rebased(target):
            return None
        return self.read_at_origins(doc.path, target.ref.target, html=target.ref.kind in HTML_KINDS)

    def read_at_origins(self, path: str, raw: str, *, html: bool) -> Rebased | None:
        """What the link `raw` of the page at `path` names read from the page's old places
        (the newest first): a file of the tree other than the old place itself, or where git
        moved the path it names from there."""
        for origin in self.origins.get(path, ()):
            status, named, _fragment, _reason = read_at(origin.old, raw, self.tree, html=html)
            if status == FOUND and named != origin.old:
                return Rebased(origin, named)
            move = self.move_of(named) if status == MISSING else None
            if move is not None:
                return Rebased(origin, move.new, named, move)
        return None

    def moved_relation(self, doc: Document, rel: Relation) -> Rebased | None:
        """A dead relates_to entry of a moved page read as KS002 would have read it at one
        of the page's old places (the newest first): the document it names from there, or
        where git moved the path it names from there."""
        if rel.target.startswith("/"):  # the same from every folder
            return None
        for origin in self.origins.get(doc.path, ()):
            found = resolve_links(origin.old, [rel.target], self.paths)[0]
            if found is not None and found not in (origin.old, doc.path):
                return Rebased(origin, found)
            moved = self.relation_move(relation_paths(origin.old, rel.target))
            if moved is not None:
                return Rebased(origin, moved[1].new, moved[0], moved[1])
        return None

    def origin_targets(self) -> set[str]:
        """The missing paths the dead relative links and relates_to entries of moved
        documents (`sources`, once git said where they were) name from their old folders,
        that git was not asked about: where they went is what `moved_source` and
        `moved_relation` need of a target moved too."""
        out: set[str] = set()
        for source in self._sources:
            doc = self.docs.get(source)
            if doc is None:
                continue
            for origin in self._origins.get(source, ()):
                for target in filter(_rebased, self.notable(doc)):
                    placed = classify(origin.old, target.ref.target, self.tree)
                    if placed[0] == MISSING:
                        out.add(placed[1])
                for target in self.targets(doc):  # links above the root, read from there
                    if target.status == SKIPPED and target.reason == OUTSIDE:
                        placed = classify(origin.old, target.ref.target, self.tree)
                        if placed[0] == MISSING:
                            out.add(placed[1])
                for rel, _paths in self.missing_relations(doc):
                    if not rel.target.startswith("/"):
                        out.update(relation_paths(origin.old, rel.target))
        asked = self._moves.keys() | self._deleted.keys()
        return {p for p in out if p and not p.startswith("../") and p not in self.tree} - asked

    def move_of(self, path: str) -> Move | None:
        """Where git moved `path`, when the new path is in the tree."""
        move = self.moves.get(path)
        return move if move is not None and move.new in self.tree else None

    def set_tree(self, tree: TreeIndex) -> None:
        """A new listing of the work tree: every target is placed again when asked."""
        self.tree = tree
        self.pages.clear()
        self._targets.clear()
        self._notable.clear()
        self._skipped.clear()
        self._placed.clear()
        self._by_folder.clear()

    def set_paths(self, paths: PathIndex) -> None:
        """The documents' paths changed (one added or removed): relates_to entries are
        resolved again when asked."""
        self.paths = paths
        self._relations.clear()

    def forget(self, path: str) -> None:
        """Drop what is known of `path`'s document (a language server's edit)."""
        self.scans.pop(path, None)
        self.anchors.pop(path, None)
        self._headings.pop(path, None)
        self._pulls.pop(path, None)
        self._site_ids.pop(path, None)
        self._relations.pop(path, None)
        self._targets.pop(path, None)
        self._notable.pop(path, None)
        self._skipped.pop(path, None)
        self.pages.forget(path)

    def tally(self) -> Counter[str]:
        """How many targets of the documents looked at were skipped, by reason."""
        total: Counter[str] = Counter()
        for counted in self._skipped.values():
            total.update(counted)
        total.update(self.pages.unjudged_reasons())
        return total

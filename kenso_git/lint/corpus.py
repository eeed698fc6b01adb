"""Corpus-wide facts (paths, links, categories, labels) and the one place lint meets discovery."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.lint.docscan import Scan
from kenso_git.lint.docscan import scan_document
from kenso_git.lint.mentions import MentionIndex
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.treeindex import OutsidePages
from kenso_git.lint.treeindex import ReadPage
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.text.links import PathIndex
from kenso_git.text.links import resolve_links

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.lint.config import LintConfig
    from kenso_git.lint.deferred import Deferred
    from kenso_git.lint.deferred import Partial
    from kenso_git.repo.discover import SourceFile
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.tree import EarlyListing
    from kenso_git.repo.workspace import Workspace
    from kenso_git.text.parse import Document


@dataclass(frozen=True, slots=True)
class CorpusFacts:
    """What the corpus-wide rules (KS002, KS012, KS014, KS019) judge a file against."""

    paths: PathIndex
    linked: frozenset[str]  # paths that some document's relates_to resolves to
    sources: frozenset[str]  # paths whose relates_to has at least one entry
    categories: Mapping[str, int]  # category -> number of documents using it
    mentions: MentionIndex | None = None  # built only when KS019 is selected
    links: LinkFacts | None = None  # the tree, git's moves, each document's links (#30)
    _close: dict[str, str | None] = field(default_factory=dict, compare=False)
    _by_char: list[_ByChar] = field(default_factory=list, compare=False)  # built when asked

    def close_category(self, category: str, cutoff: float) -> str | None:
        """The most similar other category (difflib ratio >= cutoff, the greater name on a
        tie, as `difflib.get_close_matches` picks), or None."""
        if category not in self._close:
            if not self._by_char:
                self._by_char.append(_ByChar(self.categories))
            self._close[category] = self._by_char[0].closest(category, cutoff)
        return self._close[category]


class _ByChar:
    """Names listed under their characters (a second `e` under `e2`): a name is compared
    only with those sharing enough characters to reach the cutoff, counted in C over its
    characters' lists, where KS014 compared each category used once with every category.
    difflib's `ratio` is at most `quick_ratio`, 2 * (characters shared, repeats counted) /
    (both lengths); `get_close_matches` drops a name failing that same test."""

    __slots__ = ("_lengths", "_lists", "_names")

    def __init__(self, names: Iterable[str]) -> None:
        self._names = list(names)
        self._lists: dict[str, list[str]] = {}
        for name in self._names:
            for key in _char_keys(name):
                self._lists.setdefault(key, []).append(name)
        self._lengths = sorted({len(name) for name in self._names})

    def closest(self, name: str, cutoff: float) -> str | None:
        import difflib

        if 0 < cutoff <= 1:
            need = _shared_needed(len(name), self._lengths, cutoff)
            lists = self._lists
            shared = Counter(chain.from_iterable(lists.get(k, ()) for k in _char_keys(name)))
            others = [n for n, c in shared.items() if c >= need.get(len(n), c + 1) and n != name]
        else:  # a cutoff of 0 takes names sharing nothing; difflib rejects one out of range
            others = [n for n in self._names if n != name]
        best = difflib.get_close_matches(name, others, n=1, cutoff=cutoff)
        return best[0] if best else None


def _char_keys(name: str) -> list[str]:
    """A key per character of `name`, its repeats told apart: `tee` -> `t`, `e`, `e2`."""
    seen: dict[str, int] = {}
    keys = []
    for char in name:
        count = seen[char] = seen.get(char, 0) + 1
        keys.append(char if count == 1 else f"{char}{count}")
    return keys


def _shared_needed(size: int, lengths: Sequence[int], cutoff: float) -> dict[int, int]:
    """Per length of another name, the fewest characters it must share with a name of
    `size` characters for `2.0 * shared / total >= cutoff` (difflib's own float test);
    lengths no sharing can bring there are left out."""
    need = {}
    for length in lengths:
        total = size + length
        if total == 0:
            continue
        least = max(1, math.ceil(cutoff * total / 2))
        while least > 1 and 2.0 * (least - 1) / total >= cutoff:
            least -= 1
        while 2.0 * least / total < cutoff:
            least += 1
        if least <= min(size, length):
            need[length] = least
    return need


def build_facts(
    docs: Sequence[Document],
    *,
    with_mentions: bool = False,
    min_label_chars: int = 4,
    tree: TreeIndex | None = None,
    scans: Mapping[str, Scan] | None = None,
    read_page: ReadPage | None = None,
) -> CorpusFacts:
    """Compute the corpus facts from every document of the repository, in path order.

    `tree` lists the work tree's files: without it the path rules (KS022-KS025) have
    nothing to judge links against and stay silent; `scans` holds the links and anchors of
    documents kept only in their slim form; `read_page` reads a page of the tree outside
    the corpus whose anchor a link asks for (without it, such anchors are not checked).
    """
    paths = PathIndex(doc.path for doc in docs)
    mentions = MentionIndex(docs, min_chars=min_label_chars) if with_mentions else None
    links = None
    if tree is not None:
        pages = OutsidePages(read_page)
        links = LinkFacts.build(docs, paths, tree=tree, scans=scans, pages=pages)
    return CorpusFacts(paths, *_relation_facts(paths, docs), mentions, links)


def stream_facts(
    paths: Sequence[str],
    docs: Iterable[Document],
    *,
    with_mentions: bool = False,
    min_label_chars: int = 4,
) -> CorpusFacts:
    """`build_facts` without a work tree, from `docs` (of `paths`, in that order) read once:
    one document at a time is held, not the whole corpus (an ingest's lint summary of
    100,000 slim documents, #32). The mention index (KS019) needs them all: then they are."""
    index = PathIndex(paths)
    if not with_mentions:
        return CorpusFacts(index, *_relation_facts(index, docs))
    held = list(docs)
    mentions = MentionIndex(held, min_chars=min_label_chars)
    return CorpusFacts(index, *_relation_facts(index, held), mentions)


def _relation_facts(
    paths: PathIndex, docs: Iterable[Document]
) -> tuple[frozenset[str], frozenset[str], Counter[str]]:
    """(the paths some relates_to resolves to, the documents with relates_to entries, the
    documents by category), in one pass over `docs`."""
    linked: set[str] = set()
    sources: set[str] = set()
    categories: Counter[str] = Counter()
    for doc in docs:
        categories[doc.category] += 1
        if not doc.relations:
            continue
        sources.add(doc.path)
        targets = [rel.target for rel in doc.relations]
        linked.update(found for found in resolve_links(doc.path, targets, paths) if found)
    return frozenset(linked), frozenset(sources), categories


# Full parses kept in memory up to this many characters of text; past it, documents are kept
# only as what the corpus facts need and read again when their turn to be linted comes, so a
# large repository's lint does not hold every document's text, body and headings at once.
KEEP_CHARS = 16_000_000


def slim(doc: Document) -> Document:
    """The document without its text, body, headings and frontmatter: what `build_facts` reads
    (path, title, aliases, category, relations) and nothing more."""
    return doc._replace(text="", body="", frontmatter={}, headings=(), fences=(), problems=())


@dataclass(frozen=True, slots=True)
class Selection:
    """The documents to lint and the whole corpus they are judged against."""

    corpus: list[Document]  # every document in path order, slimmed past KEEP_CHARS
    wanted: list[int]  # positions in `corpus` of the documents to lint
    settings: Settings
    sources: dict[str, SourceFile] = field(default_factory=dict)  # of the slimmed documents
    parts: dict[str, Partial] = field(default_factory=dict)  # slimmed ones linted in half
    scans: dict[str, Scan] = field(default_factory=dict)  # links and anchors of slimmed ones
    binary: list[str] = field(default_factory=list)  # picked files ingest skips as binary
    rules: IgnoreRules | None = None  # the ignore rules the walk went by
    # what the staged changes rename away or delete, when the pages linking to it are
    # linted too (the commit gate: `gather_facts` adds them to `wanted`)
    removed: tuple[str, ...] = ()

    def targets(self) -> Iterator[Document | Deferred]:
        """The documents to lint, in path order; a slimmed one comes as its first half
        linted, or is read and parsed again."""
        from kenso_git.lint.deferred import Deferred

        for index in self.wanted:
            doc = self.corpus[index]
            sf = self.sources.get(doc.path)
            if sf is None:
                yield doc
                continue
            part = self.parts.get(doc.path)
            reread = _reader(sf, self.settings, doc)
            yield reread() if part is None else Deferred(part, reread)


def _reader(sf: SourceFile, settings: Settings, slim_doc: Document) -> Callable[[], Document]:
    def reread() -> Document:
        from kenso_git.repo.discover import Skip
        from kenso_git.repo.discover import load_document

        loaded = load_document(sf, settings)
        return slim_doc if isinstance(loaded, Skip) else loaded

    return reread


Warn = Callable[[str], None]
Alone = Callable[["Document", "Document"], "Partial"]  # runner.lint_alone, bound to a config


def select_documents(
    ws: Workspace,
    settings: Settings,
    paths: Sequence[Path],
    *,
    warn: Warn | None = None,
    alone: Alone | None = None,
    binary_found: bool = False,
    staged: bool = False,
) -> Selection:
    """Discover the repository's docs; pick those under `paths` (all when empty; with
    `staged`, the Markdown files the staged changes add or change). A picked document
    slimmed past KEEP_CHARS gets the first half of its lint from `alone` while its full
    parse is at hand. A picked file ingest skips as binary (`text.parse.looks_binary`) is
    listed in `Selection.binary`, and with `binary_found` not warned about: the caller
    reports it (lint's KS021 finding).

    With `staged`, or run from a commit hook (`in_commit_hook`) on given `paths`, the pages
    that link to what the staged changes rename away or delete are to be linted too
    (`Selection.removed`): the commit breaks their links, though they are not in it.

    Raises:
        UsageError: a path does not exist or lies outside the repository.
    """
    from kenso_git.repo.discover import Skip
    from kenso_git.repo.discover import discover
    from kenso_git.repo.discover import load_document
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.status import FileStatus
    from kenso_git.repo.targets import scope_folders

    scope = scope_folders(ws, paths) if paths else [""]
    scope, removed = _staged_scope(ws, scope, staged=staged, given=bool(paths), warn=warn)
    rules = IgnoreRules.for_workspace(ws, settings)
    if warn is not None:
        _warn_unwalked(ws, scope, rules, warn)
    prefixes = tuple(f"{item}/" for item in scope)
    wanted = set(scope)

    def picked(path: str) -> bool:
        return scope == [""] or path in wanted or path.startswith(prefixes)

    def about_picked(message: str) -> None:
        # the whole tree is read for the corpus facts, but `lint FILE` speaks of FILE only
        if warn is not None and picked(message.split(": ", 1)[0].split(", ", 1)[0]):
            warn(message)

    corpus: list[Document] = []
    sources: dict[str, SourceFile] = {}
    parts: dict[str, Partial] = {}
    scans: dict[str, Scan] = {}
    binary: list[str] = []
    linked: dict[str, str] = {}  # a symlinked page -> its real path
    kept = 0
    for sf in sorted(discover(ws, settings, rules=rules, warn=about_picked), key=_by_path):
        if sf.real:
            linked[sf.path] = sf.real
        loaded = load_document(sf, settings)
        if isinstance(loaded, Skip):
            if loaded.reason == FileStatus.BINARY and picked(loaded.path):
                binary.append(loaded.path)
                if binary_found:
                    continue
            about_picked(f"{loaded.path}: {loaded.detail}")
            continue
        kept += len(loaded.text)
        if kept > KEEP_CHARS:
            sources[loaded.path] = sf
            full, loaded = loaded, slim(loaded)
            scans[full.path] = scan_document(full, with_anchors=True, placed=True)
            if alone is not None and picked(full.path):
                parts[full.path] = alone(full, loaded)
        corpus.append(loaded)
    chosen = _at_real_paths(corpus, [i for i, d in enumerate(corpus) if picked(d.path)], linked)
    return Selection(corpus, chosen, settings, sources, parts, scans, binary, rules, removed)


def _staged_scope(
    ws: Workspace, scope: list[str], *, staged: bool, given: bool, warn: Warn | None
) -> tuple[list[str], tuple[str, ...]]:
    """(the scope to lint, what the staged changes rename away or delete, whose linking
    pages are linted too): asked of git with `staged`, or from a commit hook on `given`
    paths; with `staged` and none given, the scope is the Markdown files the staged changes
    add or change; with `staged`, `warn` names those with unstaged changes too."""
    from kenso_git.lint.worktree import in_commit_hook
    from kenso_git.lint.worktree import warn_unstaged

    if not staged and not (given and in_commit_hook()):
        return scope, ()
    from kenso_git.repo.staged import staged_changes
    from kenso_git.repo.workspace import is_markdown

    changes = staged_changes(ws)
    if staged and warn is not None:
        warn_unstaged(ws, changes.changed, warn)
    if staged and not given:
        scope = [path for path in changes.changed if is_markdown(path)]
    return scope, changes.removed


def _at_real_paths(corpus: list[Document], chosen: list[int], linked: dict[str, str]) -> list[int]:
    """`chosen`, each symlinked page whose real page is in the corpus replaced by that page:
    linted once, at its real path. Read from the symlink's folder, its relative links name
    other files than from its own, and `--fix` writes no file through a symlink, so a
    finding there was one no fix could clear."""
    if not linked:
        return chosen
    where = {doc.path: at for at, doc in enumerate(corpus)}
    return sorted({where.get(linked.get(corpus[at].path, ""), at) for at in chosen})


def _warn_unwalked(ws: Workspace, scope: Sequence[str], rules: IgnoreRules, warn: Warn) -> None:
    """Say which named paths the walk never reads: not Markdown, or ignored."""
    from kenso_git.repo.workspace import is_markdown

    for item in scope:
        if item and not is_markdown(item) and (ws.root / item).is_file():
            warn(f"{item}: not a Markdown file (.md, .markdown), not linted")
        elif item and rules.is_ignored(item, is_dir=(ws.root / item).is_dir()):
            # named, yet the walk never goes there: "0 files, all checks passed" hid it
            warn(f"{item}: ignored by .gitignore/.cursorignore/.kensoignore rules, not linted")


def _by_path(sf: SourceFile) -> str:
    return sf.path


PATH_RULES = frozenset({"KS022", "KS023", "KS024", "KS025"})


def facts_for(
    ws: Workspace,
    selection: Selection,
    config: LintConfig,
    *,
    warn: Warn | None = None,
    listing: EarlyListing | None = None,
) -> CorpusFacts:
    """`gather_facts` as a lint configuration asks for them (mentions only when KS019 runs)."""
    return gather_facts(
        ws,
        selection,
        config.select,
        with_mentions="KS019" in config.select,
        min_label_chars=config.thresholds.min_label_chars,
        warn=warn,
        listing=listing,
    )


def start_listing(ws: Workspace, config: LintConfig) -> EarlyListing | None:
    """The work tree's listing, started now when the path rules will need it (`facts_for`
    takes it): git lists the tree while the docs are read and parsed."""
    if not config.select & PATH_RULES:
        return None
    from kenso_git.repo.tree import EarlyListing

    return EarlyListing(ws, renames=bool(config.select & {"KS024", "KS025"}))


def gather_facts(
    ws: Workspace,
    selection: Selection,
    select: frozenset[str],
    *,
    with_mentions: bool,
    min_label_chars: int,
    warn: Warn | None = None,
    listing: EarlyListing | None = None,
) -> CorpusFacts:
    """The corpus facts of `selection`, with the work tree listed and git asked where the
    missing targets of the documents to lint went, when the path rules are selected."""
    from kenso_git.errors import GitError
    from kenso_git.lint.worktree import page_reader

    tree = None
    if select & PATH_RULES:
        from kenso_git.lint.worktree import work_tree
        from kenso_git.repo.tree import list_tree

        try:
            listed = list_tree(ws) if listing is None else listing.result()
            # code paths under a top-level folder git renamed away: asked of the docs linted
            asking = select & {"KS024", "KS025"}
            wanted = [selection.corpus[i] for i in selection.wanted] if asking else []
            tree = work_tree(ws, listed, wanted, selection.scans)
        except GitError as exc:
            if warn is not None:
                warn(f"cannot list the work tree, links and code paths are not checked: {exc}")
    facts = build_facts(
        selection.corpus,
        with_mentions=with_mentions,
        min_label_chars=min_label_chars,
        tree=tree,
        scans=selection.scans,
        read_page=page_reader(ws, selection.settings.max_file_size),
    )
    links = facts.links
    if selection.removed and links is not None:
        from kenso_git.lint.inbound import gone
        from kenso_git.lint.inbound import linking_pages

        chosen = set(selection.wanted)
        paths = gone(selection.removed, links.tree)
        chosen.update(linking_pages(links, selection.corpus, chosen, paths))
        selection.wanted[:] = sorted(chosen)
    if select & {"KS024", "KS025"} and links is not None:
        _ask_git_for_moves(ws, links, selection, listing, warn)
    return facts


def _ask_git_for_moves(
    ws: Workspace,
    links: LinkFacts,
    selection: Selection,
    listing: EarlyListing | None,
    warn: Warn | None,
) -> None:
    """Start git's search for where the missing targets went; `links` reads its answer
    when a rule first asks (lint asks last: the documents that wait for it go last)."""
    from kenso_git.errors import GitError
    from kenso_git.repo.moves import find_moves
    from kenso_git.repo.moves import start_moves

    def failed(exc: GitError) -> None:
        if warn is not None:
            warn(f"cannot read git's renames, moved targets are reported as missing: {exc}")

    missing = links.missing(selection.corpus[i] for i in selection.wanted)
    try:
        staged = None if listing is None else listing.staged
        pending = start_moves(
            ws, missing, links.tree.__contains__, staged=staged, sources=links.sources()
        )
    except GitError as exc:
        failed(exc)
        return

    def settle() -> None:
        try:
            found = pending.result()
        except GitError as exc:
            failed(exc)
            return
        links.moves.update(found.moved)
        links.deleted.update(found.deleted)
        links.origins.update(found.origins or {})
        # a moved page's links read from its old folder may name pages git moved too
        again = links.origin_targets()
        if again:
            try:
                links.moves.update(find_moves(ws, again, links.tree.__contains__).moved)
            except GitError as exc:
                failed(exc)

    links.await_moves(settle, pending.discard)

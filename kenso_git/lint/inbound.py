"""The pages that link to what a commit renames away or deletes.

A commit that renames or deletes a page breaks every link, relates_to entry and code path
naming it in pages the commit does not hold: the commit gate (`lint --staged`, or lint run
from a commit hook on the staged files) lints those pages too, as a lint of the whole tree
would. Only the pages whose text names a removed file or folder are placed (`LinkFacts`),
so the cost follows the commit, not the corpus.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Sequence
from urllib.parse import quote

from kenso_git.lint.targets import CASE
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import UNSTAGED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.text.parse import Document

MAX_NEEDLES = 64  # names looked for in each page's text; past it every page is placed


def gone(removed: Iterable[str], tree: TreeIndex) -> frozenset[str]:
    """The `removed` paths the tree lacks (or holds untracked, out of the commit), with each
    folder of theirs the tree lacks too (a link to a folder renamed whole breaks with it)."""
    out: set[str] = set()
    for path in removed:
        if path in tree and path not in tree.unstaged:  # back, or left untracked (`rm --cached`)
            continue
        out.add(path)
        folder = path.rpartition("/")[0]
        while folder and folder not in out and folder not in tree:
            out.add(folder)
            folder = folder.rpartition("/")[0]
    return frozenset(out)


def linking_pages(
    links: LinkFacts, corpus: Sequence[Document], skip: Collection[int], paths: frozenset[str]
) -> list[int]:
    """The positions in `corpus` (but those in `skip`) of the documents with a link, a
    relates_to entry or a code path that names one of `paths` (`gone`)."""
    needles = _needles(paths)
    out = []
    for at, doc in enumerate(corpus):
        if at in skip or (needles and not _names_any(links, doc, needles)):
            continue
        if _links_to(links, doc, paths):
            out.append(at)
    return out


def _needles(paths: frozenset[str]) -> tuple[str, ...]:
    """The last part of each path as a page may write it (as it is, percent-escaped); none
    (every page is placed) when they are too many to look for."""
    names = {path.rpartition("/")[2] for path in paths}
    names |= {quote(name) for name in names}
    return () if len(names) > MAX_NEEDLES else tuple(sorted(names))


def _names_any(links: LinkFacts, doc: Document, needles: tuple[str, ...]) -> bool:
    """Whether the text of `doc` (a slim one's: its kept scan's targets and relates_to
    entries) holds one of `needles`."""
    text = doc.text
    if not text:
        scan = links.scans.get(doc.path)
        refs = () if scan is None else scan.refs
        text = "\n".join([*(ref.target for ref in refs), *(rel.target for rel in doc.relations)])
    return any(needle in text for needle in needles)


def _links_to(links: LinkFacts, doc: Document, paths: frozenset[str]) -> bool:
    for target in links.notable(doc):
        # CASE: a rename by case alone (`a.md` -> `A.md`) leaves the old name case-blind found
        if target.status in (MISSING, CASE, UNSTAGED) and target.path.rstrip("/") in paths:
            return True
    return any(not paths.isdisjoint(named) for _rel, named in links.missing_relations(doc))

"""What `get_doc` says of its page's age: the commit that last changed the indexed text
(#29), said only of that text.

A page edited since the last sync whose sync fails (a read-only index, a full disk) is
answered as the work tree holds it, flagged stale (`api/reads.py`); the index's record then
names the commit of the text the index holds, not of the text shown, which no commit may
hold yet. Such an answer carries no `last_commit` (nor `uncommitted`): `stale` and its
reason say the text is the work tree's, not yet indexed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenso_git.errors import DocumentNotFoundError

if TYPE_CHECKING:
    from kenso_git.api.results import DocResult
    from kenso_git.kb import KnowledgeBase

ELLIPSIS = "..."  # what a cut content ends with (`get_doc`'s `max_length`)


def date_doc(kb: KnowledgeBase, rel: str, doc: DocResult, *, stale: bool) -> None:
    """Add to `doc`, `kb`'s `get_doc` answer of `rel`, the last commit of its indexed text
    (or `uncommitted: true`) when `doc` shows that text: always when the answer is fresh;
    when it is `stale`, only if its text and metadata are the index's, as cut."""
    age = kb.last_commits([rel]).get(rel)
    if age is None or (stale and not _shows_indexed_text(kb, rel, doc)):
        return
    doc.update(age.to_dict())  # type: ignore[typeddict-item]


def _shows_indexed_text(kb: KnowledgeBase, rel: str, doc: DocResult) -> bool:
    """Whether `doc` is what the index holds for `rel`, cut where `doc` was cut."""
    content = doc["content"]
    cut = len(content) - len(ELLIPSIS) if doc.get("truncated") else None
    if cut is not None and (cut < 1 or not content.endswith(ELLIPSIS)):
        return False
    try:
        indexed = kb.get_doc(rel, max_length=cut, in_work_tree=False)
    except DocumentNotFoundError:
        return False  # gone from the index since: no record speaks for this text
    return indexed == doc

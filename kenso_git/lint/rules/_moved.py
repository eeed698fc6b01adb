"""What KS024 says of links git's renames broke (#30): a dead link whose target git moved
(`target_move`), re-pointed from the folder its page's dialect reads it from (`relinked`),
and a moved page's own relative links and relates_to entries written for its old folder
(`rebased_link`, `rebased_climbing`, `rebased_relation`)."""

from __future__ import annotations

from collections.abc import Iterator

from kenso_git.lint.hugoref import is_template
from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.relink import rewrite
from kenso_git.lint.relpaths import Rebased
from kenso_git.lint.relpaths import climbs_out
from kenso_git.lint.relpaths import relative_to
from kenso_git.lint.rules._entryedit import entry_edit
from kenso_git.lint.rules._linkedit import link_edit
from kenso_git.lint.rules._linkedit import path_part
from kenso_git.lint.rules._linkedit import what
from kenso_git.lint.rules._where import column_in_line
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import OUTSIDE
from kenso_git.lint.targets import SKIPPED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.targets import Target
from kenso_git.lint.targets import served_readings
from kenso_git.repo.moves import Move
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import HTML_KINDS
from kenso_git.text.parse import Document
from kenso_git.text.parse import Relation


def rebased_link(doc: Document, target: Target, ctx: RuleContext) -> Finding | None:
    """KS024 of a relative link that is dead because git moved its page: from the page's
    old folder it names a file of the tree, or one git moved too (in the same change or
    another), and the fix names where that file is now from the page's new folder."""
    facts = ctx.corpus.links
    moved = None if facts is None else facts.moved_source(doc, target)
    return None if moved is None or facts is None else _rebased_finding(doc, target, moved, facts)


def rebased_climbing(doc: Document, facts: LinkFacts) -> Iterator[Finding]:
    """KS024 of a moved page's relative links that climb above the repository root from
    its new folder (skipped as outside the repository, not dead: `../../img/a.png` after
    `docs/guide/p.md` moved to `docs/p.md`), re-based as `_rebased_link` re-bases a dead one
    when, read from an old folder, one names a file of the tree or one git moved."""
    if facts.awaiting and not facts.waits_for_git(doc.path):
        return  # git's answer is not read for a page that names nothing missing
    if not facts.origins.get(doc.path):
        return
    for target in facts.targets(doc):
        raw = target.ref.target
        if (
            target.status != SKIPPED
            or target.reason != OUTSIDE
            or target.ref.kind == CODE
            or is_template(raw)
            or not climbs_out(doc.path, raw)
        ):
            continue
        moved = facts.read_at_origins(doc.path, raw, html=target.ref.kind in HTML_KINDS)
        if moved is not None:
            yield _rebased_finding(doc, target, moved, facts)


def target_move(doc: Document, target: Target, facts: LinkFacts) -> tuple[str, Move] | None:
    """(the path, where git moved it) of what the dead link `target` names: its path, or
    for a directory-style link a page or folder a site serves at it (`served_readings`)."""
    if target.status != MISSING:
        return None
    link = target.ref.kind != CODE
    for path in (target.path, *(served_readings(doc.path, target.ref.target) if link else ())):
        move = facts.move_of(path)
        if move is not None:
            return path, move
    return None


def relinked(doc: Document, target: Target, new: str, facts: LinkFacts) -> str | None:
    """The link `target` re-pointed at `new` from the folder its page's dialect reads it
    from (`relink.rewrite`), its `?query#fragment` kept; None when no path leads there."""
    path, rest = path_part(target.ref.target)
    html = target.ref.kind in HTML_KINDS
    fixed = rewrite(doc.path, path, new, facts.tree, html=html)
    return None if fixed is None else fixed + rest


def fixing(target: Target, fixed: str | None) -> str:
    if fixed is None:  # no path written from this page leads there as lint reads links
        return f"edit the {what(target)} by hand"
    return f"lint --fix rewrites the {what(target)}"


def _rebased_finding(doc: Document, target: Target, moved: Rebased, facts: LinkFacts) -> Finding:
    raw = target.ref.target
    fixed = relinked(doc, target, moved.real, facts)
    also = "" if moved.move is None else f", and {moved.move.describe(moved.was)}"
    how = f'lint --fix rewrites "{raw}" to "{fixed}"' if fixed else fixing(target, fixed)
    message = (
        f"{moved.origin.describe(doc.path)}{also}; the {what(target)} was written for its "
        f"old folder: {how}"
    )
    edit = None if fixed is None else link_edit(target, fixed)
    return Finding(target.line, target.column, message, raw, edit)


def rebased_relation(doc: Document, rel: Relation, ctx: RuleContext) -> Finding | None:
    """KS024 of a relates_to entry that is dead because git moved its page: read from the
    page's old folder it names a document, or a path git moved too, as links are re-based."""
    facts = ctx.corpus.links
    moved = None if facts is None else facts.moved_relation(doc, rel)
    if moved is None:
        return None
    fixed = relative_to(doc.path, rel.target, moved.real, link=False)
    also = "" if moved.move is None else f", and {moved.move.describe(moved.was)}"
    message = (
        f"relates_to: {moved.origin.describe(doc.path)}{also}; the entry was written for its "
        f'old folder: lint --fix rewrites "{rel.target}" to "{fixed}"'
    )
    column = column_in_line(doc, rel.line, rel.target)
    edit = entry_edit(doc, rel.line, column, rel.target, fixed)
    return Finding(rel.line, column, message, rel.target, edit)

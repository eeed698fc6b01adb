"""The rule registry: every rule of every family, sorted by id, and kenso's emission order."""

from __future__ import annotations

from kenso_git.lint.model import Rule
from kenso_git.lint.rules import headings
from kenso_git.lint.rules import links
from kenso_git.lint.rules import metadata
from kenso_git.lint.rules import prose
from kenso_git.lint.rules import structure

_FAMILIES = (structure, headings, metadata, links, prose)

ALL_RULES: tuple[Rule, ...] = tuple(
    sorted((r for family in _FAMILIES for r in family.RULES), key=lambda r: r.id)
)
RULES_BY_ID: dict[str, Rule] = {r.id: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in ALL_RULES}

# The order findings of one file are listed in (kenso's JSON `issues` order). KS017 and KS002
# share a slot: they come per relates_to entry, in entry order.
EMISSION_ORDER: tuple[tuple[str, ...], ...] = (
    ("KS001",),
    ("KS017", "KS002"),
    ("KS010",),
    ("KS003",),
    ("KS004",),
    ("KS005",),
    ("KS006",),
    ("KS007",),
    ("KS008",),
    ("KS012",),
    ("KS014",),
    ("KS018",),
    ("KS019",),
    ("KS009",),
    ("KS011",),
    ("KS013",),
    ("KS015",),
    ("KS016",),
)

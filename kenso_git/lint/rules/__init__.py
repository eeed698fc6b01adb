"""The rule registry: every rule of every family, sorted by id, and the order findings come in."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from kenso_git.lint.model import Rule
from kenso_git.lint.rules import headings
from kenso_git.lint.rules import links
from kenso_git.lint.rules import metadata
from kenso_git.lint.rules import paths
from kenso_git.lint.rules import prose
from kenso_git.lint.rules import reading
from kenso_git.lint.rules import structure

_FAMILIES = (reading, structure, headings, metadata, links, paths, prose)
_DECLARED: tuple[Rule, ...] = tuple(r for family in _FAMILIES for r in family.RULES)

ALL_RULES: tuple[Rule, ...] = tuple(sorted(_DECLARED, key=lambda r: r.id))
RULES_BY_ID: dict[str, Rule] = {r.id: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in ALL_RULES}


def _emit_groups(rules: Iterable[Rule]) -> tuple[tuple[Rule, ...], ...]:
    ordered = sorted(rules, key=lambda r: r.emit)  # stable: a shared slot keeps declaration order
    return tuple(tuple(group) for _, group in groupby(ordered, key=lambda r: r.emit))


# The order findings of one file are listed in (kenso's JSON `issues` order), one group per
# `emit` slot. Rules that share a slot (KS017 and KS002: per relates_to entry, in entry order)
# have their findings merged by position; on a tie the rule declared first in its family wins.
EMISSION_GROUPS: tuple[tuple[Rule, ...], ...] = _emit_groups(_DECLARED)

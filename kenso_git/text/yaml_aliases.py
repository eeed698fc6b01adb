"""Weigh a composed YAML node graph before anything is built from it (alias bombs).

A YAML alias (`*name`) repeats its anchor's whole value; nested aliases multiply, so a few
hundred bytes can stand for gigabytes (a "billion laughs"). PyYAML's composer shares the
anchored node instead of copying it, so the graph itself stays small: weighing it with one
memo per node costs time linear in the block, and a document may then expand to at most
`FACTOR` times its own size (plus some slack for honest reuse), so the work that follows
(building the values, joining tags into text) stays linear too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from yaml.nodes import Node

FACTOR = 4
SLACK = 100_000
ALIAS_BOMB = (
    "frontmatter yaml aliases (`*name`) expand to far more text than the file holds, so the "
    "fields that use anchors or aliases were not read: write the values out instead"
)


def _children(node: Node) -> list[Node]:
    from yaml.nodes import MappingNode
    from yaml.nodes import SequenceNode

    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _weigh(node: Node, weights: dict[int, int], budget: int) -> int:
    """Expanded size of `node` (scalars count their text), capped at budget + 1; a cycle
    (an alias of an enclosing node) counts as endless."""
    from yaml.nodes import ScalarNode

    # An explicit stack, not recursion: nesting is as deep as the input allows.
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        key = id(current)
        if done:
            total = 1 + sum(weights[id(child)] for child in _children(current))
            weights[key] = min(budget + 1, total)
            continue
        seen = weights.get(key)
        if seen == -1:
            return budget + 1
        if seen is not None:
            continue
        if isinstance(current, ScalarNode):
            weights[key] = 1 + len(str(current.value))
            continue
        weights[key] = -1  # being weighed
        stack.append((current, True))
        stack.extend((child, False) for child in _children(current))
    return weights[id(node)]


def alias_bomb_line(root: object, size: int) -> int | None:
    """The 0-based block line of the top-level key whose value takes the document past its
    budget (`FACTOR * size + SLACK`), or None when the whole document is within it."""
    from yaml.nodes import MappingNode
    from yaml.nodes import Node

    if not isinstance(root, Node):
        return None
    budget = FACTOR * size + SLACK
    weights: dict[int, int] = {}
    if not isinstance(root, MappingNode):
        return int(root.start_mark.line) if _weigh(root, weights, budget) > budget else None
    total = 0
    for key_node, value_node in root.value:
        total += _weigh(key_node, weights, budget) + _weigh(value_node, weights, budget)
        if total > budget:
            return int(key_node.start_mark.line)
    return None

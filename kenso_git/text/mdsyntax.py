"""The pieces of CommonMark's link syntax the link scanners share (`text.mdlinks`, and
`text.mddefs` for reference definitions): a destination, bare or in `<...>`, a title, the
line endings a link may hold, and what a line starts that ends a paragraph. Possessive
patterns: a failed match costs what it read.
"""

from __future__ import annotations

PAREN_DEPTH = 8  # parentheses nested in a bare destination (cmark's 32: 4x slower on `](a(`)
# A site generator's template in a destination, spaces and all (`{{< relref "x.md" >}}`,
# `/docs/{{< param version >}}/api`): Hugo expands it before the Markdown is read.
TEMPLATE = r"\{\{<[^\n{}]{0,300}?>\}\}|\{\{%[^\n{}]{0,300}?%\}\}"
# Characters of a bare destination outside parentheses, a run at a time: no space or
# control character; a template; a backslash with the ASCII punctuation it escapes (`\(`
# opens nothing).
_CHAR = rf"(?:[^\x00-\x20()\\\x7f{{]++|{TEMPLATE}|\{{|\\[!-/:-@\[-`{{-~]?)"


def _bare(depth: int) -> str:
    """A bare destination's pattern: characters and balanced parentheses `depth` deep."""
    unit = _CHAR
    for _ in range(depth):
        unit = rf"(?:{_CHAR}|\({unit}*+\))"
    return rf"(?!<)(?:{unit})++"


# A link destination (group 1, as written): `<...>` (escapes, no line break, no bare `<`
# or `>`) or bare. Possessive: read once as CommonMark reads it, never backtracked into, so
# a failed match costs what it read (a `(` the scan reads opens a level: at most
# `PAREN_DEPTH` overlapping failures read any character).
DESTINATION = rf"(<(?:[^<>\\\r\n{{]++|{TEMPLATE}|\{{|\\[^\r\n])++>|{_bare(PAREN_DEPTH)})"
# The tag names of an HTML block that may interrupt a paragraph (CommonMark 4.6, kinds 1
# and 6), case-blind
HTML_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd"
    "|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset"
    "|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol"
    "|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title"
    "|tr|track|ul"
)
# What a line (after up to three spaces) starts that ends the paragraph before it, a list
# item aside: a quote, a `[` (a definition may start there, and the one-pass scan of
# `lint/notable` would not try a line a link runs on to), an ATX heading, a thematic
# break, a code fence, an HTML block of kinds 1 to 6
BLOCK_START = (
    r"[>\[]|#{1,6}(?:[ \t\n]|$)"
    r"|(?:(?:\*[ \t]*+){3,}+|(?:-[ \t]*+){3,}+|(?:_[ \t]*+){3,}+)(?:\n|$)"
    r"|`{3,}+[^`\n]*+(?:\n|$)|~{3,}"
    r"|<(?:!--|\?|![A-Za-z]|!\[CDATA\[|(?i:script|pre|style|textarea)(?:[ \t>\n]|$)"
    rf"|/?(?i:{HTML_NAMES})(?:[ \t>\n]|/>|$))"
)
# A line ending inside a link (CommonMark 6.3 allows one between its parts, and titles
# span lines): not one the paragraph ends at (a blank line, a block start, a list item
# that interrupts it): a link holds no such line.
NEWLINE = (
    rf"\n(?![ \t]*(?:\n|$)|[ \t]{{0,3}}(?:{BLOCK_START}"
    r"|[-+*][ \t]+[^ \t\n]|1[.)][ \t]+[^ \t\n]))"
)
GAP = rf"[ \t]*+(?:{NEWLINE}[ \t]*+)?"  # spaces and tabs, and at most one line ending
# A link title: `"..."`, `'...'` or `(...)` (no unescaped `(` inside), backslash escapes
# and line endings in it, at most 512 characters or escapes read (a title never closed
# costs at most that much)
TITLE = "|".join(
    rf"{left}(?:[^{inner}\\\n]|\\[^\n]|\\|{NEWLINE}){{0,512}}+{right}"
    for left, inner, right in (('"', '"', '"'), ("'", "'", "'"), (r"\(", "()", r"\)"))
)

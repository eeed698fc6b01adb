"""The fix of a relates_to entry's path that keeps its frontmatter valid.

A path is written into YAML or TOML as the entry was: inside the entry's quotes with a
quote in the new path escaped as that style escapes it, or, for a plain YAML scalar, as
it is when YAML reads it back unchanged, else single-quoted. `path: Issue #42.md` would
read as `Issue` (the rest a comment), `'it's.md'` and `@team.md` would not parse.
"""

from __future__ import annotations

from kenso_git.lint.model import Edit
from kenso_git.text.lines import line_starts
from kenso_git.text.parse import Document


def entry_edit(doc: Document, line: int, column: int, old: str, new: str) -> Edit:
    """The edit replacing the entry path `old` (at 1-based `line`, `column`) with `new`."""
    starts = line_starts(doc.text)
    if not 1 <= line <= len(starts):
        return Edit(line, column, old, new)
    stop = starts[line] - 1 if line < len(starts) else len(doc.text)
    text = doc.text[starts[line - 1] : stop]
    at = column - 1
    before = text[at - 1] if at > 0 else ""
    after = text[at + len(old)] if at + len(old) < len(text) else ""
    toml = doc.text.startswith("+++")
    if before == after == '"':  # YAML's double-quoted style and TOML's basic string agree
        return Edit(line, column, old, new.replace("\\", "\\\\").replace('"', '\\"'))
    if before == after == "'":
        if not toml:
            return Edit(line, column, old, new.replace("'", "''"))
        if "'" not in new:  # a TOML literal string holds anything but `'`
            return Edit(line, column, old, new)
        basic = '"' + new.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return Edit(line, column - 1, f"'{old}'", basic)
    if toml or _plain(new, flow=_in_flow(text[:at])):
        return Edit(line, column, old, new)
    return Edit(line, column, old, "'" + new.replace("'", "''") + "'")


def _in_flow(head: str) -> bool:
    """Whether the text before a scalar leaves it inside a flow collection (`[...`, `{...`)."""
    depth = 0
    for char in head:
        if char in "[{":
            depth += 1
        elif char in "]}" and depth:
            depth -= 1
    return depth > 0


def _plain(value: str, *, flow: bool) -> bool:
    """Whether YAML reads `value`, written plain, back as this very string."""
    import yaml  # only when a fix is made: the lint path does not load it otherwise

    try:
        read = yaml.safe_load(f"[{value}]" if flow else f"k: {value}")
    except yaml.YAMLError:
        return False
    return bool(read == ([value] if flow else {"k": value}))

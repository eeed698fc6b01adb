"""Read the JSON-with-comments files that VS Code, Cursor and Gemini CLI accept.

Only reading: comments cannot be kept through `json.dumps`, so `connect --write` leaves a
file that needs this reader untouched and prints the entry to paste instead.
"""

from __future__ import annotations

import json
import re

BOM = "\ufeff"
# Strings are matched whole (and kept), so `//` or `,}` inside a string is never touched.
# Linear: each alternation consumes input. Comments go first, so that a comment between a
# trailing comma and the bracket does not hide the comma.
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)  # unclosed: to the end
_TRAILING = re.compile(_STRING + r"|,(?=\s*[\]}])")


def _keep_strings(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.startswith('"'):
        return token
    return "\n" * token.count("\n")  # keep line numbers for error messages


def strip_jsonc(text: str) -> str:
    """`text` without `//` and `/* */` comments and trailing commas (strings untouched)."""
    return _TRAILING.sub(_keep_strings, _COMMENTS.sub(_keep_strings, text))


def loads(text: str) -> tuple[object, bool]:
    """Parse JSON or JSONC; the flag says whether comments or trailing commas were needed.

    Raises:
        json.JSONDecodeError: the text is neither.
    """
    text = text.removeprefix(BOM)
    try:
        return json.loads(text), False
    except json.JSONDecodeError:
        stripped = strip_jsonc(text)
        if stripped == text:
            raise
        return json.loads(stripped), True

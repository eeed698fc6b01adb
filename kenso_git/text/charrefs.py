"""Character references (CommonMark 2.5): `&lt;`, `&#60;` and `&#x3C;` all stand for `<`.

What a link destination resolves (`text.mdlinks.destination`) and what a search question
is read as (signal `charrefs`, `search/ranked/cascade.py`): a question pasted from a page's
source or its frontmatter (`description: "The &lt;add&gt; element ..."`) means the
characters the page shows, not the words `lt` and `gt`.

A name HTML does not define, or a code point markdown-it (the CommonMark reader the tests
compare with) does not decode (a control character, a surrogate, a noncharacter), stays as
written. `html.entities` (about 2,200 names) is imported on the first named reference only:
the search path's import budget.
"""

from __future__ import annotations

import re

# A character reference: hexadecimal (group 1), decimal (2) or named (3)
REFERENCE = r"&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));"
_REFERENCE = re.compile(REFERENCE)


def resolved(text: str) -> str:
    """`text` with each character reference replaced by the character it names; linear
    in `text` (one scan, one dictionary lookup per reference)."""
    return _REFERENCE.sub(reference, text) if "&" in text else text


def reference(match: re.Match[str]) -> str:
    """What one `REFERENCE` match (groups hexadecimal, decimal and name, after any groups
    of an enclosing pattern) stands for; an unknown name or an undecoded code point stays
    as written."""
    hexadecimal, decimal, name = match.groups()[-3:]
    if name is not None:
        from html.entities import html5

        return html5.get(name + ";", match[0])
    code = int(hexadecimal, 16) if hexadecimal is not None else int(decimal)
    return chr(code) if decoded(code) else match[0]


def decoded(code: int) -> bool:
    """Whether a numeric character reference to `code` is decoded."""
    low = code & 0xFFFF
    return not (
        code > 0x10FFFF
        or 0xD800 <= code <= 0xDFFF
        or 0xFDD0 <= code <= 0xFDEF
        or low in (0xFFFE, 0xFFFF)
        or code <= 0x08
        or code == 0x0B
        or 0x0E <= code <= 0x1F
        or 0x7F <= code <= 0x9F
    )

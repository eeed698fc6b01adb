"""Writing systems that put no space between words (Chinese, Japanese).

A rule that counts a heading's words by its spaces sees one word in any heading of these
scripts; Korean, written with spaces, counts as Latin text does.
"""

from __future__ import annotations

import re

# Han (with extension A and the compatibility block), Hiragana, Katakana (with its phonetic
# extensions and the half-width forms), and Han extensions B onwards.
_UNSPACED = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f]"
)


def unspaced(text: str) -> bool:
    """Whether `text` holds a Han, Hiragana or Katakana character: its words may not be
    separated by spaces, so counting spaces does not count them."""
    return _UNSPACED.search(text) is not None

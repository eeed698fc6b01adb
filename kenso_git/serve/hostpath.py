"""Host paths out of what an agent is told: the checkout's absolute path made repo-relative,
and the recorded root of an index whose root is gone left unnamed (#26).

A root is cut only where it ends at a folder boundary: `/X/repo-other/docs/p.md` (another
folder, which an agent may name in a refused path) is not `/X/repo` followed by `-other`,
and is echoed as written rather than as `.-other/docs/p.md`.
"""

from __future__ import annotations

import os
import re

LOST_ROOT = "(outside this checkout)"
# What may follow a path in a message without continuing its last name: a separator, the
# end, white space, quotes and brackets, punctuation, and a dot that ends a sentence.
_ENDS = r"(?=$|[\s'\"`()\[\]{}<>,;:]|\.(?:$|[\s'\"`()\[\]{}<>,;:]))"


def _cut(text: str, root: str, inside: str, whole: str) -> str:
    """`text` with `root/` as `inside` and `root` ending a name as `whole`."""
    if not root or root == os.sep:
        return text  # the file system's root ends no folder name: nothing to cut safely
    text = text.replace(root + os.sep, inside)
    return re.sub(re.escape(root) + _ENDS, whole.replace("\\", r"\\"), text)


def shown(text: object, root: str, lost: str | None) -> str:
    """`text` with `root` (the checkout) made repo-relative (`root/x` as `x`, `root` alone
    as `.`) and `lost` (a gone root) as `(outside this checkout)`, each only at a folder
    boundary; the longer one first, as it may hold the other."""
    out = str(text)
    if lost is not None and len(lost) >= len(root):
        out = _cut(out, lost, LOST_ROOT + os.sep, LOST_ROOT)
    out = _cut(out, root, "", ".")
    if lost is not None and len(lost) < len(root):
        out = _cut(out, lost, LOST_ROOT + os.sep, LOST_ROOT)
    return out

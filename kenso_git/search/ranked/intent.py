"""Signal `howto` (#31, twenty-first round): a question that asks how to do something
favours the pages that say, by their file name, that they show how.

A docs tree of task pages beside concept pages names its tasks so
(`how-to-rotate-an-object.md` beside `transforms-overview.md`, `how-to-create-a-stackpanel.md`
beside `stackpanel.md`), and a reader's question says which it wants: "Learn how to rotate
an object" asks for the task, "Learn about the StackPanel control" for the concept. The words
the two pages share rank them near each other; the question's "how to" tells them apart.
Only the question's asking is read: a page's own "how to" in its text is no evidence (every
concept page says how to do something). Linear in the question's length.
"""

from __future__ import annotations

import re

# "how to", "how do I", "how can you": the question asks for a task
_ASKS_HOW = re.compile(r"\bhow\s++(?:to|do|can)\b", re.IGNORECASE)
# the file names of task pages: `how-to-...`, `howto-...` (case aside)
_TASK_NAMES = ("how-to", "howto")


def asks_how(query: str) -> bool:
    """Whether the question asks how to do something."""
    return _ASKS_HOW.search(query) is not None


def shows_how(path: str) -> bool:
    """Whether the page's file name says it is a task page."""
    return path.rsplit("/", 1)[-1].lower().startswith(_TASK_NAMES)

"""The shapes of every answer the library returns (`search/results.py`), for the front ends.

Re-exported whole: an answer type added to `search/results.py` is here at once, so a new MCP
tool still touches three package files (CONTRIBUTING.md). Importing this module imports
`search/results.py` (TypedDicts only), as the front ends' own imports of it did.
"""

from __future__ import annotations

from kenso_git.search.results import *  # noqa: F403

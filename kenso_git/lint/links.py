"""Link resolution for the lint rules: the same function the index uses (linkmap)."""

from __future__ import annotations

from kenso_git.linkmap import PathIndex
from kenso_git.linkmap import resolve_link

__all__ = ["PathIndex", "resolve_link"]

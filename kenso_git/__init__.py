"""kenso-git: keep a repository's Markdown docs searchable by AI coding agents."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]

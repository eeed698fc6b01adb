"""Terminal styling, resolved once: --color > NO_COLOR > FORCE_COLOR > is the stream a tty."""

from __future__ import annotations

import os
from typing import TextIO

RESET = "\033[0m"
STYLES = {
    "bold": "\033[1m",
    "dim": "\033[2m",
    "red": "\033[31m",
    "green": "\033[32m",
    "yellow": "\033[33m",
    "blue": "\033[34m",
    "bold_green": "\033[1;32m",
    "bold_blue": "\033[1;34m",
    "bold_yellow": "\033[1;33m",
}


def use_color(choice: str, stream: TextIO) -> bool:
    """Resolve `--color always|never|auto` against the environment and the stream."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Style:
    """Applies ANSI styles when colour is on, and nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled or style not in STYLES:
            return text
        return f"{STYLES[style]}{text}{RESET}"

    def marks(self, text: str) -> str:
        """Render `<mark>..</mark>` highlight markers as bold (or strip them)."""
        on, off = (STYLES["bold"], RESET) if self.enabled else ("", "")
        return text.replace("<mark>", on).replace("</mark>", off)

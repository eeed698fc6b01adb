"""Signal `stem` (#31, twentieth round): a question that holds a page's file name as one of
its words names that page.

A file name is a short, curated title (`psexec.md`, `Sort-Object.md`, `sitemap.md`), and a
question often names it outright ("Execute processes on remote systems with psexec"). The
`path` signal reads the same words, but as an F-measure over the whole question: one exact
name among twelve words moves it little. Here a candidate whose file name without its
extension (for an index page, `index.md`, `_index.md` or `README.md`, its folder's name) is
one of the question's words, three characters or more and written as the file writes it
(case aside), counts once, when no other candidate's file name holds that name (`overview.md`
in every folder names none of them; nor does `html.md` when `htmlattr.md` is a candidate too,
or `scrollviewer.md` beside `how-to-create-an-expander-with-a-scrollviewer.md`: the question
may name the one as a part of the other). Twenty-first round: read as "no other candidate is
so named", the signal cost PowerShell 0.0015 MRR@10 on the tuning half and Hugo, Loki and
docs-desktop a first place each, nearly always to a page whose name holds the named one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kenso_git.search.ranked.rankdocs import INDEX_STEMS

MIN_CHARS = 3  # `go`, `js`: a language's folder, not a page's own name
# a question's words as a file name writes them: letters and digits, joined by `-`, `_` or
# `.` (`Sort-Object`, `about_PSItem`, `k6.http`)
_WORD = re.compile(r"[^\W_](?:[\w.-]{0,200}[^\W_])?")


def stem_of(path: str) -> str:
    """The name a page's path gives it: its file name without the extension, lowercased; an
    index page's folder name."""
    parts = path.lower().split("/")
    name = parts[-1].rsplit(".", 1)[0]
    if name in INDEX_STEMS and len(parts) >= 2:
        return parts[-2]
    return name


def named(query: str, candidates: Sequence[str]) -> frozenset[str]:
    """The candidates the question names by their file name, each the only one whose name
    holds that name."""
    asked = {w.lower() for w in _WORD.findall(query)}
    stems = {p: stem_of(p) for p in candidates}
    wanted = {p: s for p, s in stems.items() if len(s) >= MIN_CHARS and s in asked}
    if not wanted:
        return frozenset()
    names = list(stems.values())
    # each asked name is looked for in every candidate's name once: candidates are capped
    # (a search's pool), and a question names few of them
    return frozenset(p for p, s in wanted.items() if sum(s in other for other in names) == 1)

"""Signal `anchors` (#31): a line that links to a page and says what the question says is
that page's evidence.

Hub and index pages list other pages, each with a line of its own: `- [Data binding
overview](data-binding-overview.md): how controls bind to data sources`. Such a line is
often the only place outside a page that describes it in other words, and a question in
the reader's words may match the hub's line better than the page itself, so the hub
outranks the page it points at (the `linked` signal does this for headings that are
links; this reads the lines of a chunk). Here, when the best of a matched chunk's link
lines covers at least `MIN_COVER` of the question's words and links to exactly one
indexed page, that page gets the chunk's score times the line's cover raised to `POWER`,
and the chunk keeps the rest of its score but `KEEP` of what it handed over.

Links are read from the chunk's text at query time, nothing at ingest: `[text](x.md)`
relative to the page, `[text](/a/b/)` and `{{< ref "/a/b" >}}` as a static site writes
them (resolved against the folders the page lives under: `a/b.md`, `a/b/_index.md`,
`a/b/index.md`, ...). With the signal `addresses` (on by default), also a site path
with a version placeholder (`/docs/loki/<LOKI_VERSION>/a/b/`: the names after it) and a
full address (`https://grafana.com/docs/k6/<K6_VERSION>/a/b/`, a repository's `blob` URL:
each run of two or more of its last names, the longest first); it lifted k6's docs
(+0.016 MRR@10) but cost held-out Tempo one first place, so the rule of #31's sixteenth
round kept it off; since the eighteenth round it is on (k6 +0.007 beside `opening`; no
corpus of 33 fell). A target is looked up by path in the index, under the search's own
filters (the scope gate): a page they hide is never handed anything.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.rankdocs import LinkTarget
from kenso_git.search.ranked.rankdocs import link_targets
from kenso_git.search.ranked.rankdocs import markdown_target
from kenso_git.search.ranked.rankdocs import words
from kenso_git.store import chunkreads
from kenso_git.text.shortcode import REF_PATH

MIN_COVER = 0.5  # a line naming fewer of the question's words is a list entry by chance
POWER = 2.0  # near-complete lines count far more than half-matching ones
KEEP = 0.5  # of what it hands over, the hub keeps this much
MIN_WORDS = 2  # a one-word question is answered by titles, not by list entries
MAX_LINE = 600  # characters: a longer "line" is a paragraph, not a list entry
# `](target)` and `{{< ref "target" >}}` / `{{% relref target %}}`
_INLINE = re.compile(r"\]\(\s*(?:<([^>\n]{1,600})>|([^)\s]{1,600}))")
# a list item or table row that starts with its link: `- [x](x.md) ...`, `1. **[x](x.md)**`,
# `| [x](x.md) |`; a link inside a sentence is a reference, not an entry about the page
_ENTRY = re.compile(r"\s{0,12}(?:[-*+]|\d{1,3}[.)]|\|)\s{0,4}[*_]{0,2}\[")
# signal `paragraphs`: a line that is one link and nothing else (`[Sync](sync.md)` and a hard
# break) opens an entry that the paragraph's next lines go on (`Flush cached data to disk.`)
_LONE = re.compile(r" {0,3}[*_]{0,2}\[[^\]\n]{1,300}\]\([^)\n]{1,600}\)[*_]{0,2}[ \t]*\\?[ \t]*")
_BREAK = re.compile(r"\s*(?:#|[-*+]\s|\d{1,3}[.)]\s|\||>|```|~~~|<)")  # ends such a paragraph
# a whole link, `[text](target)`, and a shortcode: what is left of a line is what it says
_LINK = re.compile(r"\[[^\]\n]{0,300}\]\([^)\n]{0,600}\)|\{\{[<%][^{}\n]{0,300}[%>]\}\}")
# a version placeholder a docs site fills in when it builds: `<K6_VERSION>`, `{{< version >}}`
_PLACEHOLDER = re.compile(r"<[^<>/]{1,80}>|\{\{?[^{}/]{0,80}\}?\}|%[A-Z_]{1,40}%")
MAX_NAMES = 8  # of a full address's last names, the ones tried as a site path
_SUFFIXES = (".md", ".markdown", "/_index.md", "/index.md", "/README.md", "/readme.md")


class Handover(NamedTuple):
    """Chunk `chunk_id` hands `share` of its score to page `target`."""

    chunk_id: int
    target: str
    share: float


def candidates(source: str, href: str, *, addresses: bool = False) -> tuple[str, ...]:
    """The repo paths `href`, written in `source`, may name, most likely first; full
    addresses and versioned site paths too with `addresses` (the opt-in signal)."""
    href = href.partition("#")[0].partition("?")[0].strip()
    if "://" in href:
        return _full_address(source, href) if addresses else ()
    if not href or href.startswith(("mailto:", "//")) or "{" in href:
        return ()
    if addresses and href.startswith("/"):  # `/docs/loki/<LOKI_VERSION>/a/`: the names after
        names = href.split("/")
        marks = [i for i, name in enumerate(names) if _PLACEHOLDER.fullmatch(name)]
        href = "/" + "/".join(names[marks[-1] + 1 :]) if marks else href
    markdown = markdown_target(source, href)
    if markdown is not None:
        return (markdown,) if _inside(markdown) else ()
    stem = href.strip("/")
    for ext in (".html", ".htm"):
        stem = stem.removesuffix(ext)
    if not stem or stem.startswith("."):  # `../x/`: relative to the page's URL; not read
        return ()
    roots = [""]
    folder = posixpath.dirname(source)
    parts = folder.split("/") if folder else []
    roots += ["/".join(parts[: i + 1]) for i in range(len(parts))]
    out = []
    for root in reversed(roots):  # the folder nearest the page first
        base = f"{root}/{stem}" if root else stem
        out += [posixpath.normpath(base + suffix) for suffix in _SUFFIXES]
    return tuple(dict.fromkeys(p for p in out if _inside(p)))


def _full_address(source: str, href: str) -> tuple[str, ...]:
    """A page of the docs written as a full address (`https://grafana.com/docs/k6/<K6_VERSION>/
    javascript-api/k6-http/`, a site linking to itself; a repository's own `blob` URL): each
    run of the address's last names, two or more and the longest first, as a site path. The
    host and the first names are the site's, not the repository's; a run of one name (`x.md`
    on any site) is too likely another site's page."""
    names = [n for n in href.split("://", 1)[1].split("/")[1:] if n and n not in (".", "..")]
    names = [n for n in names if not _PLACEHOLDER.fullmatch(n)][-MAX_NAMES:]
    if names:
        for ext in (".html", ".htm", ".md", ".markdown"):
            names[-1] = names[-1].removesuffix(ext)
    out: list[str] = []
    for i in range(len(names) - 1):
        out += candidates(source, "/" + "/".join(names[i:]) + "/")
    return tuple(dict.fromkeys(out))


def _inside(path: str) -> bool:
    return not (path.startswith("../") or path == "..")


def _link_lines(content: str, *, paragraphs: bool = False) -> list[tuple[str, list[str]]]:
    """The entries of `content` that link somewhere, each with its targets: list items and
    table rows that start with a link; with `paragraphs`, also a paragraph whose first line
    is a lone link (its lines joined, at most `MAX_LINE` characters).

    Only lines holding a `[` can be either, so only those are read: most of a matched
    chunk's lines are prose."""
    out = []
    at = content.find("[")
    while at >= 0:
        start = content.rfind("\n", 0, at) + 1
        end = content.find("\n", at)
        end = len(content) if end < 0 else end
        line = content[start:end]
        at = content.find("[", end)  # the next line holding one
        if len(line) > MAX_LINE:
            continue
        if paragraphs and _LONE.fullmatch(line) is not None:
            said, after = _paragraph(content, end + 1)
            at = content.find("[", after)
            line = " ".join([line.strip(), *said])
            if not said or len(line) > MAX_LINE:
                continue  # a link on a line of its own with nothing said of it, or a page
        elif _ENTRY.match(line) is None:
            continue
        hrefs = link_targets_of(line)
        if hrefs:
            out.append((line, hrefs))
    return out


def link_targets_of(line: str) -> list[str]:
    """The targets `line` links to: inline links' and Hugo `ref` shortcodes', in order."""
    return [a or b for a, b in _INLINE.findall(line)] + REF_PATH.findall(line)


def _paragraph(content: str, start: int) -> tuple[list[str], int]:
    """The lines from offset `start` up to the paragraph's end (stripped), and the offset
    of the first line after them."""
    said: list[str] = []
    while start <= len(content):
        end = content.find("\n", start)
        end = len(content) if end < 0 else end
        line = content[start:end]
        if not line.strip() or _ends_paragraph(line):
            break
        said.append(line.strip())
        start = end + 1
    return said, start


def _ends_paragraph(line: str) -> bool:
    """A heading, list item, table, quote, fence or HTML block, or the next lone link."""
    return _BREAK.match(line) is not None or _LONE.fullmatch(line) is not None


def handovers(
    conn: sqlite3.Connection,
    wanted: frozenset[str],
    rows: Sequence[tuple[int, str]],
    where: str,
    params: list[object],
    *,
    addresses: bool = False,
    paragraphs: bool = False,
) -> tuple[list[Handover], dict[str, LinkTarget]]:
    """For the matched chunks `rows` (chunk id, file path), the hand-overs of their best link
    lines for a question of the words `wanted`, and the first chunk of each target page
    the filters keep."""
    if len(wanted) < MIN_WORDS or not rows:
        return [], {}
    contents = chunkreads.contents(conn, [r[0] for r in rows], linking=True)
    picked: list[tuple[int, float, tuple[str, ...]]] = []
    for chunk_id, path in rows:
        best, hrefs, tie = 0.0, [], False
        for line, found in _link_lines(contents.get(chunk_id, ""), paragraphs=paragraphs):
            cover = len(wanted & words(_LINK.sub(" ", line))) / len(wanted)
            if cover > best:
                best, hrefs, tie = cover, found, False
            elif cover == best and cover > 0 and found != hrefs:
                tie = True
        if best < MIN_COVER or tie or len(set(hrefs)) != 1:
            continue
        named = candidates(path, hrefs[0], addresses=addresses)
        options = tuple(p for p in named if p != path)
        if options:
            picked.append((chunk_id, best, options))
    if not picked:
        return [], {}
    every = sorted({p for *_, options in picked for p in options})
    first = link_targets(conn, every, where, params)
    out = []
    for chunk_id, cover, options in picked:
        target = next((p for p in options if p in first), None)
        if target is not None:
            out.append(Handover(chunk_id, target, cover**POWER))
    return out, {h.target: first[h.target] for h in out}

"""Highlights, `match_source` and content previews of search hits (spec §4.12).

Differences from kenso 2.0.0: a highlight never shows the internal `Keywords:`, `Source:`,
`Expanded terms:`, ... lines of the indexed text (§8.18), `match_source` matches terms of
3+ characters only at word starts, so `to` no longer "matches" `tokens` (§8.16), and previews
are plain text: inline Markdown (links, emphasis, code spans, list and quote markers) is
reduced to its words and whitespace runs to one space, before the budget is counted. The
highlight of a chunk whose FTS entry holds more than 2048 tokens is not FTS5's snippet()
(quadratic in the chunk's hits) but 32 words of its content around its densest hits. A
highlight shows at most `HIGHLIGHT_CHARS` characters (`search/highlightcap.py`), where kenso gave a
huge token (minified data, a base64 blob) whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from kenso_git.search.highlightcap import ELLIPSIS
from kenso_git.search.highlightcap import MARK_CLOSE
from kenso_git.search.highlightcap import MARK_OPEN
from kenso_git.search.highlightcap import bound_highlight
from kenso_git.search.ranked.query import content_words
from kenso_git.search.ranked.query import has_token
from kenso_git.search.ranked.query import joined_tokens
from kenso_git.store.chunkreads import UNSNIPPETED
from kenso_git.text.terms import expand_word
from kenso_git.text.titlewords import clean

INTERNAL_LABELS = (
    "Also known as:",
    "Questions this document answers:",
    "Predicted search queries:",
    "Keywords:",
    "Source:",
    "Expanded terms:",
)
_LABEL_RE = re.compile("|".join(re.escape(label) for label in INTERNAL_LABELS))
HIGHLIGHT_WORDS = 32
_LEAD_WORDS = 6
_DENSE_SPAN = 2048  # words after a large chunk's first hit its highlight window may start in
_DENSE_HITS = 64  # hits a large chunk's highlight window may start at
DEFAULT_PREVIEW_CHARS = 200
_PUNCT = ".,;:!?()[]{}\"'`"


# --- highlights ----------------------------------------------------------------------------


def highlight_terms(query: str) -> tuple[str, ...]:
    """Lowercased query terms (and compound parts) to mark in a content-built highlight."""
    terms: dict[str, None] = {}
    for word in content_words(query):
        for element in expand_word(word):
            term = clean(element).lower()
            if has_token(term):
                terms[term] = None
        terms.update(dict.fromkeys(joined_tokens(word)))
    return tuple(terms)


def _unmark(text: str) -> str:
    return text.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")


def _plain(snippet: str) -> str:
    text = _unmark(snippet)
    if text.startswith(ELLIPSIS):
        text = text[len(ELLIPSIS) :]
    if text.endswith(ELLIPSIS):
        text = text[: -len(ELLIPSIS)]
    return text


def _in_content(snippet: str, content: str) -> str | None:
    """`snippet` when it lies in `content` (a trailing "..." at the content end dropped)."""
    plain = _plain(snippet)
    if plain not in content:
        return None
    if snippet.endswith(ELLIPSIS) and content.rstrip().endswith(plain.rstrip()):
        return snippet[: -len(ELLIPSIS)]  # what follows is only the internal lines
    return snippet


def clean_highlight(snippet: str, content: str, terms: Sequence[str]) -> str:
    """The FTS5 snippet when it lies in the chunk content; otherwise a content-built highlight.

    A snippet that runs from the content into the internal lines is cut before the first
    internal label; one that lies in the internal lines is rebuilt from `content`, and so
    is one without a marked word: the index matched a chunk's expanded terms, which its
    external content does not show (store/schema.py, TERMS_OF), so FTS5 marked nothing.
    A chunk too large for snippet() (`UNSNIPPETED`, finding t48b-1) is highlighted from
    `content` around its densest hits. Whichever it is, `bound_highlight` caps its length.
    """
    return bound_highlight(_highlight(snippet, content, terms))


def _highlight(snippet: str, content: str, terms: Sequence[str]) -> str:
    if snippet == UNSNIPPETED:  # a chunk too large for FTS5's snippet()
        return content_highlight(content, terms, densest=True)
    if MARK_OPEN not in snippet:
        return content_highlight(content, terms)
    kept = _in_content(snippet, content)
    if kept is not None:
        return kept
    label = _LABEL_RE.search(snippet)
    if label is not None and label.start() > 0:
        head = snippet[: label.start()].rstrip()
        balanced = head.count(MARK_OPEN) == head.count(MARK_CLOSE)
        if MARK_OPEN in head and balanced:
            kept = _in_content(head + ELLIPSIS, content)
            if kept is not None:
                return kept
    return content_highlight(content, terms)


_WORD = re.compile(r"\w+(?:[-./]\w+)*")


def _stems(terms: Sequence[str]) -> tuple[str, ...]:
    return tuple({t if len(t) <= 4 else t[:-1] for t in terms if t})


def _hit_stems(word: str, stems: tuple[str, ...]) -> frozenset[str]:
    """The stems that `word` or one of its compound parts starts with."""
    lowered = word.lower()
    if not any(stem in lowered for stem in stems):  # cheap: most words hold no stem
        return frozenset()
    parts = [part.lower() for x in _WORD.findall(word) for part in expand_word(x)]
    return frozenset(stem for stem in stems if any(p.startswith(stem) for p in parts))


def _first_hit(words: Sequence[str], stems: tuple[str, ...]) -> int:
    return next((i for i, w in enumerate(words) if _hit_stems(w, stems)), 0)


def _densest_hit(words: Sequence[str], stems: tuple[str, ...]) -> int:
    """The first hit of the window of `HIGHLIGHT_WORDS` that starts at a hit and holds the
    most distinct terms (what FTS5's snippet() prefers), among the hits of the
    `_DENSE_SPAN` words from the first: linear in the words up to the first hit."""
    hits: list[tuple[int, frozenset[str]]] = []
    for i, word in enumerate(words):
        if hits and i > hits[0][0] + _DENSE_SPAN:
            break
        found = _hit_stems(word, stems)
        if found:
            hits.append((i, found))
    best, most = (hits[0][0] if hits else 0), 0
    for k, (start, _) in enumerate(hits[:_DENSE_HITS]):
        seen: set[str] = set()
        for at, found in islice(hits, k, None):
            if at >= start + HIGHLIGHT_WORDS:
                break
            seen |= found
        if len(seen) > most:
            best, most = start, len(seen)
    return best


def content_highlight(content: str, terms: Sequence[str], *, densest: bool = False) -> str:
    """About 32 words of `content` around the first matched term (with `densest`, around
    the hit that starts the window of the most distinct terms), with matches marked.
    Linear in the words up to that hit, whatever the number of hits."""
    words = content.split()
    if not words:
        return ""
    stems = _stems(terms)

    def mark(m: re.Match[str]) -> str:
        word = m.group(0)
        return f"{MARK_OPEN}{word}{MARK_CLOSE}" if _hit_stems(word, stems) else word

    first = 0
    lowered = content.lower()
    if any(stem in lowered for stem in stems):  # a hit holds a stem: none, no scan
        first = (_densest_hit if densest else _first_hit)(words, stems)
    start = max(0, min(first - _LEAD_WORDS, len(words) - HIGHLIGHT_WORDS))
    end = start + HIGHLIGHT_WORDS
    text = " ".join(words[start:end])
    if stems:
        text = _WORD.sub(mark, text)
    return (ELLIPSIS if start > 0 else "") + text + (ELLIPSIS if end < len(words) else "")


# --- match_source and previews ---------------------------------------------------------------


def query_terms(query: str) -> list[str]:
    """Lowercased whitespace tokens of the query (outer punctuation stripped), 2+ characters."""
    stripped = (t.strip(_PUNCT) for t in query.lower().split())
    return [t for t in stripped if len(t) >= 2]


def _matches(text: str, terms: Sequence[str]) -> bool:
    """A term of 3+ characters matches at a word start; a 2-character term as a whole word."""
    lowered = text.lower()
    for term in terms:
        if len(term) >= 3:
            pattern = rf"(?<![^\W_]){re.escape(term)}"
        else:
            pattern = rf"(?<![^\W_]){re.escape(term)}(?![^\W_])"
        if re.search(pattern, lowered):
            return True
    return False


def match_source(
    terms: Sequence[str], title: str, section_path: str, tags: Sequence[str], category: str
) -> str:
    """Which field of a hit the query matched: title, section_path, tags, category or content."""
    if _matches(title, terms):
        return "title"
    if section_path and _matches(section_path, terms):
        return "section_path"
    if tags and _matches(" ".join(tags), terms):
        return "tags"
    if category and _matches(category, terms):
        return "category"
    return "content"


# Inline Markdown to plain words; every pattern is linear (bounded or negated classes).
# DocFX markup goes first (#26): a cross-reference shows its API name, an `:::image` its
# alt text and `:::no-loc` its text; other `:::` directives, `[!NOTE]`-style alerts,
# `[!INCLUDE ...]` and `[!div ...]` show nothing, as they render nothing of their own.
_XREF = re.compile(r"<xref:([^<>\s?]{1,300})(?:\?([^<>\s]{0,200}))?>")
_DIRECTIVE = re.compile(
    r"(?<![^\s>(])\s*:::\s*([a-z][a-z-]{0,40})((?:[^:\n]|:(?!::)){0,1000})(:::)?"
)
_ARITY = re.compile(r"(?:%60|`){1,2}\d{1,3}")
_SHOWN_ATTRIBUTE = {"image": "alt-text", "no-loc": "text"}
_ATTRIBUTE = re.compile(r'([a-z][a-z-]{0,40})="([^"\n]{0,1000})"')
_ALERT = re.compile(
    r"\[!(?:[A-Z]{2,20}\]|INCLUDE\s*\[[^\]\n]{0,300}\]\([^)\n]{0,500}\)\]|div\b[^\]\n]{0,300}\])"
)
# bounded: unbounded classes rescanned the rest of a line of many `[` without `]` from each
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]{0,500})\]\([^)\n]{0,1000}\)")
_EMPHASIS = re.compile(r"\*\*|__|~~|`+")
_LINE_MARKER = re.compile(r"^(?:>\s*)+|^(?:[-*+]|\d{1,9}[.)])\s+")
_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,200}>")


def _xref_name(match: re.Match[str]) -> str:
    """What DocFX shows for `<xref:UID?displayProperty=...>`: the member's name, its
    type and name (`nameWithType`), or the whole id (`fullName`)."""
    uid = match.group(1).replace("%2A", "").replace("%2a", "").rstrip("*")
    uid = _ARITY.sub("", uid)  # a generic's arity: List`1 is shown as List
    parts = uid.split(".")
    shown = match.group(2) or ""
    if "displayProperty=fullName" in shown:
        return uid
    return ".".join(parts[-2:]) if "displayProperty=nameWithType" in shown else parts[-1]


def _directive_text(match: re.Match[str]) -> str:
    attribute = _SHOWN_ATTRIBUTE.get(match.group(1))
    if attribute is None or match.group(3) is None:
        return " "
    values = dict(_ATTRIBUTE.findall(match.group(2)))
    return f" {values.get(attribute, '')} "


def plain_line(line: str) -> str:
    """One trimmed Markdown line as the words a reader sees (links keep their text)."""
    line = _LINE_MARKER.sub("", line)
    if "<xref:" in line:
        line = _XREF.sub(_xref_name, line)
    if ":::" in line:
        line = _DIRECTIVE.sub(_directive_text, line)
    if "[!" in line:
        line = _ALERT.sub("", line)
    line = _IMAGE_OR_LINK.sub(r"\1", line)
    line = _TAG.sub("", line)
    return " ".join(_EMPHASIS.sub("", line).split())


def _is_skipped_line(line: str) -> bool:
    return not line or line.startswith(("#", "```", "|"))


def smart_preview(text: str, budget: int) -> str:
    """Prose lines of `text` (no headings, fences or table rows) joined, cut to `budget`."""
    collected: list[str] = []
    total = 0
    for raw in text.splitlines():
        line = raw.strip()
        if _is_skipped_line(line):
            continue
        line = plain_line(line)
        if not line:
            continue
        collected.append(line)
        total += len(line) + 1
        if total >= budget:
            break
    if not collected:
        return " ".join(text.split())[:budget] + ELLIPSIS  # no ragged line breaks
    joined = " ".join(collected)
    return joined[:budget] + ELLIPSIS if len(joined) > budget else joined


def first_sentence(text: str, budget: int) -> str:
    """The smart preview cut just after its first `. ` (when that lies inside the budget)."""
    preview = smart_preview(text, budget)
    index = preview.find(". ", 1)
    if 0 < index < budget:
        return preview[: index + 1]
    return preview


def _prefixed(prefix: str, content: str, budget: int) -> str:
    room = budget - len(prefix) - 3
    if room > 20:
        return f"{prefix} — {first_sentence(content, room)}"
    return prefix[:budget]


def content_preview(
    source: str,
    *,
    title: str,
    section_path: str,
    tags: Sequence[str],
    category: str,
    content: str,
    terms: Sequence[str],
    budget: int = DEFAULT_PREVIEW_CHARS,
) -> str:
    """The preview text for a hit whose query matched `source` (spec §4.12)."""
    if source == "title":
        return _prefixed(title, content, budget)
    if source == "section_path":
        return _prefixed(section_path, content, budget)
    if source == "tags":
        matching = [t for t in tags if _matches(t, terms)]
        return _prefixed("Tags: " + ", ".join(matching), content, budget)
    if source == "category":
        return _prefixed(f"Category: {category}", content, budget)
    return smart_preview(content, budget)

"""Known-item queries drawn from a docs corpus, and the stripped copies they are asked of.

Used by bench_quality.py. The rules know nothing of either search tool. Plain kinds are
asked of the corpus as it is:

- `title`: a page's frontmatter `title`, else its first `# ` heading;
- `description`: its frontmatter `description`;
- `heading`: an H2-H4 heading (the answer: any page with that heading);
- `sentence`: the first 8 words of a body paragraph (prose, not code, lists or tables);
- `paraphrase`: its `answers:`/`aliases:` phrases when it has some, else a seeded word-drop,
  shuffle and synonym swap of its description (or first paragraph) behind a question word.

Stripped kinds are asked of a copy of the corpus in which the text the query was made
from is cut out of the page it came from (and only there), as a user's question does not
quote the page it wants:

- `description-stripped`: the frontmatter `description`, the field removed;
- `summary-stripped`: a summary-like frontmatter field (`summary`, `abstract`, `intro`,
  `lead`, `excerpt`, `synopsis`, `MetaDescription`) or the first paragraph under a
  `Synopsis` / `Short description` / `Abstract` heading, that field or
  paragraph removed;
- `first-sentence-stripped`: the first sentence of the body's first prose paragraph,
  that sentence removed;
- `paraphrase-stripped`: the paraphrase of the description or a summary-like field, or an
  `answers:`/`aliases:` phrase, the field it came from removed.

Each cut is checked when the query is made: the frontmatter left must still parse and hold
every other key unchanged, else the page gives no stripped query.

Frontmatter is YAML (`---`) or, as kenso-git reads Hugo pages, TOML (`+++`): a first line
`+++` (after a byte order mark), closed by the next line that starts with `+++`; a block
that `tomllib` does not parse is no frontmatter. A TOML field is a top-level `key = value`
statement (a multi-line string or array included) before the first `[table]` header.
"""

from __future__ import annotations

import random
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

PLAIN = ("title", "description", "heading", "sentence", "paraphrase")
STRIPPED = (
    "description-stripped",
    "summary-stripped",
    "first-sentence-stripped",
    "paraphrase-stripped",
)
KINDS = PLAIN + STRIPPED
SUMMARY_KEYS = ("summary", "abstract", "intro", "lead", "excerpt", "synopsis", "MetaDescription")
SUMMARY_HEADINGS = ("synopsis", "short description", "abstract")  # not "Summary": a recap
MAX_ANSWERS = 3  # a query more pages answer is not a known item
SUFFIXES = (".md", ".markdown")

_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|\Z)", re.S)
_TOML_OPEN = re.compile(r"\A\ufeff?\+\+\+\r?\n")  # kenso-git: the first line `+++`, exactly
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_HEADING = re.compile(r"^(#{1,4})[ \t]+(.+?)[ \t#]*\r?$", re.M)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
# `#` is markup unless it ends a word (`C#`, `F#`: what a reader types); `\#` is an escape
_MARKUP = re.compile(r"\]\([^)]*\)|\{\{[<%].*?[%>]\}\}|[`*_\[\]()<>{}|\"]|(?<![A-Za-z])#|#(?=\w)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z`*_\[(\"']|\s*$)")
_NOT_PROSE = "#|>-*+<!0123456789[{:"

Cut = tuple[str, int, int]  # (page, start, end): characters removed from the indexed copy


@dataclass(frozen=True, slots=True)
class Query:
    """A query, the pages that answer it, and what its kind cuts from them."""

    kind: str
    text: str
    answers: frozenset[str]
    cuts: tuple[Cut, ...] = ()


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph of the body outside code fences: where it is and its raw text."""

    start: int
    text: str
    heading: str | None  # the nearest heading above it


def read_page(path: Path) -> str:
    """The page's text, byte for byte (line ends kept, bad bytes round-tripped)."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def write_page(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


FLOOR = 50  # kenso's floor: a file whose raw text, trimmed, is shorter is not indexed


def under_floor(corpus: Path, answers: frozenset[str]) -> bool:
    """Whether every answer of a query is, in the (stripped) copy `corpus`, a page under
    kenso's 50-character floor: neither index holds it, so no ranking can answer it (a
    section page whose only text was the description the question was made from)."""
    return all(
        len(read_page(corpus / rel).strip()) < FLOOR if (corpus / rel).is_file() else True
        for rel in answers
    )


def plain(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", _ESCAPE.sub(r"\1", text)).split())


class Page:
    """One Markdown page: its frontmatter (parsed and as text) and its body's paragraphs."""

    def __init__(self, rel: str, text: str) -> None:
        self.rel, self.text = rel, text
        toml = _toml_front(text)
        self.toml = toml is not None
        if toml is not None:
            self.front_start, self.front_end, self.body_start = toml
            self.front = _load_toml(text[self.front_start : self.front_end])
            return
        match = _FRONTMATTER.match(text)
        self.front_start = match.start(1) if match and match.group(1) else 0
        self.front_end = match.end(1) if match and match.group(1) else 0
        self.body_start = match.end() if match else 0
        self.front = _load(text[self.front_start : self.front_end]) if match else {}

    def string(self, key: str) -> str | None:
        value = self.front.get(key)
        return plain(value) if isinstance(value, str) and value.strip() else None

    def phrases(self, key: str) -> list[str]:
        """A list field's entries that read as phrases (URL aliases such as `/docs/x/` do not)."""
        value = self.front.get(key)
        items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        texts = [plain(v) for v in items if isinstance(v, str)]
        return [v for v in texts if len(v.split()) >= 2 and not re.search(r"\S/\S|^/", v)]

    def headings(self) -> list[tuple[int, str]]:
        body = _unfenced(self.text[self.body_start :])
        return [(len(m.group(1)), plain(m.group(2))) for m in _HEADING.finditer(body)]

    def title(self) -> str | None:
        return self.string("title") or next((h for lvl, h in self.headings() if lvl == 1), None)

    def blocks(self) -> list[Block]:
        """The body's paragraphs outside code fences, with their offsets in the page."""
        out: list[Block] = []
        heading: str | None = None
        fence: str | None = None
        start, lines = 0, list[str]()
        pos = self.body_start
        for line in self.text[self.body_start :].splitlines(keepends=True):
            opener = _FENCE.match(line)
            head = _HEADING.match(line) if fence is None else None
            if fence is not None or opener or head or not line.strip():
                if lines:
                    out.append(Block(start, "".join(lines), heading))
                lines = []
                if head:
                    heading = plain(head.group(2))
                elif fence is None and opener:
                    fence = opener.group(1)
                elif fence is not None and line.strip().startswith(fence):
                    fence = None
            else:
                if not lines:
                    start = pos
                lines.append(line)
            pos += len(line)
        if lines:
            out.append(Block(start, "".join(lines), heading))
        return out

    def field_cut(self, key: str) -> Cut | None:
        """The span of a top-level frontmatter key (its continuation lines included), when
        cutting it leaves frontmatter that parses to the same mapping without that key."""
        if not self.front or key not in self.front:
            return None
        front = self.text[self.front_start : self.front_end]
        if self.toml:
            span = _toml_field(front, key, self.front)
            if span is None:
                return None
            return (self.rel, self.front_start + span[0], self.front_start + span[1])
        match = re.search(rf"^{re.escape(key)}[ \t]*:(.*)$", front, re.M)
        if match is None:
            return None
        value = match.group(1).strip()
        block = not value or value[:1] in "|>"
        lines = front[match.start() :].splitlines(keepends=True)
        end = match.start() + len(lines[0])
        for line in lines[1:]:
            if not (line[:1] in " \t" or not line.strip() or (block and line.startswith("- "))):
                break
            end += len(line)
        rest = _load(front[: match.start()] + front[end:])
        if rest != {k: v for k, v in self.front.items() if k != key}:
            return None
        return (self.rel, self.front_start + match.start(), self.front_start + end)


def _load(front: str) -> dict[str, Any]:
    try:
        value = yaml.safe_load(front)
    except yaml.YAMLError:
        return {}
    return value if isinstance(value, dict) else {}


def _toml_front(text: str) -> tuple[int, int, int] | None:
    """(start, end, body start) of a `+++` block, found as kenso-git's `split_frontmatter`
    finds it: the block runs to the next line that starts with `+++` (`+++ ` too), the
    body from after that `+++` and the line ends that follow it."""
    opened = _TOML_OPEN.match(text)
    close = text.find("\n+++", opened.end() - 1) if opened else -1
    if opened is None or close < 0:
        return None
    body = close + 4
    while body < len(text) and text[body] in "\r\n":
        body += 1
    if close < opened.end():  # an empty block
        return 0, 0, body
    return opened.end(), close + 1, body


def _parse_toml(front: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(front)
    except (ValueError, RecursionError):  # TOMLDecodeError; too deep to read, as kenso-git
        return None


def _load_toml(front: str) -> dict[str, Any]:
    return _parse_toml(front) or {}


def _toml_field(front: str, key: str, fields: dict[str, Any]) -> tuple[int, int] | None:
    """The span of `key`'s top-level statement in TOML `front` (its multi-line string or
    array included), when cutting it leaves TOML that parses to `fields` without `key`.

    A statement is the fewest whole lines, from where the last one ended, that parse on
    their own: a line that leaves a string or an array open does not."""
    lines = _LINE.findall(front)
    start = i = 0
    while i < len(lines):
        chunk = ""
        for j in range(i, len(lines)):
            chunk += lines[j]
            statement = _parse_toml(chunk)
            if statement is not None:
                break
        else:
            return None
        end = start + len(chunk)
        if chunk.lstrip().startswith("["):  # a [table] header: no key after it is top-level
            return None
        if statement.keys() == {key}:
            rest = _parse_toml(front[:start] + front[end:])
            return (start, end) if rest == {k: v for k, v in fields.items() if k != key} else None
        start, i = end, j + 1
    return None


def _unfenced(body: str) -> str:
    out, fence = [], None
    for line in body.splitlines(keepends=True):
        opener = _FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            out.append(line)
    return "".join(out)


def is_prose(block: Block) -> bool:
    line = block.text.lstrip("\ufeff")
    return bool(line.strip()) and line[0] not in _NOT_PROSE and not line.startswith("    ")


def first_sentence(page: Page) -> tuple[str, Cut] | None:
    """The first sentence of the first prose paragraph (5 to 40 words) and its span."""
    block = next((b for b in page.blocks() if is_prose(b)), None)
    if block is None:
        return None
    end = _SENTENCE_END.search(block.text)
    stop = end.end() if end else len(block.text.rstrip())
    sentence = plain(block.text[:stop])
    if not 5 <= len(sentence.split()) <= 40:
        return None
    while stop < len(block.text) and block.text[stop] in " \t":
        stop += 1
    return sentence, (page.rel, block.start, block.start + stop)


def summary_fields(page: Page) -> list[tuple[str, Cut]]:
    """Summary-like frontmatter fields and summary sections' first paragraphs, with spans."""
    out = []
    for key in SUMMARY_KEYS:
        text, cut = page.string(key), page.field_cut(key)
        if text and cut and len(text.split()) >= 3:
            out.append((text, cut))
    seen = set()
    for block in page.blocks():
        heading = (block.heading or "").lower()
        if heading in SUMMARY_HEADINGS and heading not in seen and is_prose(block):
            seen.add(heading)
            text = plain(block.text)
            if len(text.split()) >= 3:
                out.append((text, (page.rel, block.start, block.start + len(block.text))))
    return out


Found = dict[str, dict[str, dict[str, list[Cut]]]]  # kind -> query -> page -> cuts


def _add(found: Found, kind: str, query: str, rel: str, *cuts: Cut) -> None:
    found[kind][query].setdefault(rel, []).extend(cuts)


def collect(page: Page, found: Found) -> None:
    """Every candidate query of one page, by kind."""
    rel, title = page.rel, page.title()
    if title and len(title) >= 4:
        _add(found, "title", title, rel)
    description = page.string("description")
    described = description is not None and len(description.split()) >= 3
    if described:
        _add(found, "description", description or "", rel)
        cut = page.field_cut("description")
        if cut:
            _add(found, "description-stripped", description or "", rel, cut)
    for level, heading in page.headings():
        if level >= 2 and len(heading.split()) >= 2:
            _add(found, "heading", heading, rel)
    prose = [plain(b.text).split() for b in page.blocks() if is_prose(b)]
    prose = [words for words in prose if len(words) >= 12]
    for words in prose:
        _add(found, "sentence", " ".join(words[:8]), rel)
    summaries = summary_fields(page)
    for text, cut in summaries:
        _add(found, "summary-stripped", text, rel, cut)
    sentence = first_sentence(page)
    if sentence:
        _add(found, "first-sentence-stripped", sentence[0], rel, sentence[1])
    _collect_paraphrases(page, found, description if described else None, summaries, prose)


def _collect_paraphrases(
    page: Page,
    found: Found,
    description: str | None,
    summaries: list[tuple[str, Cut]],
    prose: list[list[str]],
) -> None:
    rel, title = page.rel, page.title() or ""
    listed = [(key, v) for key in ("answers", "aliases") for v in page.phrases(key)]
    for key, value in listed:
        _add(found, "paraphrase", value, rel)
        cut = page.field_cut(key)
        if cut:
            _add(found, "paraphrase-stripped", value, rel, cut)
    source = description or (" ".join(prose[0][:24]) if prose else None)
    if not listed and source:
        question = paraphrase(source, title)
        if question:
            _add(found, "paraphrase", question, rel)
    stripped_source: tuple[str, Cut | None] | None = None
    if description:
        stripped_source = (description, page.field_cut("description"))
    elif summaries:
        stripped_source = summaries[0]
    if not listed and stripped_source and stripped_source[1]:
        question = paraphrase(stripped_source[0], title)
        if question:
            _add(found, "paraphrase-stripped", question, rel, stripped_source[1])


def build_queries(corpus: Path, per_kind: int, seed: int) -> list[Query]:
    """A fixed-seed sample of up to `per_kind` queries of each kind (every one when
    `per_kind` is 0 or less, in the seed's order). A stripped kind is
    sampled with the seed of its plain kind, so `description` and `description-stripped`
    ask the same questions when every description can be cut."""
    found = _found(corpus)
    out: list[Query] = []
    for kind in KINDS:
        pool = sorted((q, pages) for q, pages in found[kind].items() if len(pages) <= MAX_ANSWERS)
        rng = random.Random(f"{seed}:{kind.removesuffix('-stripped')}")
        take = len(pool) if per_kind <= 0 else min(per_kind, len(pool))
        for text, pages in rng.sample(pool, take):
            cuts = tuple(cut for page_cuts in pages.values() for cut in page_cuts)
            out.append(Query(kind, text, frozenset(pages), cuts))
    return out


def _found(corpus: Path) -> Found:
    found: Found = {kind: defaultdict(dict) for kind in KINDS}
    for path in sorted(p for p in corpus.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        collect(Page(path.relative_to(corpus).as_posix(), read_page(path)), found)
    return found


def every_cut(corpus: Path, kind: str) -> list[Query]:
    """One query per page holding `kind`'s field, whatever answers it: cutting them all
    strips that field from every page (`--strip everywhere`)."""
    found = _found(corpus)[kind]
    return [
        Query(kind, text, frozenset(pages), tuple(c for cuts in pages.values() for c in cuts))
        for text, pages in found.items()
    ]


def strip_copy(corpus: Path, queries: list[Query]) -> int:
    """Cut every query's spans out of the pages of `corpus` (a copy); the pages changed."""
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for query in queries:
        for rel, start, end in query.cuts:
            spans[rel].append((start, end))
    for rel, ranges in spans.items():
        text = read_page(corpus / rel)
        merged: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        for start, end in reversed(merged):
            text = text[:start] + text[end:]
        write_page(corpus / rel, text)
    return len(spans)


# A small, fixed table of everyday words people use for the words docs use.
SYNONYMS = {
    "create": "make",
    "delete": "remove",
    "remove": "get rid of",
    "configure": "set up",
    "configuration": "settings",
    "install": "set up",
    "installation": "setup",
    "display": "show",
    "displays": "shows",
    "modify": "change",
    "update": "change",
    "retrieve": "get",
    "returns": "gives back",
    "return": "give back",
    "execute": "run",
    "executes": "runs",
    "specify": "give",
    "specified": "given",
    "enable": "turn on",
    "disable": "turn off",
    "enables": "turns on",
    "allows": "lets",
    "allow": "let",
    "use": "work with",
    "uses": "works with",
    "using": "with",
    "provides": "offers",
    "provide": "offer",
    "application": "app",
    "applications": "apps",
    "directory": "folder",
    "directories": "folders",
    "error": "failure",
    "errors": "failures",
    "start": "begin",
    "starts": "begins",
    "stop": "halt",
    "information": "info",
    "multiple": "several",
    "default": "standard",
    "method": "function",
    "parameter": "argument",
    "parameters": "arguments",
    "option": "setting",
    "options": "settings",
    "manage": "handle",
    "manages": "handles",
    "build": "compile",
    "view": "look at",
    "check": "verify",
    "requires": "needs",
    "require": "need",
    "available": "offered",
    "following": "these",
    "describes": "explains",
    "explains": "describes",
    "document": "page",
    "documentation": "docs",
    "file": "document",
}
_QUESTION_WORDS = ("how do I", "what is", "where can I find", "how to", "why does")
_STOP_TEXT = (
    "a an the is are was were be been being have has had do does did will would could should "
    "can may might shall how what when where which who why it i my we our you your they "
    "their this that these those in on at to for of with from by about and or not but if so "
    "its as into also than then there here such each all any more most some only other"
)
_STOP = frozenset(_STOP_TEXT.split())


def paraphrase(text: str, title: str) -> str | None:
    """A question about `text` that does not repeat it: a deterministic word-drop, shuffle
    and synonym swap, seeded by the text itself (so the same docs give the same queries)."""
    words = [w.strip(".,;:!?'").lower() for w in text.split()]
    content = [w for w in dict.fromkeys(words) if w and w not in _STOP and w.isascii()]
    if len(content) < 4:
        return None
    rng = random.Random(text)
    keep = sorted(rng.sample(range(len(content)), max(3, min(6, (len(content) * 2) // 3))))
    chosen = [SYNONYMS.get(content[i], content[i]) for i in keep]
    rng.shuffle(chosen)
    question = f"{rng.choice(_QUESTION_WORDS)} {' '.join(chosen)}"
    # a question that is a substring of the source or its title is not a paraphrase
    return None if question.lower() in (text.lower(), title.lower()) else question

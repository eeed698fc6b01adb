"""The `search` tool's query language: words, "phrases", `-negation` and `field:value` filters.

`FIELDS` is the grammar table: each filter's name, aliases, value syntax and meaning.
`docs/query-language.md` is rendered from it (`python -m kenso_git.search.lang.querylang`), and a
test fails when the page is stale. `parse` is one left-to-right pass over at most
`MAX_QUERY_CHARS` characters, so its cost is linear in the query; a token it cannot read
raises `QuerySyntaxError` naming that token and its column.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from dataclasses import field

from kenso_git.errors import UsageError

MAX_QUERY_CHARS = 2000  # as `search_docs` (search/ranked/query.py): one cap for both tools
MAX_TOKENS = 64
MAX_PATTERN_BYTES = 512


class QuerySyntaxError(UsageError):
    """A query the language cannot read; the message names the token and its column."""

    def __init__(self, message: str, *, token: str, column: int, hint: str) -> None:
        shown = token if len(token) <= 80 else token[:80] + "..."
        super().__init__(f"bad query token {shown!r} at column {column}: {message}", hint=hint)
        self.token = token
        self.column = column
        self.reason = message  # what is wrong with the token, without the token


@dataclass(frozen=True, slots=True)
class Field:
    """One `name:value` filter of the grammar."""

    name: str
    aliases: tuple[str, ...]
    syntax: str
    meaning: str
    example: str


FIELDS: tuple[Field, ...] = (
    Field(
        "in",
        ("path",),
        '`in:docs/api` or `in:"docs/my folder"`',
        "Only documents under this folder (or this exact file), repo-relative.",
        'in:"docs/api" token',
    ),
    Field(
        "ext",
        ("type",),
        "`ext:md`, `ext:.mdx`",
        "Only files with this extension (case-insensitive, the dot is optional).",
        "ext:mdx install",
    ),
    Field(
        "tag",
        ("tags",),
        "`tag:auth`",
        "Only documents whose frontmatter `tags` include this tag (case-insensitive).",
        "tag:auth login",
    ),
    Field(
        "category",
        ("cat",),
        "`category:guides`",
        "Only documents of this frontmatter category (case-insensitive).",
        "category:runbooks rollback",
    ),
    Field(
        "modified",
        ("since",),
        "`modified:7d` (`s`, `min`, `h`, `d`, `w`) or `modified:2026-01-31`",
        "Only files modified within the window (or since the date, UTC): the file's "
        "modification time in the work tree as recorded by the last sync.",
        "modified:7d tag:auth",
    ),
    Field(
        "size",
        (),
        "`size:>10k`, `size:<=2mb`, `size:500` (`>`, `>=`, `<`, `<=`, `=`; `b`, `k`, `m`)",
        "Only files whose size in bytes compares so (`k` = 1024 bytes).",
        "size:<4k",
    ),
    Field(
        "re",
        ("regex",),
        '`re:"fn \\w+"`',
        "Only documents whose text matches this RE2 regular expression (linear time, "
        f"at most {MAX_PATTERN_BYTES} bytes). The text is the one `regex_search` greps: "
        "the whole file as the work tree holds it, frontmatter and H1 title line too, "
        "read through the scope gate and at most `max-file-size` bytes (with `ref`, the "
        "file as that revision holds it); `total` counts every document it matches.",
        're:"v[0-9]+\\.[0-9]+" release',
    ),
)
_BY_NAME = {name: f for f in FIELDS for name in (f.name, *f.aliases)}
_DURATION = re.compile(r"(\d{1,6})(s|min|m|h|d|w)")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_SIZE = re.compile(r"(>=|<=|>|<|=)?(\d{1,12})(b|k|kb|m|mb|g|gb)?")
_UNIT_SECONDS = {"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_UNIT_BYTES = {"b": 1, "k": 1024, "kb": 1024, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30}
_UNIT_BYTES["gb"] = 1 << 30


@dataclass(frozen=True, slots=True)
class Term:
    """A word or a quoted phrase of the query; `negated` for `-word` / `-"a phrase"`."""

    text: str
    phrase: bool = False
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Filter:
    """One `name:value` filter, `name` being the canonical field name."""

    name: str
    value: str
    negated: bool = False
    number: int = 0  # modified: the cutoff (Unix seconds); size: the bytes
    op: str = ""  # size: the comparison


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: its words and phrases, and its filters."""

    terms: tuple[Term, ...] = ()
    filters: tuple[Filter, ...] = field(default=())
    # what looked like syntax and was read as words: `name:` prefixes that are no filter
    # ("How to: ..."), command-line flags (`--all`, `-g`), a quote never closed (`"`)
    read_as_words: tuple[str, ...] = ()

    def positive_terms(self) -> tuple[Term, ...]:
        """The words and phrases a document must contain."""
        return tuple(t for t in self.terms if not t.negated)

    def of(self, name: str) -> tuple[Filter, ...]:
        """The filters of one field."""
        return tuple(f for f in self.filters if f.name == name)


class _Unclosed(Exception):
    """A quote no later quote closes, at index `at` (`parse` reads it as a character)."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


def _read_token(text: str, i: int, *, quotes: bool = True) -> tuple[str, str | None, int]:
    """(bare text, quoted text or None, next index) of the token starting at `i`.

    A token is `[-][name:]"quoted"` or a run of non-space characters; `\\"` inside quotes is
    a literal quote. Without `quotes` (after a quote no later one closed), a quote ends a
    token like a space. Every character is visited once, and once more after a quote never
    closed (`_Unclosed`: nothing after it is read as a phrase again).
    """
    n = len(text)
    start = i
    while i < n and not text[i].isspace() and text[i] != '"':
        i += 1
    bare = text[start:i]
    if not quotes:
        return bare, None, i
    if i < n and bare not in ("", "-") and not bare.endswith(":"):
        # a quote after a word's characters is one of them, not a phrase: `16" wide`
        while i < n and not text[i].isspace():
            i += 1
        return text[start:i], None, i
    if i < n and text[i] == '"':
        i += 1
        out: list[str] = []
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                out.append('"')
                i += 2
                continue
            out.append(text[i])
            i += 1
        if i >= n:
            raise _Unclosed(start + len(bare))
        i += 1
        if i < n and not text[i].isspace():
            raise QuerySyntaxError(
                "a closing quote must be followed by a space",
                token=text[start : i + 1],
                column=start + 1,
                hint="put a space after the closing quote",
            )
        return bare, "".join(out), i
    return bare, None, i


def parse(
    text: str, *, now: float | None = None, caps: tuple[int, int] = (MAX_QUERY_CHARS, MAX_TOKENS)
) -> Query:
    """The `Query` of `text`, of at most `caps` (characters, tokens): the language's caps
    unless the text is not a caller's query (the filters of `SearchRequest`'s arguments).

    Raises:
        QuerySyntaxError: a token is malformed (unknown field, bad value, a filter's quote
            never closed), the query holds a NUL byte, is longer than `MAX_QUERY_CHARS` or
            has more than `MAX_TOKENS` tokens.
    """
    _check_text(text, caps[0])
    got = _Tokens(text, time.time() if now is None else now, caps[1])
    i, n = 0, len(text)
    quotes = True  # until a quote is never closed: then each one is a character
    while i < n:
        if text[i].isspace() or (not quotes and text[i] == '"'):
            i += 1
            continue
        start = i
        try:
            bare, quoted, i = _read_token(text, i, quotes=quotes)
        except _Unclosed as stray:
            # "a 16" wide form": the words before the quote, the quote a character (#31's
            # questions in words); a phrase still needs both its quotes
            _check_stray(text, start, stray.at)
            quotes = False
            got.unknown.append('"')
            bare, quoted, i = text[start : stray.at], None, stray.at + 1
            if bare in ("", "-"):
                continue
        got.add(bare, quoted, start, i)
    return Query(tuple(got.terms), tuple(got.filters), tuple(dict.fromkeys(got.unknown)))


def _check_text(text: str, limit: int = MAX_QUERY_CHARS) -> None:
    if len(text) > limit:
        raise QuerySyntaxError(
            f"the query is longer than {limit} characters",
            token=text[:20],
            column=1,
            hint="shorten the query; filters narrow better than many words",
        )
    nul = text.find("\x00")
    if nul >= 0:  # FTS5 reads a NUL as the end of its query string: refuse it by name (#27)
        raise QuerySyntaxError(
            "the query contains a NUL byte",
            token=_token_at(text, nul),
            column=nul + 1,
            hint="remove the NUL byte; search for plain words",
        )


def _check_stray(text: str, start: int, at: int) -> None:
    """A quote never closed after a filter's name or a negation's `-` is syntax, not a
    question's word (read as words, `-"old guide` would look for what it excludes)."""
    name = text[start:at].lstrip("-")
    if (name.endswith(":") and name[:-1].lower() in _BY_NAME) or text[start:at] == "-":
        raise QuerySyntaxError(
            "the quote is never closed",
            token=text[start:],
            column=start + 1,
            hint='close the phrase with a second `"`',
        )


class _Tokens:
    """The terms, filters and words-read-as-such of one query, token by token."""

    def __init__(self, text: str, clock: float, limit: int = MAX_TOKENS) -> None:
        self.text, self.clock, self.limit = text, clock, limit
        self.terms: list[Term] = []
        self.filters: list[Filter] = []
        self.unknown: list[str] = []

    def add(self, bare: str, quoted: str | None, start: int, end: int) -> None:
        text = self.text
        if len(self.terms) + len(self.filters) >= self.limit:
            raise QuerySyntaxError(
                f"the query has more than {self.limit} words and filters",
                token=text[start:end],
                column=start + 1,
                hint="drop words; use filters such as in: or tag: to narrow instead",
            )
        negated = bare.startswith("-") and (len(bare) > 1 or quoted is not None)
        body = bare[1:] if negated else bare
        if (
            quoted is None
            and negated
            and (body.startswith("-") or len(body) == 1 or body.isdigit())
        ):
            # a command-line flag (`--all`, `-g`) is the word a page documents, not a
            # negation: `npm ls --all` excluded every page holding "all", `ls`'s too; and
            # `-12` is a number (an error code), not "no page holding 12"
            self.terms.append(Term(bare))
            self.unknown.append(bare)
            return
        if quoted is None and '"' in bare:
            self.unknown.append('"')  # a quote inside a word is one of its characters
        name, colon, value = body.partition(":")
        if colon and name and quoted is None and (name.lower() not in _BY_NAME or not value):
            # prose, not a filter: "How to: ...", "x:Shared", "xref:System.IO" (#28), and a
            # filter's name with nothing after its colon ("Browser type: chromium")
            self.terms.append(Term(body, negated=negated))
            self.unknown.append(name + ":")
        elif colon and name:
            token = text[start:end]
            self.filters.append(_filter(name, value, quoted, negated, token, start + 1, self.clock))
        elif quoted is not None and not body:
            if quoted.strip():
                self.terms.append(Term(quoted.strip(), phrase=True, negated=negated))
        elif quoted is not None:
            raise QuerySyntaxError(
                "a quote inside a word",
                token=text[start:end],
                column=start + 1,
                hint='quote whole phrases: "like this"',
            )
        elif body:
            self.terms.append(Term(body, negated=negated))


def _token_at(text: str, i: int) -> str:
    """The whitespace-delimited token around index `i`."""
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = i
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def _filter(
    name: str,
    value: str,
    quoted: str | None,
    negated: bool,
    token: str,
    column: int,
    clock: float,
) -> Filter:
    spec = _BY_NAME.get(name.lower())
    if spec is None:
        known = ", ".join(f"{f.name}:" for f in FIELDS)
        raise QuerySyntaxError(
            f"unknown filter {name + ':'!r}",
            token=token,
            column=column,
            hint=f'the filters are {known}; quote a word with a colon: "{name}:{value}"',
        )
    if quoted is not None:
        if value:
            raise QuerySyntaxError(
                "quote the whole value", token=token, column=column, hint=f'write {name}:"..."'
            )
        value = quoted
    if not value:
        raise QuerySyntaxError(
            f"{spec.name}: needs a value", token=token, column=column, hint=spec.syntax
        )
    if spec.name == "modified":
        return Filter(spec.name, value, negated, number=_cutoff(value, token, column, clock))
    if spec.name == "size":
        op, size = _size(value, token, column)
        return Filter(spec.name, value, negated, number=size, op=op)
    if spec.name == "re":
        _check_pattern(value, token, column)
    if spec.name == "ext":
        value = value.lower().lstrip(".")
        if _EXTENSION.fullmatch(value) is None:  # `*.md`, `md,txt`: would match nothing
            raise QuerySyntaxError(
                "not a file extension",
                token=token,
                column=column,
                hint="use one extension, such as ext:md or ext:.mdx",
            )
    return Filter(spec.name, value, negated)


def _cutoff(value: str, token: str, column: int, clock: float) -> int:
    duration = _DURATION.fullmatch(value.lower())
    if duration is not None:
        return int(clock) - int(duration[1]) * _UNIT_SECONDS[duration[2]]
    date = _DATE.fullmatch(value)
    if date is not None:
        import calendar

        try:
            return calendar.timegm((int(date[1]), int(date[2]), int(date[3]), 0, 0, 0))
        except (ValueError, OverflowError):
            pass
    raise QuerySyntaxError(
        "not a window or a date",
        token=token,
        column=column,
        hint="use a lookback such as modified:7d, modified:12h, or a date modified:2026-01-31",
    )


_EXTENSION = re.compile(r"[a-z0-9][a-z0-9_+-]{0,30}")  # the letters a file extension has


def _size(value: str, token: str, column: int) -> tuple[str, int]:
    found = _SIZE.fullmatch(value.lower())
    if found is None:
        raise QuerySyntaxError(
            "not a size",
            token=token,
            column=column,
            hint="use a comparison and a size such as size:>10k or size:<=2mb",
        )
    return found[1] or "=", int(found[2]) * _UNIT_BYTES[found[3] or "b"]


def _check_pattern(value: str, token: str, column: int) -> None:
    if len(value.encode("utf-8")) > MAX_PATTERN_BYTES:
        raise QuerySyntaxError(
            f"the pattern is longer than {MAX_PATTERN_BYTES} bytes",
            token=token,
            column=column,
            hint="shorten the regular expression",
        )


def render_reference() -> str:
    """docs/query-language.md, generated from `FIELDS`."""
    lines = [
        "---",
        "title: Search Query Language",
        "description: >-",
        "  The query language of the search MCP tool and of kenso-git search with agent",
        "  flags: words, quoted phrases, negation and the in, ext, tag, category, modified,",
        "  size and re filters. Generated from kenso_git/search/lang/querylang.py.",
        "tags: [query-language, mcp, filters, regex, pagination]",
        "relates_to:",
        "  - path: docs/mcp-tools.md",
        "    relation: part_of",
        "---",
        "# Search Query Language",
        "",
        "<!-- Generated by `python -m kenso_git.search.lang.querylang`; do not edit. -->",
        "",
        "The `search` MCP tool (and `kenso-git search` with `--path`, `--ext`, `--tag`, `--since`,",
        "`--exhaustive`, `--page-size`, `--cursor` or `--format`) reads its query in this "
        "language. Without any of those flags `kenso-git search` answers as `search_docs`",
        "does, a filter in its query being searched as words; it says so on stderr.",
        "",
        "## Words, phrases and negation",
        "",
        "- Plain words are ranked as `search_docs` ranks them (mode `ranked`): documents holding",
        "  every word first, then those holding them near each other, then any of them, with",
        "  typo correction, synonyms and the ranking signals; documents whose path holds every",
        "  word follow. Mode `exhaustive` lists, by path, the documents holding every word",
        "  (full-text, stemmed, case-insensitive). Each ranked hit's `tier` says which stage",
        "  found it (`AND`, `NEAR`, `OR`, `path`, `filename`).",
        '- `"a quoted phrase"` must appear as written; `\\"` is a quote inside it.',
        "- Chinese, Japanese and Korean, written without spaces between words, are matched",
        "  inside runs of their characters, as ranked words are: a word's runs anywhere in a",
        '  chunk, a phrase as written (`"端口号"` finds `请确认端口号设置正确`), in both modes',
        "  and in a negation.",
        '- `-word`, `-"a phrase"` and `-field:value` exclude the documents that match. A',
        "  command-line flag to find (`-Recurse`, `-la`, the `-join` operator) goes in quotes,",
        '  `"-Recurse"`: written bare, it excludes the very pages that document it.',
        "- A query of filters only lists every document that passes them.",
        f"- A query holds at most {MAX_QUERY_CHARS} characters and {MAX_TOKENS} words and filters;",
        "  one with more is read by its phrases, negations and filters, as written, and its first",
        "  words that are neither stop words nor repeats, in their order, "
        f"{MAX_TOKENS} in all (a pasted",
        "  paragraph is answered, not refused); one whose phrases, negations and filters alone",
        f"  pass {MAX_TOKENS} is refused.",
        "- `name:value` whose name is no filter below is a word (`How to:`, `xref:System.IO`),",
        "  and so is a filter's name with nothing after its colon (`Browser type: chromium`);",
        "  a command-line flag (`--all`, `-g`) or a negative number (`-12`) is a word, not a",
        "  negation; a quote after a word's characters is one of them (`16\"`), and a quote no",
        "  later quote closes is a character, as is every quote after it (a negation's or a",
        "  filter's never-closed quote is an error). The page lists what it read so in",
        "  `read_as_words`, so a mistyped filter is seen.",
        "- A token the language cannot read is an error that names the token and its column.",
        "",
        "## Filters and their values",
        "",
        "| filter | aliases | value | meaning |",
        "|---|---|---|---|",
    ]
    for spec in FIELDS:
        aliases = ", ".join(f"`{a}:`" for a in spec.aliases) or "-"
        lines.append(f"| `{spec.name}:` | {aliases} | {spec.syntax} | {spec.meaning} |")
    lines += ["", "## Examples of filtered queries", "", "```text"]
    lines += [spec.example for spec in FIELDS]
    lines += ["```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render_reference())

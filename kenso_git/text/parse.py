"""Markdown text -> `Document`: frontmatter, headings outside fenced code, line map. Pure.

One parse per file feeds both ingest (chunking) and lint; nothing here touches the disk.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Mapping

from kenso_git.records import NamedTuple
from kenso_git.text import fences
from kenso_git.text.frontmatter import load_frontmatter
from kenso_git.text.frontmatter import load_toml_frontmatter
from kenso_git.text.frontmatter import split_frontmatter
from kenso_git.text.lines import entry_lines
from kenso_git.text.lines import line_starts
from kenso_git.text.lines import table_entry_lines

DEFAULT_RELATION = "related"


class Heading(NamedTuple):
    """An ATX heading (`#`..`######` at column 0, a space, text) outside fenced code."""

    level: int  # 1..6
    text: str  # the text after the hashes, trimmed
    line: int  # 1-based line number in the whole file (frontmatter included)
    offset: int  # character offset of the heading line's start within `Document.body`
    end: int  # character offset just past the line's text (before its newline) in `body`


class Relation(NamedTuple):
    """One raw `relates_to` entry as written (globs and empty paths kept: lint reports them)."""

    target: str  # trimmed text as written
    relation: str  # relation type, DEFAULT_RELATION when none given
    line: int  # 1-based file line of the entry (the `relates_to` line when unknown)


class Problem(NamedTuple):
    """Something wrong with the file that did not stop it from being indexed."""

    message: str
    line: int  # 1-based file line
    kind: str = ""  # ENCODING, FRONTMATTER or RELATES_TO: which lint rule reports it
    column: int = 1  # 1-based, in characters of the decoded line


# Problem kinds
ENCODING = "encoding"  # bytes the codec could not read, replaced with U+FFFD (KS021)
FRONTMATTER = "frontmatter"  # YAML that did not load: fields salvaged line by line (KS020)
RELATES_TO = "relates_to"  # a relates_to entry that names no path


class Document(NamedTuple):
    """A parsed Markdown file. Everything lint and the chunker need, computed once."""

    path: str  # repo-relative POSIX path
    text: str  # the whole decoded file, BOM dropped, newlines normalised to \n
    body: str  # the text after the frontmatter block
    body_line: int  # 1-based file line on which `body` starts
    frontmatter: Mapping[str, object]  # {} when absent or malformed
    has_frontmatter: bool
    headings: tuple[Heading, ...]  # outside fenced code, in document order
    fences: tuple[tuple[int, int], ...]  # [start, end) offsets in `body` of fenced code blocks
    h1: str | None  # text of the first H1 outside fenced code
    fm_title: str | None  # frontmatter `title` when it is a non-blank string, trimmed
    category: str  # frontmatter category, else the parent folder's name, else "general"
    audience: str  # frontmatter audience, default "all"
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    answers: tuple[str, ...]
    predicted_queries: tuple[str, ...]
    description: str | None
    relations: tuple[Relation, ...]
    problems: tuple[Problem, ...]

    @property
    def stem(self) -> str:
        """The file name without its last suffix (`my-doc.md` -> `my-doc`)."""
        name = self.path.rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[0] if "." in name else name

    @property
    def title(self) -> str | None:
        """The resolved title: the first H1, else the frontmatter title, else None."""
        return self.h1 if self.h1 is not None else self.fm_title

    @property
    def display_title(self) -> str:
        """The resolved title, else the file stem; also the chunk-title prefix."""
        resolved = self.title
        return resolved if resolved is not None else self.stem

    def line_of(self, offset: int) -> int:
        """1-based file line of a character offset in `body` (bisection: many calls stay linear)."""
        return self.body_line + bisect.bisect_right(line_starts(self.body), offset) - 1

    def headings_at(self, level: int) -> tuple[Heading, ...]:
        return tuple(h for h in self.headings if h.level == level)


class Section(NamedTuple):
    """An H2 section: from its heading line to the next H2 (or the end of the body)."""

    heading: Heading
    start: int  # offset of the heading line in `body`
    end: int  # offset where the next H2 line starts, or len(body)

    def full_text(self, doc: Document) -> str:
        """Heading line included, trimmed: what the chunker sees and measures."""
        return doc.body[self.start : self.end].strip()

    def content(self, doc: Document) -> str:
        """Heading line excluded, trimmed."""
        return doc.body[self.heading.end : self.end].strip()


def h2_sections(doc: Document) -> list[Section]:
    """The document's H2 sections in order (H3+ headings do not end a section)."""
    h2s = doc.headings_at(2)
    ends = [h.offset for h in h2s[1:]] + ([len(doc.body)] if h2s else [])
    return [Section(h, h.offset, end) for h, end in zip(h2s, ends, strict=True)]


# --- decoding and paths -------------------------------------------------------------------------


# UTF-32 first: its little-endian BOM starts with UTF-16's.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def unicode_bom(data: bytes) -> str | None:
    """The codec a UTF-16 or UTF-32 byte-order mark at the start of `data` names, else None
    (such files hold NUL bytes, and must not be taken for binary files)."""
    return next((codec for bom, codec in _WIDE_BOMS if data.startswith(bom)), None)


BINARY_PROBE = 8192  # the bytes a file's first NUL byte is looked for in


def looks_binary(data: bytes) -> bool:
    """Whether `data` is not text: a NUL byte among its first `BINARY_PROBE` bytes, with no
    UTF-16 or UTF-32 byte-order mark that would explain it (what ingest skips as binary)."""
    return b"\x00" in data[:BINARY_PROBE] and unicode_bom(data) is None


def as_utf8(data: bytes) -> bytes:
    """`data` as UTF-8 bytes: text a UTF-16 or UTF-32 byte-order mark announces is
    transcoded (as `decode` reads it, the mark dropped); anything else is returned as is."""
    return data if unicode_bom(data) is None else decode(data)[0].encode("utf-8")


def decode(data: bytes) -> tuple[str, list[Problem]]:
    """Text of a file: UTF-8 (a leading BOM dropped, bad bytes replaced with one Problem), or
    UTF-16/UTF-32 when a byte-order mark says so; CRLF kept."""
    wide = unicode_bom(data)
    if wide is not None:
        try:
            return data.decode(wide), []  # the codec reads and drops the BOM
        except UnicodeDecodeError as exc:
            message = (
                f"the text is not valid {wide} (bad bytes at byte {exc.start:,}); they were "
                "replaced with U+FFFD: re-save the file as utf-8"
            )
            return data.decode(wide, errors="replace"), [Problem(message, 1, ENCODING)]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        # the line decodes up to the first bad byte: its characters give the column
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8")) + 1
        message = (
            f"the text is not valid utf-8 (byte 0x{data[exc.start]:02x} at column {column}); "
            "bad bytes were replaced with U+FFFD: re-save the file as utf-8"
        )
        problem = Problem(message, line, ENCODING, column)
        return data.decode("utf-8", errors="replace"), [problem]


def derive_category(path: str, frontmatter: Mapping[str, object]) -> str:
    """Frontmatter `category` if a non-empty string, else the parent folder name, else general."""
    value = frontmatter.get("category")
    if isinstance(value, str) and value:
        return value
    parent = path.rpartition("/")[0]
    return parent.rpartition("/")[2] if parent else "general"


def is_normal_path(path: str) -> bool:
    """True when `posixpath.normpath(path) == path` for a relative path, told without it
    (the common case: a link to `folder/file.md`; normpath costs ~1 us a call)."""
    return bool(path) and not (
        "//" in path
        or "/./" in path
        or "/../" in path
        or path.startswith(("./", "../", "/"))
        or path.endswith(("/", "/.", "/.."))
        or path in (".", "..")
    )


def normalise_target(source_path: str, target: str) -> str:
    """A `relates_to` target as a root-relative POSIX path (`./x`, `../x`: from the source)."""
    target = target.strip()
    if not target:
        return ""
    if target in (".", "..") or target.startswith(("./", "../")):
        joined = posixpath.join(posixpath.dirname(source_path), target)
    else:
        joined = target.lstrip("/")
        if is_normal_path(joined):
            return joined
    return posixpath.normpath(joined) if joined else ""


# --- metadata fields --------------------------------------------------------------------------


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(t for t in (p.strip() for p in value.split(",")) if t)
    if isinstance(value, list):
        return tuple(t for t in (str(v).strip() for v in value if v is not None) if t)
    return ()


def _str_list(value: object) -> tuple[str, ...]:
    """List fields (aliases, answers, predicted_queries): items stringified, not trimmed."""
    if isinstance(value, list):
        return tuple(str(v) for v in value if v is not None)
    return ()


def _nonblank(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _raw_relations(
    value: object, problems: list[Problem], key_line: int
) -> list[tuple[int, str, str]]:
    """Every raw `relates_to` entry as (list index, target, relation); globs and empty
    strings are kept."""
    if isinstance(value, str):
        return [(0, p.strip(), DEFAULT_RELATION) for p in value.split(",") if p.strip()]
    if not isinstance(value, list):
        return []
    triples: list[tuple[int, str, str]] = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            triples.append((index, item.strip(), DEFAULT_RELATION))
        elif isinstance(item, dict):
            path = item.get("path")
            target = "" if path is None else str(path).strip()
            if not target:
                message = "a relates_to entry has no path; add `path: <file>.md` or remove it"
                problems.append(Problem(message, key_line, RELATES_TO))
                continue
            relation = item.get("relation")
            name = str(relation).strip() if relation else DEFAULT_RELATION
            triples.append((index, target, name))
    return triples


def _relations(
    value: object, block: str, first_line: int, problems: list[Problem], block_is_toml: bool
) -> tuple[Relation, ...]:
    """Relations with the file line of each entry, found by a best-effort scan of the block."""
    if value is None:
        return ()
    lines = block.split("\n")
    key_idx = next((i for i, ln in enumerate(lines) if ln.startswith("relates_to")), 0)
    triples = _raw_relations(value, problems, first_line + key_idx)
    entries = len(value) if isinstance(value, list) else -1
    targets = [(i, target) for i, target, _ in triples]
    found = table_entry_lines(lines, "relates_to", entries, targets) if block_is_toml else None
    if found is None:
        found = entry_lines(lines, key_idx, entries, targets)
    return tuple(
        Relation(target, relation, first_line + line)
        for (_i, target, relation), line in zip(triples, found, strict=True)
    )


# --- headings and fences ----------------------------------------------------------------------

# Lines that may be a heading or a fence, found after a newline (much faster than `^` + MULTILINE).
_CANDIDATE_RE = re.compile(r"\n(?:#{1,6} |" + fences.CANDIDATE + ")")
_FIRST_CANDIDATE_RE = re.compile(r"#{1,6} |" + fences.CANDIDATE)


def _scan_body(
    body: str, body_line: int
) -> tuple[tuple[Heading, ...], tuple[tuple[int, int], ...]]:
    """ATX headings outside fenced code, and the fenced code ranges (CommonMark essentials;
    a list item's fences bounded as `text.fences` says)."""
    headings: list[Heading] = []
    found: list[tuple[int, int]] = []
    fence: fences.OpenFence | None = None
    item_ends = fences.ItemEnds(body)
    line_no, counted = body_line, 0
    starts = [0] if _FIRST_CANDIDATE_RE.match(body) else []
    starts.extend(match.start() + 1 for match in _CANDIDATE_RE.finditer(body))
    for start in starts:
        end = body.find("\n", start)
        if end < 0:
            end = len(body)
        line = body[start:end]
        if fence is not None:
            if start < fence.limit:
                if fence.closes(line):
                    found.append((fence.start, end))
                    fence = None
                continue
            found.append((fence.start, fence.limit - 1))  # its list item ended before here
            fence = None
        if line[0] == "#":
            text = line.lstrip("#").strip()
            if text:
                line_no += body.count("\n", counted, start)
                counted = start
                headings.append(
                    Heading(len(line) - len(line.lstrip("#")), text, line_no, start, end)
                )
            continue
        fence = fences.opened(body, start, end, item_ends)
    if fence is not None:
        found.append((fence.start, min(fence.limit - 1, len(body))))
    return tuple(headings), tuple(found)


# --- the document -----------------------------------------------------------------------------


def parse_document(path: str, text: str) -> Document:
    """Parse one Markdown file's decoded text. Never raises on bad input: see `problems`."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:  # universal newlines, as kenso reads files: chunks and offsets see only \n
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    problems: list[Problem] = []
    newline = text.find("\n")
    head = text if newline < 0 else text[:newline]  # the first line, the rest not copied
    # Hugo's TOML front matter (a `+++` line, as Hugo reads it), else YAML as kenso reads it
    fence = "+++" if head == "+++" else "---"
    block, first_line, body_start = split_frontmatter(text, fence)
    frontmatter: dict[str, object] = {}
    if block is not None:
        load = load_toml_frontmatter if fence == "+++" else load_frontmatter
        frontmatter, error = load(block, first_line)
        if error is not None:
            problems.append(Problem(*error, FRONTMATTER))
    elif head == fence:
        message = (
            f"frontmatter opened with `{fence}` is never closed; add a `{fence}` line after it"
        )
        problems.append(Problem(message, 1, FRONTMATTER))
    body = text[body_start:]
    body_line = text.count("\n", 0, body_start) + 1
    headings, fences = _scan_body(body, body_line)
    h1 = next((h.text for h in headings if h.level == 1), None)
    toml = fence == "+++"
    relations = _relations(frontmatter.get("relates_to"), block or "", first_line, problems, toml)
    return Document(
        path=path,
        text=text,
        body=body,
        body_line=body_line,
        frontmatter=frontmatter,
        has_frontmatter=block is not None,
        headings=headings,
        fences=fences,
        h1=h1,
        fm_title=_nonblank(frontmatter.get("title")),
        category=derive_category(path, frontmatter),
        audience=_nonblank(frontmatter.get("audience")) or "all",
        tags=_tags(frontmatter.get("tags")),
        aliases=_str_list(frontmatter.get("aliases")),
        answers=_str_list(frontmatter.get("answers")),
        predicted_queries=_str_list(frontmatter.get("predicted_queries")),
        description=_nonblank(frontmatter.get("description")),
        relations=relations,
        problems=tuple(problems),
    )

"""The commits of a range as `git log A..B -- PATH` shows them, for every path in one walk.

git log limited to a path simplifies history by default (revision.c, `try_to_simplify_commit`):
a merge the same as one of its parents at the path (TREESAME) is not shown, and only the
first such parent is followed, so the commits of its other parents are not shown either (the
side branch whose text the merge left out). A merge that differs from every parent there (a
conflict resolved, an "evil merge") is shown. `git log --name-status` without a path shows no
merge's changes at all, so each path's log is worked out here: one `git log --pretty=raw
--diff-merges=separate` (a merge's diff against each parent, named by its `(from PARENT)`
line; a parent with no diff is the same tree) read newest first, children before parents
(`--date-order`), each commit carrying the set of paths whose log reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.repo.worktreediff import Entry

# One commit per record (a merge: one per parent it differs from), its changes by name;
# user settings that would change the records are turned off.
LOG_ARGS = (
    "--pretty=raw", "--date-order", "--name-status", "-M", "-z", "--root",
    "--diff-merges=separate", "--no-decorate", "--no-show-signature", "--no-mailmap",
    "--no-abbrev-commit", "--no-color",
)  # fmt: skip
_STATUS = re.compile(r"[ACDMRTUXB][0-9]*")

# A subject or author past this is cut (git asks for 50 to 72 characters): every answer
# naming the commit must fit an agent's answer (48,000 characters), whatever a commit says.
MAX_HEADER_CHARS = 1000


def capped(text: str) -> str:
    """`text` cut to `MAX_HEADER_CHARS`."""
    return text if len(text) <= MAX_HEADER_CHARS else text[: MAX_HEADER_CHARS - 1] + "…"


class Commit(NamedTuple):
    """One commit, as a doc's history shows it."""

    id: str
    time: int  # committer time, Unix seconds
    author: str
    subject: str

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "time": self.time, "author": self.author, "subject": self.subject}


class _Record(NamedTuple):
    commit: Commit
    parents: tuple[str, ...]
    against: str | None  # a merge's record: the parent its changes are against
    entries: list[Entry]


class Reach(NamedTuple):
    """The paths whose log reaches a commit: those of `paths`, or every path but those."""

    all_but: bool
    paths: frozenset[str]

    def has(self, path: str) -> bool:
        return (path not in self.paths) if self.all_but else (path in self.paths)


EVERY = Reach(True, frozenset())


def _union(a: Reach | None, b: Reach) -> Reach:
    if a is None:
        return b
    if a.all_but and b.all_but:
        return Reach(True, a.paths & b.paths)
    if a.all_but or b.all_but:
        every, some = (a, b) if a.all_but else (b, a)
        return Reach(True, every.paths - some.paths)
    return Reach(False, a.paths | b.paths)


def _meet(a: Reach, b: Reach) -> Reach:
    if b is EVERY:
        return a
    if a.all_but and b.all_but:
        return Reach(True, a.paths | b.paths)
    if a.all_but or b.all_but:
        every, some = (a, b) if a.all_but else (b, a)
        return Reach(False, some.paths - every.paths)
    return Reach(False, a.paths & b.paths)


class Step(NamedTuple):
    """A commit of the range: its changes (a merge: the paths it is shown for, as `M`), and
    the paths whose log shows it (`reach.has`)."""

    commit: Commit
    entries: list[Entry]
    reach: Reach


def walk(out: str, old: str, keep: Callable[[str], bool]) -> Iterator[Step]:
    """The commits of `git log LOG_ARGS old..new` output `out`, newest first, each with the
    paths (those `keep` lets through) whose `git log old..new -- PATH` shows it."""
    records = list(_records(out))
    in_range = {r.commit.id for r in records}
    reach: dict[str, Reach] = {}
    i = 0
    while i < len(records):
        first = records[i]
        j = i + 1
        while j < len(records) and records[j].commit.id == first.commit.id:
            j += 1
        here = reach.pop(first.commit.id, EVERY)
        if len(first.parents) > 1:
            step = _merge(records[i:j], here, reach, in_range, old, keep)
        else:
            step = _linear(first, here, reach, in_range, keep)
        yield step
        i = j


def _linear(
    record: _Record,
    here: Reach,
    reach: dict[str, Reach],
    in_range: set[str],
    keep: Callable[[str], bool],
) -> Step:
    """A commit of one parent (or none): shown for what it changed; its parent is reached
    for what it is reached for, a renamed path's old name as the new one."""
    if record.parents and record.parents[0] in in_range:
        below = here
        for code, before, after in record.entries:
            if code[:1] != "R" or before is None or not keep(before):
                continue
            if below.has(before) != below.has(after):
                below = Reach(below.all_but, below.paths ^ {before})
        parent = record.parents[0]
        reach[parent] = _union(reach.get(parent), below)
    return Step(record.commit, record.entries, here)


def _merge(
    records: Sequence[_Record],
    here: Reach,
    reach: dict[str, Reach],
    in_range: set[str],
    old: str,
    keep: Callable[[str], bool],
) -> Step:
    """A merge, per path as git simplifies it: shown where it differs from every relevant
    parent (one of the range, or `old` itself), else only the first relevant parent that has
    the path as the merge has it is followed."""
    parents = records[0].parents
    differs: dict[str, set[str]] = {p: set() for p in parents}
    for record in records:
        if record.against is not None:
            names = differs.setdefault(record.against, set())
            for _code, before, after in record.entries:
                names.update(n for n in (before, after) if n is not None and keep(n))
    relevant = [p for p in parents if p in in_range or p == old]
    chosen: dict[str, str | None] = {}  # a path the merge differs from some parent at
    for path in set().union(*differs.values()):
        if here.has(path):
            chosen[path] = next((p for p in relevant if path not in differs[p]), None)
    shown = sorted(path for path, parent in chosen.items() if parent is None)
    for parent in dict.fromkeys(parents):
        if parent not in in_range:
            continue  # `old` or older: nothing of the range lies behind it
        if parent == relevant[0]:  # every path the merge has as another parent has
            edge = Reach(True, frozenset(p for p, c in chosen.items() if c not in (None, parent)))
        else:  # only the paths the merge has as this parent has, or as no parent has
            edge = Reach(False, frozenset(p for p, c in chosen.items() if c in (None, parent)))
        reach[parent] = _union(reach.get(parent), _meet(here, edge))
    return Step(records[0].commit, [("M", None, path) for path in shown], EVERY)


def _records(out: str) -> Iterator[_Record]:
    """The records of `git log LOG_ARGS` output: a header (its last line, the first
    change's status), then NUL-separated status and path fields, an empty field ending them."""
    fields = out.split("\0")
    i, n = 0, len(fields)
    while i < n:
        token = fields[i]
        i += 1
        if not token.startswith("commit "):
            continue  # the empty field that ends a commit's changes
        header, _, status = token.rpartition("\n")
        entries: list[Entry] = []
        while status and _STATUS.fullmatch(status):
            width = 2 if status[:1] in "RC" else 1
            if i + width > n:
                break
            if width == 2:
                entries.append((status, fields[i], fields[i + 1]))
            else:
                entries.append((status, None, fields[i]))
            i += width
            status = fields[i] if i < n else ""
            if _STATUS.fullmatch(status):
                i += 1
        yield _record(header, entries)


def _record(header: str, entries: list[Entry]) -> _Record:
    head, _, message = header.partition("\n\n")
    lines = head.split("\n")
    words = lines[0].split()
    against = words[3].rstrip(")") if len(words) >= 4 and words[2] == "(from" else None
    parents: list[str] = []
    author, when = "", 0
    for line in lines[1:]:
        if line.startswith("parent "):
            parents.append(line[7:].strip())
        elif line.startswith("author "):
            author = line[7:].partition("<")[0].rstrip()
        elif line.startswith("committer "):
            stamp = line.rpartition(">")[2].split()
            when = int(stamp[0]) if stamp and stamp[0].isdigit() else 0
    commit = Commit(words[1], when, capped(author), capped(_subject(message)))
    return _Record(commit, tuple(parents), against, entries)


def _subject(message: str) -> str:
    """git's `%s`: the first paragraph of the message (indented by 4 in the raw format), its
    lines joined by a space."""
    out: list[str] = []
    for raw in message.split("\n"):
        line = (raw[4:] if raw.startswith("    ") else raw).rstrip()
        if line:
            out.append(line)
        elif out:
            break
    return " ".join(out)

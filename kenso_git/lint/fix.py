"""`lint --fix`: apply the edits fixable rules attach to their findings, atomically per file.

An edit replaces the text a finding names (`Edit.old`) at its 1-based line and column. It is
applied only where that text still stands, so a file edited since the lint keeps the edit
made to it. A fix can uncover another (a link to a moved page, once rewritten, names an
anchor that differs in case; an edit overlapping one taken on its line waits): the fixed
texts are linted again in memory and fixed again, up to `MAX_PASSES`, so one `--fix` (and
one `--diff`) makes every change. Line endings, a byte-order mark and the bytes of
untouched lines are kept as they are. A file is written only over the bytes its fixes were
worked out from (`lint.rewrite`): one that changed while `--fix` ran is left as it is now.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

from kenso_git.lint.model import Edit
from kenso_git.lint.model import Violation
from kenso_git.lint.rewrite import Snapshot
from kenso_git.lint.rewrite import read_snapshot
from kenso_git.lint.rewrite import rewrite
from kenso_git.records import NamedTuple
from kenso_git.text.parse import unicode_bom

_BOM = "\ufeff"
MAX_PASSES = 4  # a fix uncovers at most a case slip or an overlapping edit: a few passes do
CHANGED = "changed while lint --fix ran; run lint --fix again"


class Fixed(NamedTuple):
    """What one file's fixes came to: its new text, and how many edits were applied."""

    path: str  # repo-relative POSIX
    before: str
    after: str
    applied: int
    codec: str = "utf-8"  # a UTF-16/32 file is written back in its own encoding
    bom: bytes = b""  # ... after its own byte-order mark
    read: Snapshot | None = None  # the file as read for the fix: written only over these bytes


class FixOutcome(NamedTuple):
    """What `lint --fix` changed (or, with `--diff`, would change)."""

    files: tuple[Fixed, ...]  # files whose text changes, in path order
    unfixed: tuple[tuple[str, str], ...] = ()  # (path, why) of files with edits left alone

    @property
    def applied(self) -> int:
        return sum(f.applied for f in self.files)

    def diff(self) -> str:
        """The changes as one unified diff `git apply` and `patch` take (`a/` and `b/`
        prefixes, as git writes them)."""
        out: list[str] = []
        for fixed in self.files:
            out.extend(
                difflib.unified_diff(
                    _patch_lines(fixed.before),
                    _patch_lines(fixed.after),
                    f"a/{fixed.path}",
                    f"b/{fixed.path}",
                )
            )
        return "".join(line if line.endswith("\n") else line + _NO_NEWLINE for line in out)


# A patch's lines are git's and patch's: each ends at `\n` only, so a lone `\r` stays inside
# its line (a file with old Mac line ends is one line to them), and a last line without a
# `\n` is followed by the marker that says so.
_PATCH_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_NO_NEWLINE = "\n\\ No newline at end of file\n"


def _patch_lines(text: str) -> list[str]:
    return _PATCH_LINE.findall(text)


# A line and its break as the linter counts them: `\r\n`, `\r` or `\n` (universal
# newlines, `text.parse`); `str.splitlines` also breaks at a form feed, `\x85` or U+2028,
# which would shift every edit below one.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(text: str) -> list[str]:
    """`text`'s lines as the linter numbers them, each with its line break."""
    return _LINE.findall(text)


def apply_edits(text: str, edits: Iterable[Edit]) -> tuple[str, int]:
    """`text` with each edit applied where its `old` text stands; (new text, edits applied)."""
    lines = _lines(text)
    shift = 1 if text.startswith(_BOM) else 0  # columns count from after the mark
    by_line: dict[int, list[Edit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    applied = 0
    for number, mine in by_line.items():
        if not 1 <= number <= len(lines):
            continue
        line = lines[number - 1]
        lead = shift if number == 1 else 0
        taken_from = len(line) + 1  # edits go right to left, none may reach into a later one
        for edit in sorted(set(mine), key=lambda e: e.column, reverse=True):
            start = edit.column - 1 + lead
            end = start + len(edit.old)
            if start < lead or end > taken_from or line[start:end] != edit.old:
                continue
            line = line[:start] + edit.new + line[end:]
            taken_from = start
            applied += 1
        lines[number - 1] = line
    return "".join(lines), applied


def plan_fixes(
    root: Path, violations: Sequence[Violation], texts: Mapping[str, str] | None = None
) -> FixOutcome:
    """Read each file with fixable findings and work out its fixed text (nothing written);
    a file in `texts` (repo-relative path -> text) is taken as it reads there.

    A file that is not UTF-8 or cannot be read is left alone: its findings stay reported.
    Nothing is written through a symbolic link: a link's findings were judged from where
    the link stands, and its relative links resolve from the real file's folder there; the
    page it leads to is fixed on its own findings, and a note says so when it was not linted.
    """
    edits: dict[str, set[Edit]] = {}
    aliases: dict[str, str | None] = {}  # a linked path -> the repo path of the file it leads to
    for v in violations:
        if v.fix is None:
            continue
        real = _real_path(root, v.path)
        if real == v.path:
            edits.setdefault(v.path, set()).add(v.fix)
        else:
            aliases[v.path] = real
    out: list[Fixed] = []
    unfixed = [
        (alias, _alias_note(real))
        for alias, real in sorted(aliases.items())
        if real not in edits  # else the page is fixed on its own findings: nothing to say
    ]
    for path in sorted(edits):
        if texts is not None and path in texts:
            before, codec, bom, snapshot = texts[path], "utf-8", b"", None
        else:
            read = _read(root / path)
            if isinstance(read, str):
                unfixed.append((path, read))
                continue
            before, codec, bom, snapshot = read
        after, applied = apply_edits(before, edits[path])
        if applied and after != before:
            out.append(Fixed(path, before, after, applied, codec, bom, snapshot))
    return FixOutcome(tuple(out), tuple(sorted(unfixed)))


def _real_path(root: Path, path: str) -> str | None:
    """The repo path of the file `path` leads to (itself unless a symbolic link is on its
    way), or None when that file is outside the repository."""
    inside = root.resolve()
    real = (inside / path).resolve()
    return real.relative_to(inside).as_posix() if real.is_relative_to(inside) else None


def _alias_note(real: str | None) -> str:
    if real is None:
        return "a symbolic link to a file outside the repository"
    return f"a symbolic link to {real}; fix {real} itself"


def _read(path: Path) -> tuple[str, str, bytes, Snapshot] | str:
    """(text, codec, byte-order mark, the bytes read) of a file to fix, or why it is left
    alone. UTF-8 keeps its mark in the text (edits count columns after it); UTF-16 and
    UTF-32 are read after their mark and written back in the same encoding and byte order."""
    try:
        snapshot = read_snapshot(path)
    except OSError as err:
        return f"not read ({err.strerror or err})"
    data = snapshot.data
    wide = unicode_bom(data)  # "utf-16" or "utf-32": the parser's own reading of the mark
    if wide is not None:
        size = 4 if wide == "utf-32" else 2
        codec = f"{wide}-{'le' if data[0] == 0xFF else 'be'}"  # the order the mark says
        try:
            return data[size:].decode(codec), codec, data[:size], snapshot
        except UnicodeDecodeError:
            return f"not valid {codec.upper()}: re-save it as UTF-8"
    try:
        return data.decode("utf-8"), "utf-8", b"", snapshot
    except UnicodeDecodeError:
        return "not valid UTF-8: re-save it as UTF-8"


def plan_fix_passes(
    root: Path,
    violations: Sequence[Violation],
    relint: Callable[[str, str], Sequence[Violation]],
    passes: int = MAX_PASSES,
) -> FixOutcome:
    """`plan_fixes`, then the fixed texts linted again (`relint(path, text)`, in memory) and
    fixed again until no edit applies or `passes` are made: one outcome, each file's text
    before the first pass and after the last."""
    outcome = plan_fixes(root, violations)
    done = {f.path: f for f in outcome.files}
    for _ in range(passes - 1):
        current = {path: f.after for path, f in done.items()}
        found = [v for path, text in current.items() for v in relint(path, text)]
        more = plan_fixes(root, found, current)
        if not more.files:
            break
        for f in more.files:
            first = done[f.path]
            done[f.path] = first._replace(after=f.after, applied=first.applied + f.applied)
    # a later pass may undo an earlier one: such a file changes nothing, and is not counted
    changed = (done[path] for path in sorted(done))
    return FixOutcome(tuple(f for f in changed if f.after != f.before), outcome.unfixed)


def write_fixes(root: Path, outcome: FixOutcome) -> FixOutcome:
    """Write each fixed file (`lint.rewrite`: atomically, its mode, owner and hard links
    kept) if it still holds the bytes its fixes were worked out from; one that changed
    since is left as it is now and joins `unfixed`. Returns what was written.

    Raises:
        OSError: a file could not be written (the files before it are fixed).
    """
    done, failure = write_fixes_until_failure(root, outcome)
    if failure is not None:
        raise failure[1]
    return done


def write_fixes_until_failure(
    root: Path, outcome: FixOutcome
) -> tuple[FixOutcome, tuple[str, OSError] | None]:
    """`write_fixes` stopping at the first file it cannot write: what was written (and
    left `unfixed`) before it, and that file's path and error (None when all were)."""
    written: list[Fixed] = []
    changed: list[tuple[str, str]] = []
    failure = None
    for fixed in outcome.files:
        was = fixed.read
        if was is None:  # a plan of texts given (`plan_fixes(texts=...)`): written over them
            was = Snapshot(fixed.bom + fixed.before.encode(fixed.codec))
        data = fixed.bom + fixed.after.encode(fixed.codec)
        try:
            wrote = rewrite(root / fixed.path, was, data)
        except OSError as err:
            failure = (fixed.path, err)
            break
        if wrote:
            written.append(fixed)
        else:
            changed.append((fixed.path, CHANGED))
    return FixOutcome(tuple(written), tuple(sorted((*outcome.unfixed, *changed)))), failure

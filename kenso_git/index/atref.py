"""The index of the docs as they are in another commit (#29's `--ref`), made without touching
the work tree, git's index or HEAD.

The checkout's index is copied page by page (SQLite's backup API: no re-tokenising) and the
docs that differ at the revision are applied to the copy: the checkout's paths that differ
are deleted, the revision's blobs are read with `git cat-file --batch` and parsed by the same
parser the indexer uses. BM25 statistics, the cascade, every signal and the typo vocabulary
are then those of the docs at the revision, and the same ranking code runs unchanged. A
revision that differs from the checkout in ten docs costs those ten parses.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Callable
from pathlib import Path

from kenso_git.config import Settings
from kenso_git.errors import GitError
from kenso_git.index.freshness import settings_fingerprint
from kenso_git.index.prepare import Options
from kenso_git.index.prepare import _parse
from kenso_git.index.report import IngestReport
from kenso_git.index.run import Run
from kenso_git.index.run import finish
from kenso_git.index.run import never_indexed
from kenso_git.index.run import remove_vanished
from kenso_git.records import NamedTuple
from kenso_git.repo.discover import SourceFile
from kenso_git.repo.gitrun import feed_git
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.ignore import ALWAYS_SKIPPED_DIRS
from kenso_git.repo.ignore import Signature
from kenso_git.repo.ignore import signatures_hold
from kenso_git.repo.revname import resolve_revision
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import in_scope
from kenso_git.repo.workspace import is_markdown
from kenso_git.store import schema
from kenso_git.store import vocab
from kenso_git.store.connection import transaction
from kenso_git.store.files import FileRow
from kenso_git.store.files import load_files
from kenso_git.store.meta import meta_scope
from kenso_git.store.meta import read_meta
from kenso_git.store.meta import write_meta
from kenso_git.store.pagecopy import open_copy
from kenso_git.store.revcache import Delta
from kenso_git.store.revcache import RevisionCache
from kenso_git.store.revcache import rules_from_json
from kenso_git.store.revcache import rules_json


class Revision(NamedTuple):
    """What `materialize` made: the revision's commit, how far it is from the checkout, and
    the ignore-rule files its docs were chosen with (their signatures then: the copy holds
    while `signatures_hold` says they are unchanged)."""

    ref: str
    commit: str
    differing: int  # docs whose text (or presence) at the revision is not the checkout's
    rules: dict[str, Signature]


def tree_blobs(
    ws: Workspace, commit: str, scope: list[str], ignored: Callable[[str], bool]
) -> dict[str, str]:
    """The Markdown docs of `commit` the checkout's index would hold: path -> blob id (the
    scope and ignore rules of today applied to the revision's paths)."""
    out = run_git(ws, "ls-tree", "-r", "-z", "--full-tree", commit)
    files: dict[str, str] = {}  # every regular file of the commit: path -> blob id
    links: dict[str, str] = {}  # its symbolic links: path -> blob id of the link text
    for entry in out.split("\0"):
        if not entry:
            continue
        info, _, path = entry.partition("\t")
        mode, kind, blob = info.split(" ")
        if kind == "blob":
            (links if mode == "120000" else files)[path] = blob
    blobs = {
        path: blob
        for path, blob in files.items()
        if is_markdown(path) and in_scope(path, scope) and not ignored(path)
    }
    wanted = {p: b for p, b in links.items() if is_markdown(p) and in_scope(p, scope)}
    for path, real in _link_targets(ws, wanted, links).items():
        # as the checkout indexes a symlinked doc (repo/discover.py): under the link's path,
        # the text of its real target when that is a Markdown file of the commit the scope
        # and the ignore rules let through, never a file outside it
        if not ignored(path) and real in files and is_markdown(real) and not ignored(real):
            blobs[path] = files[real]
    return blobs


_MAX_HOPS = 8


def _follow(path: str, link_text: Callable[[str], str | None]) -> str | None:
    """The path the chain of links from `path` leads to inside the commit (`link_text`:
    a path's link text, None when it is no link), or None when it leaves the commit, leads
    into `.git/` or `.kenso/`, loops or runs past `_MAX_HOPS`."""
    here = path
    for _ in range(_MAX_HOPS):
        text = link_text(here)
        if text is None:
            return here
        if text.startswith("/"):
            return None  # an absolute link leads out of the commit's tree
        here = posixpath.normpath(posixpath.join(posixpath.dirname(here), text))
        if here.startswith("../") or here in ("..", "."):
            return None
        if any(part in ALWAYS_SKIPPED_DIRS for part in here.split("/")):
            return None
    return None


def _link_targets(ws: Workspace, wanted: dict[str, str], links: dict[str, str]) -> dict[str, str]:
    """Each link of `wanted` (path -> link blob) to the path its chain of links (`links`:
    every link of the commit) leads to inside the commit; see `_follow`."""
    if not wanted:
        return {}
    texts = read_blobs(ws, sorted(set(links.values())))

    def link_text(path: str) -> str | None:
        blob = links.get(path)
        return None if blob is None else texts[blob].decode("utf-8", errors="replace")

    out = {path: _follow(path, link_text) for path in wanted}
    return {path: real for path, real in out.items() if real is not None and real != path}


def followed_entry(ws: Workspace, commit: str, path: str) -> tuple[str, str, int] | None:
    """(path, blob id, size) of the regular file at `path` in `commit`, through a chain of
    symbolic links as `_follow` takes one; None when there is no such file."""
    entries: dict[str, tuple[str, str, int] | None] = {}

    def link_text(here: str) -> str | None:
        entry = entries[here] = entry_at(ws, commit, here)
        if entry is None or entry[0] != "120000":
            return None
        return read_blobs(ws, [entry[1]])[entry[1]].decode("utf-8", errors="replace")

    real = _follow(path, link_text)
    found = None if real is None else entries.get(real)
    return None if real is None or found is None else (real, found[1], found[2])


def entry_at(ws: Workspace, commit: str, path: str) -> tuple[str, str, int] | None:
    """(mode, blob id, size) of `path` in `commit`'s tree, or None when it has none there."""
    out = run_git(ws, "ls-tree", "-z", "--long", "--full-tree", commit, "--", path)
    for entry in out.split("\0"):
        info, _, name = entry.partition("\t")
        if name == path:
            mode, kind, blob, size = info.split()
            return (mode, blob, int(size)) if kind == "blob" else None
    return None


def read_blobs(ws: Workspace, blobs: list[str]) -> dict[str, bytes]:
    """The contents of `blobs`, read with one `git cat-file --batch`.

    Raises:
        GitTimeoutError: git ran past its time limit (it was stopped, and a warning said so).
        GitError: git failed.
    """
    if not blobs:
        return {}
    data = feed_git(ws, ("cat-file", "--batch"), "".join(f"{b}\n" for b in blobs).encode())
    pos, found = 0, {}
    for blob in blobs:
        end = data.index(b"\n", pos)
        header = data[pos:end].split(b" ")
        size = int(header[2])
        found[blob] = data[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return found


class CacheUse(NamedTuple):
    """How `materialize` may use the revision cache: the cache, the view the caller's
    `ignored` stands for (the scope: two views never share a delta), and the signatures of
    the ignore-rule files `ignored` has judged by so far (called after the walk). Those
    must be the files of the very rules `ignored` applies, each signed before it was read:
    a delta is stored under them, and trusted while they hold."""

    cache: RevisionCache
    view: str
    rule_files: Callable[[], dict[str, Signature]]


def materialize(
    ws: Workspace,
    settings: Settings,
    checkout_db: Path,
    target: Path,
    ref: str,
    ignored: Callable[[str], bool],
    cached: CacheUse | None = None,
    commit: str | None = None,
) -> Revision:
    """Write at `target` the index of the docs at `ref`, from the checkout's index.

    With `cached`, the docs of `ref` that differ from the checkout and their texts come
    from the revision cache when it holds them for this checkout index and these ignore
    rules (no walk of the commit's tree, no `git cat-file`), and are kept there otherwise.

    `commit`: what `ref` names, when the caller has already asked git.

    Raises:
        UsageError: `ref` names no commit.
        GitError: git failed or ran past its time limit (`GitTimeoutError`), named with `ref`.
    """
    commit = commit or resolve_revision(ws, ref)
    _copy_checkout(checkout_db, target)
    conn = open_copy(target)
    try:
        meta = read_meta(conn)
        scope = meta_scope(meta)
        stored = load_files(conn)
        base = _base_digest(stored, scope, settings)
        found = _cached_delta(cached, commit, base)
        rules: dict[str, Signature] = {}
        delta: dict[str, str | None]
        if found is None:
            at_rev = tree_blobs(ws, commit, scope, _admitting(ws, ignored))
            delta = {p: b for p, b in at_rev.items() if p not in stored or stored[p].blob_id != b}
            delta.update((p, None) for p in stored if p not in at_rev)
        else:
            delta, rules = found
            at_rev = {p: row.blob_id for p, row in stored.items()}
            for path, blob in delta.items():
                if blob is None:
                    at_rev.pop(path, None)
                else:
                    at_rev[path] = blob
        changed = sorted(p for p, b in delta.items() if b is not None)
        wanted = sorted({at_rev[p] for p in changed})
        contents = cached.cache.blobs(wanted) if cached is not None and found is not None else {}
        contents.update(read_blobs(ws, [b for b in wanted if b not in contents]))
        contents_at = {p: contents[at_rev[p]] for p in changed}
        report = IngestReport(scope, head=commit)
        run = Run(ws, settings, conn, report, warn=lambda _msg: None, progress=None)
        with transaction(conn, immediate=False):
            _apply(run, meta, settings, stored, at_rev, contents_at)
            _stamp_generation(conn, commit, at_rev, settings)
    except GitError as exc:  # a git command past its limit, or failing: say at what revision
        raise type(exc)(f"cannot read the docs at {ref}: {exc.message}", hint=exc.hint) from exc
    finally:
        conn.close()
    if cached is not None:
        if found is not None:
            cached.cache.touch(commit, cached.view)
        else:
            # the files `ignored` judged by, asked once: the one dict keys both the cache
            # entry and the copy (asked again, it could sign a file edited since the walk)
            rules = cached.rule_files()
            kept = {b: d for b, d in contents.items() if len(d) <= settings.max_file_size}
            stored_delta = Delta(delta, rules_json(rules))
            cached.cache.remember(commit, cached.view, ref, base, stored_delta, kept)
    return Revision(ref, commit, len(delta), rules)


def _admitting(ws: Workspace, ignored: Callable[[str], bool]) -> Callable[[str], bool]:
    """`ignored`, and after it (it looks at a path's folders first) ingest's own check: a
    path discovery always skips (`index.run`'s: a name no agent may give, too deep, not
    UTF-8, in an environment folder or a nested repository) is never one of the copy's docs,
    so the revision's index holds what the checkout's would, whoever asks."""
    return lambda path: ignored(path) or never_indexed(ws.root, path)


def _copy_checkout(source: Path, target: Path) -> None:
    """Copy the checkout's index at `source` to `target` page by page (SQLite's backup API:
    one consistent snapshot, no re-tokenising), read as every read of it is read: in a
    folder that cannot be written, where WAL cannot make its `-shm`, an index whose WAL is
    empty is read immutable (`store.connection.open_reader`)."""
    import sqlite3

    from kenso_git.store.connection import open_reader

    src = open_reader(source)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def _base_digest(stored: dict[str, FileRow], scope: list[str], settings: Settings) -> str:
    """What a cached delta was computed against: the checkout index's docs (path, blob,
    status), its scope and the settings that choose the docs."""
    import hashlib  # not at the top: the search path loads no OpenSSL

    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(json.dumps([scope, list(settings.exclude), settings.max_file_size]).encode())
    for path in sorted(stored):
        row = stored[path]
        digest.update(f"{path}\0{row.blob_id}\0{row.status}\n".encode())
    return digest.hexdigest()


def _cached_delta(
    cached: CacheUse | None, commit: str, base: str
) -> tuple[dict[str, str | None], dict[str, Signature]] | None:
    """The cached docs of `commit` differing from the checkout, and the rule files they
    were chosen with, when those files are still as they were."""
    if cached is None:
        return None
    found = cached.cache.delta(commit, cached.view, base)
    if found is None:
        return None
    rules = rules_from_json(found.rules)
    if not rules or not signatures_hold(rules):
        return None  # an entry naming no rule file says nothing of the rules it was made by
    return found.docs, rules


def _apply(
    run: Run,
    meta: dict[str, str],
    settings: Settings,
    stored: dict[str, FileRow],
    at_rev: dict[str, str],
    contents: dict[str, bytes],
) -> None:
    """Apply the revision's differing docs (`contents`: path -> its blob as stored, a
    git-lfs page's pointer included: no filter driver runs) to the copy, inside the
    caller's transaction."""
    ws, conn = run.ws, run.conn
    opts = Options(settings.chunk_size, settings.chunk_overlap, settings.max_file_size, False)
    for path in sorted(contents):
        data = contents[path]
        sf = SourceFile(path, str(ws.root / path), len(data), 0, 0, 0)
        if len(data) > settings.max_file_size:
            run.skip(sf, at_rev[path], FileStatus.LARGE, "over max-file-size at the revision")
            continue
        run.apply(sf, _parse(path, at_rev[path], data, opts), stored.get(path))
    vocab.add(conn, run.words)
    remove_vanished(run, stored, set(at_rev))
    run.probe_differs = False  # the copy answers for the commit, as if checked out clean
    finish(run, meta, settings_fingerprint(settings))


def _stamp_generation(
    conn: sqlite3.Connection, commit: str, at_rev: dict[str, str], settings: Settings
) -> None:
    """Give the copy the write generation that names what it holds: `commit`, its docs
    (path, blob) and the settings they were read with. A copy made again of the same commit
    with the same docs (the same rules and scope), in another folder or process, is the
    same generation, so a ranked cursor of one pages the other (search/pagination.py); a
    copy of another commit or with other docs is another. Negative: never a checkout
    index's (a time in ns, counting up). The vocabulary keeps its seal."""
    import hashlib  # not at the top: the search path loads no OpenSSL

    digest = hashlib.sha1(usedforsecurity=False)
    chosen_by = [commit, settings_fingerprint(settings), settings.max_file_size]
    digest.update(json.dumps(chosen_by).encode())
    for path in sorted(at_rev):
        digest.update(f"\n{path}\0{at_rev[path]}".encode("utf-8", "surrogateescape"))
    stamp = str(-1 - int(digest.hexdigest()[:15], 16))
    meta = read_meta(conn)
    values = {schema.META_GENERATION: stamp}
    if meta.get(vocab.META_SEALED) == meta.get(schema.META_GENERATION):
        values[vocab.META_SEALED] = stamp  # sealed at the generation it had: at this one
    write_meta(conn, values)

"""The fuzzy (typo) fallback of spec §4.7, with §8.16/§8.23/§8.25 fixed.

A dictionary of title, tag and category words, held as a set bucketed by word length and
cached per database file and `generation` (so other processes' writes are seen). A new
generation re-reads only the documents whose blob changed, and patches the dictionary with
their words: with a watcher or a query-time sync writing on every save, rebuilding the whole
dictionary cost the first zero-hit search after each write about a fifth of a second on the
docs corpus, and 0.3-0.5 s at 48,600 docs (#16). Stop words are never
corrected, and a word counts only for callers who may see a document it comes from.
"""

from __future__ import annotations

import bisect
import math
import os
import sqlite3
import threading
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.query import STOP_WORDS
from kenso_git.store import budget
from kenso_git.store import chunkreads
from kenso_git.store import schema
from kenso_git.store import vocab
from kenso_git.store.files import blob_ids
from kenso_git.store.meta import read_value as read_meta_value

FUZZY_MAX_TERMS = 50_000
FUZZY_MIN_CHARS = 3
_STRIP = ".,;:!?()[]{}\"'`"
# past this share of changed documents one full read is cheaper than a read per document
_FULL_READ_SHARE = 0.3
_NONE: tuple[str, ...] = ()


class Dictionary(NamedTuple):
    """The correction words, by length, and the documents each word comes from."""

    words: frozenset[str]
    by_length: Mapping[int, tuple[str, ...]]
    owners: Mapping[str, tuple[str, ...]]

    def visible(self, word: str, path_filter: Callable[[str], bool] | None) -> bool:
        """The word is in the dictionary and comes from a document the caller may see."""
        if word not in self.words:
            return False
        return path_filter is None or any(path_filter(p) for p in self.owners[word])

    def closest(self, term: str, visible: Callable[[str], bool] | None = None) -> str | None:
        """The closest dictionary word (difflib ratio over the cutoff), or None."""
        cutoff, low, high = _band(term)
        candidates = [w for n in range(low, high + 1) for w in self.by_length.get(n, ())]
        return _best_match(term, candidates, cutoff, visible)


def _band(term: str) -> tuple[float, int, int]:
    """The difflib cutoff for `term`, and the word lengths that can reach it: the ratio is
    2*M/(a+b) <= 2*min(a,b)/(a+b), so lengths outside this band never pass."""
    cutoff = 0.8 if len(term) >= 6 else 0.75
    low = math.ceil(len(term) * cutoff / (2 - cutoff))
    high = math.floor(len(term) * (2 - cutoff) / cutoff)
    return cutoff, low, high


class _Vocabulary:
    """The dictionary's questions asked of the `vocab` table, per term (#32): nothing is
    loaded whole, so a process's first zero-hit search costs what its later ones do."""

    __slots__ = ("bands", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.bands: dict[tuple[int, int], list[str]] = {}  # each band read once per call

    def visible(self, word: str, path_filter: Callable[[str], bool] | None) -> bool:
        """The word is in the vocabulary and comes from a document the caller may see."""
        paths = vocab.owners(self.conn, word)
        return bool(paths) and (path_filter is None or any(path_filter(p) for p in paths))

    def closest(self, term: str, visible: Callable[[str], bool] | None = None) -> str | None:
        """`Dictionary.closest`, from the words of the term's length band."""
        cutoff, low, high = _band(term)
        candidates = self.bands.get((low, high))
        if candidates is None:
            candidates = self.bands[low, high] = vocab.words_of_length(self.conn, low, high)
        return _best_match(term, candidates, cutoff, visible)


# (database, generation) -> the vocabulary is within FUZZY_MAX_TERMS (one bounded count)
_within_cap: dict[tuple[str | None, str], bool] = {}


def _vocabulary(conn: sqlite3.Connection) -> _Vocabulary | None:
    """The table's answers, when it is current; None: over the cap, or empty."""
    key = (chunkreads.database_file(conn), str(read_meta_value(conn, schema.META_GENERATION)))
    usable = _within_cap.get(key)
    if usable is None:
        with budget.exempt():  # counted once per generation: every later call's
            usable = not vocab.is_empty(conn) and not vocab.has_more_words_than(
                conn, FUZZY_MAX_TERMS
            )
        with _cache_lock:
            if len(_within_cap) > 64:
                _within_cap.clear()
            _within_cap[key] = usable
    return _Vocabulary(conn) if usable else None


_CHECK_EVERY = 512  # candidates between budget checks (~1 ms of difflib)


def _best_match(
    term: str,
    candidates: Iterable[str],
    cutoff: float,
    visible: Callable[[str], bool] | None = None,
) -> str | None:
    """`difflib.get_close_matches(term, candidates, n=1, cutoff)` over the candidates
    `visible` allows, with the call's budget checked as it goes: a dictionary of 50,000
    words is seconds of pure Python. Who may see a word is asked only of the words close
    enough, best first (a statement each on the table: asking it of the whole band cost
    thousands per misspelt word, #27)."""
    import difflib  # only zero-hit queries need it

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(term)
    close: list[tuple[float, str]] = []
    for n, word in enumerate(candidates, 1):
        if n % _CHECK_EVERY == 0:
            budget.check()
        matcher.set_seq1(word)
        if (
            matcher.real_quick_ratio() >= cutoff
            and matcher.quick_ratio() >= cutoff
            and matcher.ratio() >= cutoff
        ):
            close.append((matcher.ratio(), word))
    close.sort(reverse=True)  # get_close_matches keeps the largest pair
    for _, word in close:
        if visible is None or visible(word):  # a hidden document's word would be an oracle
            return word
    return None


class _Cached(NamedTuple):
    generation: object
    settings: object  # the parse settings the words were read under
    versions: dict[str, str]  # path -> blob id of the words held
    per_doc: dict[str, tuple[str, ...]]  # each document's words, sorted
    dictionary: Dictionary | None


_cache: dict[str, _Cached] = {}
_cache_lock = threading.Lock()

_WORDS_SQL = vocab._WORDS_SQL  # the statement that reads every document's words (fallback)
_read_words = vocab.document_words


def _build(per_doc: Mapping[str, Iterable[str]]) -> Dictionary | None:
    owners: dict[str, list[str]] = {}
    for path in sorted(per_doc):
        for word in per_doc[path]:
            owners.setdefault(word, []).append(path)
    if not owners or len(owners) > FUZZY_MAX_TERMS:
        return None
    buckets: dict[int, list[str]] = {}
    for word in sorted(owners):
        buckets.setdefault(len(word), []).append(word)
    return Dictionary(
        frozenset(owners),
        {n: tuple(ws) for n, ws in buckets.items()},
        {w: tuple(paths) for w, paths in owners.items()},
    )


def _patched(
    dictionary: Dictionary, edits: Mapping[str, tuple[frozenset[str], frozenset[str]]]
) -> Dictionary | None:
    """`dictionary` after some documents' words changed (path -> (words before, after)):
    what `_build` of the new words gives, at the cost of the change, not of the index."""
    owners = dict(dictionary.owners)
    added: set[str] = set()
    removed: set[str] = set()
    for path in sorted(edits):
        before, after = edits[path]
        for word in before - after:
            left = [p for p in owners[word] if p != path]
            if left:
                owners[word] = tuple(left)
            else:
                del owners[word]
                removed.add(word)
        for word in after - before:
            paths = list(owners.get(word, ()))
            if not paths:
                added.add(word)
            bisect.insort(paths, path)
            owners[word] = tuple(paths)
    if not owners or len(owners) > FUZZY_MAX_TERMS:
        return None
    if not added and not removed:
        return Dictionary(dictionary.words, dictionary.by_length, owners)
    by_length = dict(dictionary.by_length)
    for n in {len(w) for w in added | removed}:
        bucket = set(by_length.get(n, ()))
        bucket.difference_update(w for w in removed if len(w) == n)
        bucket.update(w for w in added if len(w) == n)
        if bucket:
            by_length[n] = tuple(sorted(bucket))
        else:
            by_length.pop(n, None)
    return Dictionary(frozenset(owners), by_length, owners)


def load_dictionary(conn: sqlite3.Connection) -> Dictionary | None:
    """The fuzzy dictionary of the index (None when empty or too large), cached per generation.

    Its building is every later call's, not the caller's: exempt from the CPU budget."""
    with budget.exempt():
        return _load_dictionary(conn)


def _load_dictionary(conn: sqlite3.Connection) -> Dictionary | None:
    db = chunkreads.database_file(conn)
    generation: object = read_meta_value(conn, schema.META_GENERATION)
    settings = read_meta_value(conn, schema.META_SETTINGS)
    if generation is None and db is not None:  # an index written before generations
        generation = ("mtime", os.stat(db).st_mtime_ns)
    with _cache_lock:
        cached = _cache.get(db) if db is not None else None
    if cached is not None and generation is not None and cached.generation == generation:
        return cached.dictionary
    versions = blob_ids(conn)
    if cached is None or generation is None or cached.settings != settings:
        per_doc = _read_words(conn, None, versions)
        dictionary = _build(per_doc)
    else:
        changed = [p for p, blob in versions.items() if cached.versions.get(p) != blob]
        gone = [p for p in cached.per_doc if p not in versions]
        if len(changed) > _FULL_READ_SHARE * max(len(versions), 1):
            per_doc = _read_words(conn, None, versions)
            dictionary = _build(per_doc)
        else:
            fresh = _read_words(conn, changed, versions)
            per_doc = dict(cached.per_doc)
            edits: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
            for path in [*changed, *gone]:
                old = per_doc.pop(path, _NONE)
                new = fresh.get(path, _NONE)
                if new:
                    per_doc[path] = new
                if old != new:
                    edits[path] = (frozenset(old), frozenset(new))
            if cached.dictionary is None:  # empty or too large before: whatever it is now
                dictionary = _build(per_doc)
            elif edits:
                dictionary = _patched(cached.dictionary, edits)
            else:
                dictionary = cached.dictionary
    if db is not None and generation is not None:
        with _cache_lock:
            _cache[db] = _Cached(generation, settings, versions, per_doc, dictionary)
    return dictionary


def correct(
    conn: sqlite3.Connection, text: str, path_filter: Callable[[str], bool] | None = None
) -> str | None:
    """`text` with misspelt words replaced by close index terms, or None when nothing changed.

    Stop words and words shorter than 3 characters are never corrected; other words keep
    their case. With `path_filter`, only words of documents it allows count as known or
    as corrections, so a correction never reveals a hidden document.
    """
    dictionary: Dictionary | _Vocabulary | None
    # the table, per term; the dictionary built in Python only where the table is not
    # current (a writer that does not know it wrote last)
    dictionary = _vocabulary(conn) if vocab.is_current(conn) else load_dictionary(conn)
    if dictionary is None:
        return None
    out, changed = [], False
    known: dict[str, bool] = {}  # each word's visibility once per call, not once per term

    def visible(word: str) -> bool:
        verdict = known.get(word)
        if verdict is None:
            verdict = known[word] = dictionary.visible(word, path_filter)
        return verdict

    for word in text.split():
        budget.check()  # difflib over the dictionary is the costliest Python of a search
        core = word.strip(_STRIP).lower()
        replacement = None
        if (
            len(core) >= FUZZY_MIN_CHARS
            and core not in STOP_WORDS
            and not visible(core)
            and any(ch.isalpha() for ch in core)
        ):
            replacement = dictionary.closest(core, None if path_filter is None else visible)
        if replacement is not None:
            out.append(replacement)
            changed = True
        else:
            out.append(word)
    return " ".join(out) if changed else None

"""Document-level ranking signals kenso does not use (docs/ranking.md, issue #18).

The cascade finds chunks and keeps each file's best one; this module then scores each
candidate file as a whole, multiplying its best chunk's BM25 score by `1 + boost`, where
the boost adds up:

* `title`: how much of the query the document's title covers, and how much of the title
  the query covers (an exact title is the strongest evidence of a known item);
* `heading`: the same for the best-covering heading of the document;
* `path`: query words in the file's path (folder and file names);
* `spread`: several matching chunks of one document (kenso keeps the single best one);
* `index`: a section index page (`index.md`, `_index.md`, `README.md`) whose folder name
  the query names describes that folder;
* `dedupe`: among candidates with the same title, only the one whose path covers the
  query best keeps the title boost (near-duplicate pages disambiguated by title);
* `idf`: the title, heading and path coverages weigh each word by the inverse share of
  the candidates whose title, headings or path hold it, so a word they all share (`npm`
  in every npm page's title) counts for little;
* `hspec`: a heading many candidates share (`Synopsis`, `See Also`) boosts by the share
  of the others that lack it;
* `summary`: the same coverage as `title` for the document's summary fields (`aliases`,
  `answers`, `predicted_queries`, `description`): written to say what the page is for,
  they are a field of their own, not body text (kenso weighs them as body text);
* `fill` (#31): the cascade runs its looser stages until its hits span 10 documents (an
  agent's page), not `min(3, limit)`, whatever the limit: a page that lacks one word of a
  question (a lead-in like "Describes", an abbreviation) is found when the AND stage found
  only a few others;
* `linked` (#31, search.cascade): a chunk under a heading that links to another page (a
  hub's `### [about_X](about_X.md)` over that topic's summary) is that page's evidence;
  the hub keeps half of it. A hub whose headings repeat every topic's summary no longer
  outranks the topic for its own summary;
* `include` (#31): a snippet kept to be included into other pages (a file under an
  `includes/`, `_includes/`, `_common/` or `_snippets/` folder: docfx, Jekyll, Hugo) ranks
  at `INCLUDE_PRIOR` of its score: its text is the including pages' too, and they are
  what a reader can open. On by default since the eighteenth round (it once cost Hugo's
  docs 0.005; with the later signals it gains them +0.004 and no corpus of 33 fell, on
  description-stripped questions; a plain question labelled with a snippet now finds the
  page that includes it first);
* `redirects` (#31): the `summary` signal reads the `aliases` that are URL paths (a static
  site's redirects, `/docs/x/`) as summary words too; without it they are no names. On by
  default: the old URLs' words helped the tuning half (OpenTelemetry +0.003, Hugo +0.005);
* `abbrev` (#31, search.ranked.abbrev): a name the question spells out and abbreviates
  ("Windows Presentation Foundation (WPF)") is one word of the question, in the question
  and in each field compared with it: a broad page titled with the name no longer covers
  most of the question;
* `initials` (#31, search.ranked.abbrev, nineteenth round): a run of three to six of the
  question's words whose initials spell an abbreviation a candidate writes in capitals in
  its title or a heading ("frequently asked questions", `FAQ`) counts as said by each
  field that holds the abbreviation (title, headings, path): `faq.md` titled "Go FAQ"
  covers the question's words;
* `parallel` (#31, search.ranked.parallel): among the first 10 documents, a page is put just
  above a parallel page (the same file name in another folder: one page per language or
  platform) or a near-duplicate (a sibling whose file name differs by one word) ranked
  higher, when the question names a word of its own path or title that the other lacks;
* `near` (#31, nineteenth round): `parallel`'s near-duplicates alone (in one folder, file
  names one word apart), never the same file name in other folders;
* `compress` (#31): each candidate's BM25 score is raised to `Tuning.score_power` relative to the
  best candidate's before the boost multiplies it: BM25 grows with a long page's repeated
  words, and uncompressed it outweighed the fields that say what a page is (the weights
  and powers above were fitted with it, on the tuning half).
* `inlinks` (#31, search.ranked.inlinks): the same coverage for the words of the link texts
  other pages point at the document with ("see [configuring mutual TLS](mtls.md)"), the
  anchor-text field of web search. Off by default: +0.001 on the tuning half, a plain-kind
  question lost on two corpora, and every page's links are read once per index
  generation and process (170 ms on docs-desktop: every CLI search).
* `lead` (#31, search.ranked.lead): the share of the question's pairs of consecutive
  content words that stand within 8 words of each other in the first 200 words of the
  page's first chunk, where a page says what its description says. Off by default: it
  gained the tuning half (+0.010 MRR@10 pooled) and three held-out corpora (gRPC +0.055),
  but cost cert-manager one first place, which the rule written before the run forbids.
* `opening` (#31, search.ranked.lead): the share of the question's words among the first
  45 words of the page's first chunk, cubed: a description says what a page's opening
  sentences say, and a page that only mentions the words says them later. On by default
  since the seventeenth round (tuning half +0.010 MRR@10 and +0.016 hit@1 pooled; every
  held-out set's pooled scores up).

Every signal has a switch: `KENSO_GIT_RANK=off` gives kenso's order, and
`KENSO_GIT_RANK=-compress,+dedupe` turns single signals off or on (the benchmark's
ablation); `dedupe`, `hspec`, `inlinks`, `lead`, `near`, `parallel` and `spread` are off by
default.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.search.ranked.abbrev import Spelled
from kenso_git.search.ranked.abbrev import collapse
from kenso_git.search.ranked.abbrev import expand
from kenso_git.search.ranked.abbrev import expanded
from kenso_git.search.ranked.abbrev import initials_of
from kenso_git.search.ranked.abbrev import spelled_out
from kenso_git.search.ranked.inlinks import field as link_field
from kenso_git.search.ranked.inlinks import inbound
from kenso_git.search.ranked.intent import asks_how
from kenso_git.search.ranked.intent import shows_how
from kenso_git.search.ranked.lead import lead_cover
from kenso_git.search.ranked.lead import leads
from kenso_git.search.ranked.lead import opening_cover
from kenso_git.search.ranked.nested import nested
from kenso_git.search.ranked.rankdocs import INDEX_STEMS
from kenso_git.search.ranked.rankdocs import Doc
from kenso_git.search.ranked.rankdocs import docs as read_docs
from kenso_git.search.ranked.rankdocs import folder_words
from kenso_git.search.ranked.rankdocs import path_words
from kenso_git.search.ranked.rankdocs import words
from kenso_git.search.ranked.stems import named
from kenso_git.search.ranked.weights import Weights

SIGNALS = (
    "title",
    "heading",
    "path",
    "spread",
    "index",
    "dedupe",
    "idf",
    "hspec",
    "summary",
    "fill",
    "linked",
    "include",
    "redirects",
    "abbrev",
    "parallel",
    "anchors",
    "compress",
    "inlinks",
    "lead",
    "addresses",
    "opening",
    "initials",
    "near",
    "paragraphs",
    "stem",
    "howto",
    "charrefs",
    "nested",
)
ENV = "KENSO_GIT_RANK"
INDEX_NAMES = frozenset(f"{name}.md" for name in INDEX_STEMS)
# Why each signal is on or off, and what it earned on the tuning and the held-out half of
# #31, round by round: docs/ranking.md (the signal table) and benchmarks/relevance-results.md.
DEFAULT_ON = frozenset(SIGNALS) - {
    "stem",
    "dedupe",
    "hspec",
    "parallel",
    "spread",
    "inlinks",
    "lead",
    "near",
    "nested",
}
HSPEC_P = 1.0


class Tuning(NamedTuple):
    """How the signals' measures combine into a boost: each signal's weight and the powers
    its F-measure is raised to first, so a near-exact match counts far more than a partial
    one (a page with a section named exactly as the query must beat a page whose title,
    path and a heading each share half its words; 1 = plain F-measure).

    Fitted together on the tuning half of #31 (`benchmarks/rank_fit.py`: coordinate ascent
    on the description-stripped MRR@10 and hit@1 of four corpora, no corpus's stripped or
    plain kinds allowed to drop; benchmarks/relevance-results.md, eighth round). `spread`
    weighs 0 in that fit and is off by default; its weight here is the earlier one, for
    `+spread`.
    """

    title: float = 1.2
    heading: float = 1.1
    path: float = 0.6  # #31: parallel pages (one per language) told apart by a path word
    spread: float = 0.1
    index_page: float = 0.6  # signal `index`
    summary: float = 1.2
    title_power: float = 1.5
    heading_power: float = 3.0
    # #31: a sibling whose description shares half a question's words must not outrank the
    # page the question describes (its own description cut from the index): near-exact only
    summary_power: float = 3.0
    # signal `compress` (#31): a candidate's BM25 enters the document score as
    # `best x (score / best) ** score_power` (`best`: the highest among the candidates), so
    # a long page's lead in term counts weighs less against the document signals, while the
    # top score, and the relevance labels read from it, keep their scale
    score_power: float = 0.6
    # signal `inlinks` (#31, tenth round): weight 1.2 or power 1 cost linkerd 0.002
    inlinks: float = 0.6
    inlinks_power: float = 2.0
    # signal `lead` (#31, thirteenth round): 0.3 over the first chunk's lead; over each
    # matched chunk's lead or whole text (0.1 to 0.6) it cost Hugo's or Linkerd's docs
    lead: float = 0.3
    # signal `opening` (#31, seventeenth round): over the first 45 words, cubed; weight 0.5
    # or squared cost Hugo's docs 0.002 to 0.004, the first 30 words cost etcd's 0.006
    opening: float = 0.3
    opening_power: float = 3.0
    # signal `stem` (#31, twentieth round, opt-in): 0.15 or 0.3 cost etcd 0.006, PowerShell 0.002
    stem: float = 0.08
    # signal `howto` (#31, twenty-first round, on): the tuning half's weight (0.05 to 0.2 tried)
    howto: float = 0.1
    nested: float = 0.25  # signal `nested` (search/ranked/nested.py)


TUNING = Tuning()


class Features(NamedTuple):
    """What the signals measured of one candidate, before any weight or power."""

    path: float  # F-measure of the query against the path's words
    title: float  # ... against the title (0 when `dedupe` gives the title to another page)
    summary: float  # ... against the summary fields
    heading: float  # ... against the best heading (`hspec`: discounted by its spread)
    chunks: int  # matching chunks among those fetched
    index_page: float  # signal `index`: share of the query naming a section page's folder
    included: bool  # under a folder of include snippets
    inlinks: float = 0.0  # ... against the words of the links other pages point at it with
    lead: float = 0.0  # share of the question's word pairs standing together in its lead
    opening: float = 0.0  # share of the question's words among its first words
    stem: bool = False  # the question says its file name, which no other candidate's name holds
    howto: bool = False  # the question asks how to do something, and it is a task page
    nested: bool = False  # the question names its file and its folder (`nested`)


KENSO_THRESHOLD = 3  # kenso's cascade stops once a stage's hits span this many documents
FILL_DOCUMENTS = 10  # signal `fill`: the agent's page; the document signals rank among them
INCLUDE_FOLDERS = frozenset({"includes", "_includes", "_common", "_snippets"})
INCLUDE_PRIOR = 0.5
SPREAD_CAP = 4  # matching chunks beyond this add nothing: long documents must not win by length
_DOC_SIGNALS = frozenset({"title", "heading", "dedupe", "summary", "inlinks"})


class Evidence(NamedTuple):
    """One matched chunk: the file, its score, and the cascade tier that found it."""

    file_path: str
    score: float
    tier: int


def enabled_signals(raw: str | None = None) -> frozenset[str]:
    """The signals `KENSO_GIT_RANK` switches on: unset = the defaults, `off` = none, `all`,
    `-x,+y` = the defaults without x and with y, `x,y` = exactly x and y."""
    value = (os.environ.get(ENV, "") if raw is None else raw).strip().lower()
    if value in ("", "on", "default"):
        return DEFAULT_ON
    if value in ("off", "none", "kenso"):
        return frozenset()
    if value == "all":
        return frozenset(SIGNALS)
    names = [n.strip() for n in value.split(",") if n.strip()]
    if all(n[0] in "+-" for n in names):
        on = DEFAULT_ON | {n[1:] for n in names if n[0] == "+"}
        return (on - {n[1:] for n in names if n[0] == "-"}) & frozenset(SIGNALS)
    return frozenset(names) & frozenset(SIGNALS)


def cascade_threshold(limit: int, signals: frozenset[str]) -> int:
    """How many documents the cascade's hits must span before it stops trying looser stages."""
    return FILL_DOCUMENTS if "fill" in signals else min(KENSO_THRESHOLD, limit)


def _cover(query: frozenset[str], field: frozenset[str], weights: Weights | None = None) -> float:
    """F-measure of the query against a field: high only when each covers the other."""
    common_words = query & field
    if not common_words:
        return 0.0
    if weights is None or weights.df is None:
        common, wq, wf = float(len(common_words)), float(len(query)), float(len(field))
    else:
        common, wq, wf = weights.total(common_words), weights.total(query), weights.total(field)
    if common <= 0:
        return 0.0
    recall, precision = common / wq, common / wf
    return 2 * recall * precision / (recall + precision)


def boosts(
    conn: sqlite3.Connection,
    query: str,
    evidence: Iterable[Evidence],
    candidates: Sequence[str],
    signals: frozenset[str],
) -> dict[str, float]:
    """The multiplicative boost (`score x (1 + boost)`) of each candidate file."""
    out: dict[str, float] = {}
    for p, measured in features(conn, query, evidence, candidates, signals).items():
        value = boost(measured, signals)
        if value:
            out[p] = value
    return out


def features(
    conn: sqlite3.Connection,
    query: str,
    evidence: Iterable[Evidence],
    candidates: Sequence[str],
    signals: frozenset[str],
    tuning: Tuning | None = None,
) -> dict[str, Features]:
    """What each enabled signal measures of each candidate file (0 where it is off);
    `tuning` matters to `hspec` only."""
    spelled = spelled_out(query) if "abbrev" in signals else ()
    wanted = collapse(words(query), spelled)
    if not signals or not wanted or not candidates:
        return {}
    chunks: dict[str, int] = {}
    for item in evidence:
        chunks[item.file_path] = chunks.get(item.file_path, 0) + 1
    docs = read_docs(conn, candidates) if signals & _DOC_SIGNALS else {}
    raw = docs  # before `abbrev`: what a link text is compared with to tell it says more
    meant = initials_of(query, docs) if "initials" in signals else ()
    if meant:
        docs = {p: expanded(doc, meant) for p, doc in docs.items()}
    if spelled:
        docs = {p: _collapsed(doc, spelled) for p, doc in docs.items()}
    paths = {p: collapse(expand(path_words(p), meant), spelled) for p in candidates}
    weights = Weights(_doc_freq(docs, paths) if "idf" in signals else None, len(candidates))
    path_cover = {p: _cover(wanted, paths[p], weights) for p in candidates}
    owners = _title_owners(candidates, docs, path_cover) if "dedupe" in signals else {}
    shared = _heading_freq(docs, candidates) if "hspec" in signals else None
    linked_by = inbound(conn) if "inlinks" in signals else None
    firsts = leads(conn, candidates) if signals & {"lead", "opening"} else {}
    lead = lead_cover(query, firsts) if "lead" in signals else {}
    opening = opening_cover(wanted, firsts, spelled) if "opening" in signals else {}
    by_name = named(query, candidates) if "stem" in signals else frozenset()
    how = "howto" in signals and asks_how(query)
    lifted, dropped = nested(wanted, candidates) if "nested" in signals else (frozenset(),) * 2
    out: dict[str, Features] = {}
    for p in candidates:
        doc = docs.get(p)
        title = summary = heading = linking = 0.0
        if doc is not None:
            if "title" in signals and owners.get(doc.title_key, p) == p:
                title = _cover(wanted, doc.title, weights)
            fields = doc.summary | doc.redirects if "redirects" in signals else doc.summary
            if "summary" in signals and fields:
                summary = _cover(wanted, fields, weights)
            if "heading" in signals and doc.headings:
                heading = _best_heading(wanted, doc.headings, weights, shared, tuning or TUNING)
            if linked_by is not None and p in linked_by.texts:
                seen = raw[p].title | path_words(p)
                said = collapse(link_field(linked_by, p, seen, raw[p].headings), spelled)
                linking = _cover(wanted, said, weights) if said else 0.0
        index = 0.0
        if p.rsplit("/", 1)[-1].lower() in INDEX_NAMES and p.rpartition("/")[0] not in dropped:
            folder = folder_words(p)
            index = len(wanted & folder) / len(wanted) if folder else 0.0
        out[p] = Features(
            path_cover[p],
            title,
            summary,
            heading,
            chunks.get(p, 1),
            index,
            _included(p),
            linking,
            lead.get(p, 0.0),
            opening.get(p, 0.0),
            p in by_name,
            how and shows_how(p),
            p in lifted,
        )
    return out


def boost(measured: Features, signals: frozenset[str], tuning: Tuning | None = None) -> float:
    """One candidate's boost: the enabled signals' measures, each raised to its power and
    weighed (`tuning`, else `TUNING`), summed."""
    t = tuning or TUNING
    value = t.path * measured.path if "path" in signals else 0.0
    value += t.title * math.pow(measured.title, t.title_power)
    value += t.summary * math.pow(measured.summary, t.summary_power)
    value += t.heading * math.pow(measured.heading, t.heading_power)
    if measured.inlinks:
        value += t.inlinks * math.pow(measured.inlinks, t.inlinks_power)
    value += t.lead * measured.lead
    if measured.opening:
        value += t.opening * math.pow(measured.opening, t.opening_power)
    if measured.stem:
        value += t.stem
    if measured.howto:
        value += t.howto
    if measured.nested:
        value += t.nested
    if "spread" in signals:
        value += t.spread * math.log2(min(measured.chunks, SPREAD_CAP))
    if "index" in signals:
        value += t.index_page * measured.index_page
    if "include" in signals and measured.included:
        value = (1 + value) * INCLUDE_PRIOR - 1
    return value


def compressed(score: float, best: float, tuning: Tuning | None = None) -> float:
    """Signal `compress`: `score` brought towards `best` (the highest candidate's score)."""
    if best <= 0 or score <= 0:
        return score
    return best * math.pow(score / best, (tuning or TUNING).score_power)


def _collapsed(doc: Doc, spelled: tuple[Spelled, ...]) -> Doc:
    """`doc`'s fields with each name the question spells out read as its abbreviation."""
    return doc._replace(
        title=collapse(doc.title, spelled),
        headings=tuple(collapse(h, spelled) for h in doc.headings),
        vocab=collapse(doc.vocab, spelled),
        summary=collapse(doc.summary, spelled),
        redirects=collapse(doc.redirects, spelled),
    )


def _included(path: str) -> bool:
    """Whether `path` is under a folder of include snippets."""
    return any(part.lower() in INCLUDE_FOLDERS for part in path.split("/")[:-1])


def _doc_freq(docs: dict[str, Doc], paths: dict[str, frozenset[str]]) -> dict[str, int]:
    """In how many candidates each word appears in the title, a heading or the path."""
    df: Counter[str] = Counter()
    for p, in_path in paths.items():
        doc = docs.get(p)
        df.update(doc.vocab if doc is not None else in_path)  # vocab holds the path words
    return df


def _heading_freq(docs: dict[str, Doc], candidates: Sequence[str]) -> dict[frozenset[str], float]:
    """Each heading's share of the other candidates that have it too (0: only this one)."""
    count: dict[frozenset[str], int] = {}
    for p in candidates:
        doc = docs.get(p)
        for h in doc.headings if doc is not None else ():
            count[h] = count.get(h, 0) + 1
    n = max(len(candidates) - 1, 1)
    return {h: (c - 1) / n for h, c in count.items()}


def _best_heading(
    wanted: frozenset[str],
    headings: tuple[frozenset[str], ...],
    weights: Weights,
    shared: dict[frozenset[str], float] | None,
    tuning: Tuning,
) -> float:
    """The best heading's cover; with `hspec`, a heading many candidates share (`Synopsis`,
    `See Also`) tells them apart little: its cover is discounted so that, raised to the
    heading power, it is `cover ** power x (1 - share) ** HSPEC_P`."""
    if shared is None:
        return max(_cover(wanted, h, weights) for h in headings)
    exponent = HSPEC_P / tuning.heading_power
    return max(
        _cover(wanted, h, weights) * math.pow(1 - shared.get(h, 0.0), exponent) for h in headings
    )


def _title_owners(
    candidates: Sequence[str], docs: dict[str, Doc], path_cover: dict[str, float]
) -> dict[str, str]:
    """For each title several candidates share, the one whose path covers the query best."""
    owners: dict[str, str] = {}
    for p in candidates:  # candidates come best first: ties keep the better-ranked one
        doc = docs.get(p)
        if doc is None or not doc.title_key:
            continue
        owner = owners.get(doc.title_key)
        if owner is None or path_cover[p] > path_cover[owner]:
            owners[doc.title_key] = p
    return owners

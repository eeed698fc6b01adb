"""A query of the `search` tool's language over its token cap, read rather than refused.

A query over `MAX_TOKENS` words and filters keeps every phrase, negation and filter as
written (they are syntax: dropping a word inside a phrase would change what it matches) and
fills the rest of the cap with its first plain words that are neither stop words nor
repeats, in their order: a question in words is read as `search_docs` reads it (`bounded`).
Before, one holding a phrase was refused whole ("more than 64 words and filters": an agent
pasting an error message with a quoted string into a question of 70 words got nothing), and
one without was cut to its first 64 content words as a string, which dropped a negation or
a filter written after them. A query whose phrases, negations and filters alone pass the
cap is still refused, by the language's own error.
"""

from __future__ import annotations

from kenso_git.search.lang.querylang import MAX_QUERY_CHARS
from kenso_git.search.lang.querylang import MAX_TOKENS
from kenso_git.search.lang.querylang import Query
from kenso_git.search.lang.querylang import parse
from kenso_git.search.ranked.query import first_content_words


def parse_long(text: str, *, now: float | None = None) -> Query:
    """`parse(text)`, but a query over the token cap keeps its phrases, negations and
    filters and its first distinct content words, `MAX_TOKENS` in all.

    Raises:
        QuerySyntaxError: as `parse` does; over the cap only when the phrases, negations
            and filters alone pass it.
    """
    # the character cap bounds the tokens (a token is at least one character and a space)
    query = parse(text, now=now, caps=(MAX_QUERY_CHARS, MAX_QUERY_CHARS))
    if len(query.terms) + len(query.filters) <= MAX_TOKENS:
        return query
    kept = [i for i, t in enumerate(query.terms) if t.phrase or t.negated]
    room = MAX_TOKENS - len(query.filters) - len(kept)
    if room < 0:
        return parse(text, now=now)  # raises the language's "more than 64" error
    plain = [i for i, t in enumerate(query.terms) if not (t.phrase or t.negated)]
    words = first_content_words([query.terms[i].text for i in plain], room)
    kept += [plain[j] for j in words]
    terms = tuple(query.terms[i] for i in sorted(kept))
    return Query(terms, query.filters, query.read_as_words)

"""Word weights for the document signals' coverage (`rank._cover`, signal `idf`)."""

from __future__ import annotations

import math
from collections.abc import Iterable

IDF_K = 1.0
IDF_SMOOTH = 0.5


class Weights:
    """Word weights for coverage: 1 each, or (signal `idf`) the inverse share of the
    candidates whose title, headings or path hold the word, so a word every candidate has
    (`npm` in every npm page's title, a `Description` heading on each) counts for little."""

    def __init__(self, df: dict[str, int] | None, n: int) -> None:
        self.df, self.n = df, n
        self.memo: dict[str, float] = {}
        self.totals: dict[frozenset[str], float] = {}  # the question's, each field's

    def of(self, word: str) -> float:
        if self.df is None:
            return 1.0
        value = self.memo.get(word)
        if value is None:
            df = self.df.get(word, 0)
            value = math.log(1 + IDF_K * self.n / (df + IDF_SMOOTH))
            self.memo[word] = value
        return value

    def total(self, field: frozenset[str]) -> float:
        """`summed(field)`, kept per field: a search weighs the question against every field
        of every candidate, and each field against it once."""
        if self.df is None:
            return len(field)
        value = self.totals.get(field)
        if value is None:
            value = self.totals[field] = self.summed(field)
        return value

    def summed(self, words: Iterable[str]) -> float:
        """The weights of `words` summed exactly (`fsum`): a plain sum follows the set's
        order, which the hash seed changes, and two pages that tie would come back in either
        order from one process to the next."""
        return math.fsum(map(self.of, words))

"""Blend static-vector similarity into the ranking (the optional `vectors` tier, #18).

Only where the index has a vector table (an ingest with `vectors = true` made it) and
wordllama is installed: each candidate's score is multiplied by `1 + WEIGHT x cosine`
between the query and its best chunk, within its cascade tier.
"""

from __future__ import annotations

import sqlite3

from kenso_git.store import vectors
from kenso_git.text import embed

WEIGHT = 0.5  # the best of 0.25 / 0.5 / 1 / 2 on the tuning half (docs/ranking.md)


def similarity(conn: sqlite3.Connection, query: str, chunk_ids: list[int]) -> dict[int, float]:
    """Cosine of `query` with each chunk that has a vector; empty when the tier is off."""
    if len(chunk_ids) < 2 or not vectors.present(conn) or not embed.available():
        return {}
    stored = vectors.read(conn, chunk_ids)
    ids = list(stored)
    return dict(zip(ids, embed.cosines(query, [stored[i] for i in ids]), strict=True))

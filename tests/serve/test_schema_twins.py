"""The declared output schemas (serve/schema.py) and the payload types stay twins.

They are two declarations on purpose (the SDK's pydantic needs typing_extensions' TypedDict
on Python 3.11, and the declared schema is a public contract), so this test is what keeps a
field added to a payload from being left out of the schema clients validate against.
"""

from __future__ import annotations

import typing

import pytest

from kenso_git.search import results
from kenso_git.serve import schema

TWINS = [
    (results.DocResult, schema.DocOut),
    (results.SnippetResult, schema.SnippetOut),
    (results.HealthResult, schema.HealthOut),
    (results.StateResult, schema.StateOut),
    (results.ReindexResult, schema.ReindexOut),
    (results.AgentHit, schema.AgentHitOut),
    (results.AgentPage, schema.AgentPageOut),
    (results.RelatedFile, schema.RelatedFileOut),
    (results.RelatedPage, schema.RelatedPageOut),
]


@pytest.mark.parametrize(("payload", "declared"), TWINS, ids=lambda t: t.__name__)
def test_declared_schema_lists_every_field_of_its_payload(payload, declared) -> None:
    have = typing.get_type_hints(payload)
    want = typing.get_type_hints(declared)
    assert set(have) == set(want), f"{declared.__name__} and {payload.__name__} drifted apart"

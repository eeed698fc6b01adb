"""The growth-factor tests of tests/text/test_growth.py at 64 kB -> 256 kB (slow lane)."""

from __future__ import annotations

import pytest

from tests.shapes import SHAPES
from tests.shapes import ingest
from tests.shapes import lint
from tests.text.test_growth import BOUND
from tests.text.test_growth import STEP
from tests.text.test_growth import growth

BASE_BYTES = 64_000


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_ingest_grows_linearly_at_large_sizes(name):
    ratio = growth(ingest, SHAPES[name], BASE_BYTES, repeats=2)
    assert ratio < BOUND, f"{name}: ingest x{STEP} input took x{ratio:.1f} time"


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_lint_grows_linearly_at_large_sizes(name):
    ratio = growth(lint, SHAPES[name], BASE_BYTES, repeats=2)
    assert ratio < BOUND, f"{name}: lint x{STEP} input took x{ratio:.1f} time"

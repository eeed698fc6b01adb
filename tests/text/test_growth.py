"""Work grows linearly with every pathological shape of input (issue #14).

Each shape of tests/shapes.py is ingested (decode, parse, chunk, searchable text) and linted
at a size and at four times that size. Linear work takes ~4x as long, quadratic work ~16x:
the bound of 8 leaves room for a loaded machine, and a shape over it is measured again
before it fails. The fastest of a few runs is used, the one least disturbed by other load.
tests/e2e/test_growth_heavy.py runs the same at 64 kB -> 256 kB; benchmarks/bench_inputs.py
times every shape at ~1.9 MB.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.shapes import SHAPES
from tests.shapes import best_time
from tests.shapes import ingest
from tests.shapes import lint
from tests.shapes import size_for

BASE_BYTES = 16_000
STEP = 4
BOUND = 8.0  # linear: ~4, quadratic: ~16
ATTEMPTS = 3


def growth(
    work: Callable[[str], object], shape: Callable[[int], str], base: int, repeats: int
) -> float:
    """time(STEP * n) / time(n) for `shape` at about `base` bytes, the lowest of ATTEMPTS."""
    n = size_for(shape, base)
    small, large = shape(n), shape(STEP * n)
    ratio = float("inf")
    for _ in range(ATTEMPTS):
        t_small = best_time(lambda: work(small), repeats)
        t_large = best_time(lambda: work(large), repeats)
        ratio = min(ratio, t_large / max(t_small, 1e-6))
        if ratio < BOUND:
            break
    return ratio


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_ingest_grows_linearly(name):
    ratio = growth(ingest, SHAPES[name], BASE_BYTES, repeats=3)
    assert ratio < BOUND, f"{name}: ingest x{STEP} input took x{ratio:.1f} time"


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_lint_grows_linearly(name):
    ratio = growth(lint, SHAPES[name], BASE_BYTES, repeats=3)
    assert ratio < BOUND, f"{name}: lint x{STEP} input took x{ratio:.1f} time"

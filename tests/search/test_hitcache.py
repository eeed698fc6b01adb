"""The rankings' LRU: bounded by entries and by total weight."""

from __future__ import annotations

from kenso_git.search.lang.hitcache import LRU


def test_the_least_recently_used_entry_goes_first_and_weight_is_bounded() -> None:
    made: list[str] = []

    def maker(key: str, n: int):  # type: ignore[no-untyped-def]
        return lambda: made.append(key) or [0] * n

    cache: LRU[list[int]] = LRU(3, max_weight=10, weigh=len)
    for key in "abc":
        cache.get_or_make(key, maker(key, 2))
    cache.get_or_make("a", maker("a", 2))  # a hit: a becomes the most recent
    cache.get_or_make("d", maker("d", 2))  # four entries: b (least recent) goes
    assert len(cache) == 3
    cache.get_or_make("b", maker("b", 2))
    assert made == ["a", "b", "c", "d", "b"]
    cache.get_or_make("e", maker("e", 7))  # weight 13 > 10: the oldest go until it fits
    assert len(cache) == 2
    cache.get_or_make("huge", maker("huge", 11))  # heavier than the cache: never kept
    cache.get_or_make("huge", maker("huge", 11))
    assert made[-2:] == ["huge", "huge"] and len(cache) == 2

"""When stat data that matches a files row vouches for the bytes the index read: the file's
mtime is before the read, or (POSIX) its ctime is, by more than the clock slack."""

from __future__ import annotations

import os

import pytest

from kenso_git.index.freshness import CTIME_SLACK_NS
from kenso_git.index.freshness import is_settled

READ = 1_800_000_000 * 10**9  # when the index read the file
AHEAD = 86_400 * 10**9


@pytest.mark.parametrize(
    ("mtime", "ctime", "settled"),
    [
        (READ - 1, READ - 1, True),  # written before the read
        (READ, READ, False),  # written in the tick of the read
        (READ + AHEAD, READ - CTIME_SLACK_NS - 1, os.name == "posix"),  # stamped ahead, then read
        (READ + AHEAD, READ - CTIME_SLACK_NS, False),  # stamped too close to the read
        (READ + AHEAD, READ + AHEAD, False),  # ctime ahead too (a server's clock)
    ],
)
def test_stat_data_vouches_for_bytes_read_after_the_last_change(
    mtime: int, ctime: int, settled: bool
) -> None:
    assert is_settled(mtime, ctime, READ) is settled

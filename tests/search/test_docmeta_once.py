"""The documents' metadata is read once per index generation however many calls arrive while it
is read: 40 concurrent first calls of a cold server each read every row before (#27)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kenso_git.search import docmeta
from tests.helpers import docs_kb


def test_concurrent_first_calls_read_the_metadata_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = docs_kb(
        tmp_path,
        {
            f"d{i}.md": f"# Doc {i}\n\n"
            + f"Some text about topic {i} that is long enough to index. " * 8
            for i in range(5)
        },
    )
    docmeta._cache.clear()
    real, reads = docmeta._read, []

    def slow_read(conn: object) -> dict[str, docmeta.Doc]:
        reads.append(1)
        time.sleep(0.3)  # long enough for every other thread to arrive meanwhile
        return real(conn)  # type: ignore[arg-type]

    monkeypatch.setattr(docmeta, "_read", slow_read)
    start = threading.Barrier(8)
    found: list[int] = []

    def call() -> None:
        start.wait()
        found.append(len(kb.read(docmeta.load)))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [5] * 8
    assert len(reads) == 1

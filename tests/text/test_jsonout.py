"""`iter_json`: `json.dumps(indent=2)`'s text in pieces, streamed lists made as written."""

from __future__ import annotations

import json
from collections.abc import Iterator

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.jsonout import Streamed
from kenso_git.text.jsonout import chunks
from kenso_git.text.jsonout import iter_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
    | st.sampled_from(["\x00", '"', "\\", "\n", "é", "\u2028", "😀"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
        | st.lists(inner, max_size=4).map(lambda items: ("streamed", items))
    ),
    max_leaves=30,
)


def _plain(value: object) -> object:
    """`value` with every ("streamed", items) as a plain list."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "streamed":
        return [_plain(item) for item in value[1]]  # type: ignore[attr-defined]
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _split(value: object) -> tuple[object, object]:
    """(the value with ("streamed", items) as Streamed, the same as plain lists); a
    streamed list's items are plain JSON values."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "streamed":
        items = _plain(value)
        return Streamed(iter(items)), items  # type: ignore[call-overload]
    if isinstance(value, list):
        parts = [_split(item) for item in value]
        return [p[0] for p in parts], [p[1] for p in parts]
    if isinstance(value, dict):
        parts_d = {key: _split(item) for key, item in value.items()}
        return {k: p[0] for k, p in parts_d.items()}, {k: p[1] for k, p in parts_d.items()}
    return value, value


@settings(max_examples=400, deadline=None)
@given(value=_VALUES, ensure_ascii=st.booleans())
def test_the_pieces_are_what_json_dumps_writes(value: object, ensure_ascii: bool) -> None:
    streamed, plain = _split(value)
    want = json.dumps(plain, indent=2, ensure_ascii=ensure_ascii)
    assert "".join(iter_json(streamed, ensure_ascii=ensure_ascii)) == want
    assert "".join(chunks(iter_json(_split(value)[0], ensure_ascii=ensure_ascii), 7)) == want


def test_a_streamed_list_is_made_as_it_is_written() -> None:
    made: list[int] = []

    def files() -> Iterator[dict[str, object]]:
        for n in range(1000):
            made.append(n)
            yield {"file": f"f{n}.md", "issues": [{"rule": "KS001", "line": n}]}

    pieces = iter_json({"score": 90, "violations": Streamed(files()), "after": []})
    taken = ""
    while '"f1.md"' not in taken:
        taken += next(pieces)
    assert len(made) <= 3  # not the whole list before the first items are written
    rest = "".join(pieces)
    whole = json.loads(taken + rest)
    assert len(whole["violations"]) == 1000 and whole["after"] == []


def test_a_string_that_looks_like_a_placeholder_is_written_as_it_is() -> None:
    value = {"a": "\x00feedfacefeedface:0\x00", "b": Streamed(iter([1, 2]))}
    want = json.dumps({"a": value["a"], "b": [1, 2]}, indent=2)
    assert "".join(iter_json(value)) == want

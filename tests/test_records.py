"""kenso_git.records.NamedTuple makes the class typing.NamedTuple makes, only cheaper (#16)."""

from __future__ import annotations

import pickle
import re
import typing
from pathlib import Path

import pytest

from kenso_git.records import NamedTuple

PACKAGE = Path(__file__).resolve().parents[1] / "kenso_git"


class Point(NamedTuple):
    """A point with a label."""

    x: int
    y: int = 0
    label: str | None = None

    @property
    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)

    @classmethod
    def origin(cls) -> Point:
        return cls(0)

    def moved(self, dx: int) -> Point:
        return self._replace(x=self.x + dx)


class TypingPoint(typing.NamedTuple):
    """A point with a label."""

    x: int
    y: int = 0
    label: str | None = None


def test_a_record_behaves_as_the_typing_namedtuple_of_the_same_fields() -> None:
    point = Point(1, 2)
    twin = TypingPoint(1, 2)
    assert tuple(point) == tuple(twin) == (1, 2, None)
    assert isinstance(point, tuple)
    assert Point._fields == TypingPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypingPoint._field_defaults == {"y": 0, "label": None}
    assert repr(point) == "Point(x=1, y=2, label=None)"
    assert point._asdict() == twin._asdict()
    assert Point._make([3, 4, "a"]) == Point(3, 4, "a")
    assert point.moved(2) == Point(3, 2) and point.norm1 == 3 and Point.origin() == (0, 0, None)
    assert Point.__doc__ == TypingPoint.__doc__ == "A point with a label."
    assert Point.__module__ == __name__ and Point.__qualname__ == "Point"
    assert list(Point.__annotations__) == ["x", "y", "label"]
    assert typing.get_type_hints(Point) == typing.get_type_hints(TypingPoint)
    assert pickle.loads(pickle.dumps(point)) == point
    with pytest.raises(AttributeError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_a_record_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow"):

        class Bad(NamedTuple):
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _make"):

        class Worse(NamedTuple):
            a: int

            def _make(self) -> None:  # type: ignore[misc]
                pass

    class Other:
        pass

    with pytest.raises(TypeError, match="can only inherit from NamedTuple"):

        class Mixed(NamedTuple, Other):  # type: ignore[misc]
            a: int


def test_every_record_of_the_package_is_made_by_this_base() -> None:
    direct = re.compile(r"^\s*from typing import .*\bNamedTuple\b|typing\.NamedTuple\b", re.M)
    offenders = [
        path.relative_to(PACKAGE.parent).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "records.py" and direct.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_a_record_keeps_its_annotations_as_written() -> None:
    """The point of the module: no annotation is compiled into a ForwardRef when the class
    is made (typing's cost); `get_type_hints` still resolves them when asked."""
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str | None"}
    assert all(isinstance(hint, typing.ForwardRef) for hint in TypingPoint.__annotations__.values())


def test_the_base_imports_nothing_of_the_package() -> None:
    """Every layer, down to config and errors, imports it: it may import none of them."""
    source = (PACKAGE / "records.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import) kenso_git", source, re.M)

"""Click decorators built from the shared option declarations in `kenso_git.cli.options`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from typing import TypeVar

import click

from kenso_git.cli.options import Option

F = TypeVar("F", bound=Callable[..., Any])


def _type(option: Option) -> click.ParamType[Any, Any] | None:
    if option.kind == "count":
        return click.INT
    if option.kind == "choice":
        return click.Choice(list(option.choices))
    if option.kind == "dir":
        return click.Path(path_type=Path, exists=True, file_okay=False)
    return None  # text: click's default STRING


def option(spec: Option) -> Callable[[F], F]:
    """The click decorator for one declared option."""
    if spec.kind == "flag":
        return click.option(*spec.flags, spec.dest, is_flag=True, help=spec.help)
    return click.option(
        *spec.flags,
        spec.dest,
        type=_type(spec),
        default=spec.default,
        show_default=spec.show_default,
        help=spec.help,
    )


def options(*specs: Option) -> Callable[[F], F]:
    """One decorator for several declared options, listed in `--help` in the order given."""

    def decorate(f: F) -> F:
        # click lists the last-applied decorator first, so apply them from the bottom up
        for spec in reversed(specs):
            f = option(spec)(f)
        return f

    return decorate

"""What every door of the service (`serve/service.py`) runs under: one call budget (#13),
the HTTP lanes' demotion of a call measured as expensive (`serve/http/lanes.py`, #27), and
errors that name files relative to the checkout, never by their host path (#26)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate
from typing import ParamSpec
from typing import Protocol
from typing import TypeVar

from kenso_git.api.search import call_budget
from kenso_git.config import Settings
from kenso_git.errors import KensoError
from kenso_git.serve.http import ticket as lane_ticket

P = ParamSpec("P")
R = TypeVar("R")


class Gate(Protocol):
    """What a door needs of the service: its settings and how it shows a path."""

    settings: Settings

    def shown(self, text: object) -> str: ...


G = TypeVar("G", bound=Gate)


def door(method: Callable[Concatenate[G, P], R]) -> Callable[Concatenate[G, P], R]:
    """Run a `Service` method as a door: under the call's budget and lane, its errors
    shown as the agent may see them."""

    @functools.wraps(method)
    def wrapper(self: G, /, *args: P.args, **kwargs: P.kwargs) -> R:
        ticket = lane_ticket.CURRENT.get()
        try:
            with call_budget(
                self.settings.call_budget,
                cpu=self.settings.call_cpu_budget / 1000,
                quantum=None if ticket is None else ticket.quantum,
                on_quantum=None if ticket is None else ticket.demote,
                pace=None if ticket is None else ticket.pace,
                costly_above=None if ticket is None else ticket.costly_program,
            ):
                return method(self, *args, **kwargs)
        except KensoError as err:
            err.message = self.shown(err.message)
            err.hint = None if err.hint is None else self.shown(err.hint)
            err.path = None if err.path is None else self.shown(err.path)
            raise

    return wrapper

"""The lane ticket of the HTTP call running in this context (`serve.lanes`, #27).

Apart from `lanes` so that `Service` reads it without importing asyncio: over stdio there
is no ticket, and the first answer should not wait for an event loop's modules (#32).
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kenso_git.serve.http.lanes import Ticket

CURRENT: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar(
    "kenso_lane_ticket", default=None
)

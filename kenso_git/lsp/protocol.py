"""The JSON-RPC side of `kenso-git lsp`: a request whose params do not fit its method's shape
is answered with an Invalid params error (-32602) for its id.

pygls turns such params into an exception while it reads the message, before the message has
a handler, so it sent no response at all (the client's request waits until it gives up) and
popped "Error in server: Invalid Params" up in the editor instead. A notification with bad
params still goes pygls's way: nobody waits for an answer to one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

from kenso_git.records import NamedTuple

MAX_PROBLEMS = 3  # said in an error message; the rest are counted


class UnfitRequest(NamedTuple):
    """A request read whose params do not fit its method: answered with -32602."""

    id: int | str
    method: str
    problems: tuple[str, ...]

    def error(self) -> types.ResponseError:
        """The Invalid params error, naming the fields at fault."""
        shown = "; ".join(self.problems[:MAX_PROBLEMS])
        more = len(self.problems) - MAX_PROBLEMS
        if more > 0:
            shown += f" and {more} more"
        return types.ResponseError(
            code=JsonRpcInvalidParams.CODE,
            message=f"invalid params for {self.method}: {shown or 'not of its shape'}",
        )


class KensoProtocol(LanguageServerProtocol):
    """pygls's protocol, answering a request with params of the wrong shape."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as err:
            unfit = _unfit(data, err)
            if unfit is None:
                raise
            return unfit

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnfitRequest):
            # pygls has no public way to answer a message it could not read
            self._send_response(message.id, error=message.error())
            return
        super().handle_message(message)


def _unfit(data: Mapping[str, Any], err: JsonRpcException) -> UnfitRequest | None:
    """The request `data` (a whole message) that could not be read, when it can be answered:
    a request, with an id a response can carry."""
    msg_id, method = data.get("id"), data.get("method")
    if isinstance(msg_id, bool) or not isinstance(msg_id, int | str):
        return None
    if not isinstance(method, str) or "error" in data or "result" in data:
        return None
    return UnfitRequest(msg_id, method, tuple(_problems(err.__cause__, "")))


_CAMEL = re.compile(r"_([a-z])")


def _problems(exc: BaseException | None, where: str) -> Iterator[str]:
    """What does not fit, field by field (`params.textDocument missing`), from the errors
    cattrs groups as it reads a message: a note on each names its field."""
    if exc is None:
        return
    where = _placed(exc, where)
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            yield from _problems(sub, where)
    else:
        yield f"{where or 'the message'} {'missing' if isinstance(exc, KeyError) else 'invalid'}"


def _placed(exc: BaseException, where: str) -> str:
    """`where` and the field or item the notes of `exc` name, as the JSON spells it."""
    for note in getattr(exc, "__notes__", ()):
        name, index = getattr(note, "name", None), getattr(note, "index", None)
        if isinstance(name, str):
            where = f"{where}.{_CAMEL.sub(lambda m: m[1].upper(), name)}".lstrip(".")
        elif isinstance(index, int):
            where = f"{where}[{index}]"
    return where

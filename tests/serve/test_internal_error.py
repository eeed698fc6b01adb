"""A tool that fails by a bug (an exception no check expected) was answered with the SDK's
plain text "Error executing tool: OSError: ..." (the fast loop's the same), which a client
cannot read as the documented JSON error. It is now that error, marked `isError`, saying it
is kenso-git's bug; the traceback goes to the server's log."""

from __future__ import annotations

import json
import logging

import pytest

from kenso_git.serve.mcp.answer import answer


def _fails() -> tuple[object, dict[str, object]]:
    raise OSError(36, "File name too long")


def test_a_bug_in_a_tool_is_the_documented_json_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        result = answer(_fails)
    assert result["isError"] is True
    body = json.loads(result["content"][0]["text"])
    assert body["error"] == "internal error: OSError: [Errno 36] File name too long"
    assert "bug in kenso-git" in body["hint"]
    assert result.get("structuredContent", body) == body
    assert "Traceback" in caplog.text

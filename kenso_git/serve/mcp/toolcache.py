"""The `tools/list` answer, made once by the SDK and kept beside the code (#32).

The SDK-free stdio loop (`serve.stdio`) answers `tools/list` from `tools_list.json`, so a
session never imports the SDK and pydantic (~0.6 s) to describe tools that only change with
the code. `python -m kenso_git.serve.mcp.toolcache` writes the file from the live SDK server
(every tool, `reindex` included, which the loop lists only where the server would); a test
fails when it is stale.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

CACHE = Path(__file__).with_name("tools_list.json")


def render() -> str:
    """The cache file's text: every tool as the SDK lists it, and the protocol versions."""
    from kenso_git.serve.mcp.server import handshake_versions
    from kenso_git.serve.mcp.server import listed_tools
    from kenso_git.serve.service import Service

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".kenso.toml").write_text("allow-reindex = true\n", encoding="utf-8")
        tools = listed_tools(Service(Path(tmp)))
    versions, latest = handshake_versions()
    body = {"handshake_versions": versions, "latest_handshake_version": latest, "tools": tools}
    return json.dumps(body, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def load() -> dict[str, Any]:
    """The cached answer.

    Raises:
        OSError: the file is missing (a broken install).
    """
    with CACHE.open(encoding="utf-8") as handle:
        cached: dict[str, Any] = json.load(handle)
    return cached


if __name__ == "__main__":  # pragma: no cover - the regeneration entry point
    CACHE.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {CACHE}\n")

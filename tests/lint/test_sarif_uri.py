"""SARIF's `artifactLocation.uri` is a URI reference (SARIF 2.1.0 §3.10, RFC 3986): a path
with `%`, a space or `[ ]` is percent-escaped, `/` kept; the raw path was written, and a
viewer read `100% sure.md` as a broken escape."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.test_cli import SCHEMA
from tests.lint.test_cli import run

PAGE = "# Toucans\n\nThe percent file talks about toucans with huge colourful beaks.\n"
# RFC 3986: unreserved, sub-delims, ":" and "@" in a path segment, "/" between them, escapes
URI_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})+")


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("100% sure.md", "100%25%20sure.md"),
        ("docs/with space/your file.md", "docs/with%20space/your%20file.md"),
        ("st*r [x].md", "st%2Ar%20%5Bx%5D.md"),
        ("notes/café #1.md", "notes/caf%C3%A9%20%231.md"),
        ("plain/page.md", "plain/page.md"),
    ],
)
def test_sarif_uri_is_the_path_percent_escaped(repo: Path, path: str, uri: str) -> None:
    write(repo, {path: PAGE})
    commit_all(repo)
    result = run(repo, "--format", "sarif")
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)
    found = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for res in log["runs"][0]["results"]
        for location in res["locations"]
    }
    assert found == {uri}
    assert URI_PATH.fullmatch(uri) and unquote(uri) == path

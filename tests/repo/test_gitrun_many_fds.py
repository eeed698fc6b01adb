"""A process holding more than 1,024 descriptors (a long-lived server: connections,
indexes) still runs git: the pipes are waited on with poll(), not select()."""

from __future__ import annotations

import os
import resource
import sys

import pytest

from kenso_git.repo.gitrun import capture


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="descriptor numbering")
def test_git_runs_with_descriptors_numbered_past_1024() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip("the descriptor limit is below 1,200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held: list[int] = []
    try:
        base = os.open(os.devnull, os.O_RDONLY)
        held.append(base)
        while held[-1] < 1030:
            held.append(os.dup(base))
        status, out, _err = capture(["git", "--version"], dict(os.environ), 30.0)
        assert status == 0 and out.startswith(b"git version")
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

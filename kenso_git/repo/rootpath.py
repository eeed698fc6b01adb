"""An absolute path argument as a repo-relative path, whichever spelling names the checkout.

The scope gate (`repo/scope.py`) takes an absolute argument only below the checkout's root,
and the root may be spelled otherwise than its real path: a checkout reached through a
link (`/tmp -> /private/tmp` on macOS) or a linked workspace.
"""

from __future__ import annotations

import os
from pathlib import Path
from pathlib import PurePosixPath

from kenso_git.repo import safeopen


def below_root(root: Path, absolute: Path) -> PurePosixPath | None:
    """`absolute` relative to `root` (the real work-tree root): below the root as written,
    or below a folder that names the checkout by another spelling; None when no folder on
    the path is the checkout (the gate refuses it as `outside-root`).

    The path's folders are resolved from the top down to the first that is the root, and
    never further: nothing inside the checkout is resolved here (a folder inside it that is
    not its root ends the search), so the rest of the path, links and all, is judged as the
    same repo-relative argument would be.
    """
    if absolute.is_relative_to(root):
        return PurePosixPath(absolute.relative_to(root).as_posix())
    real_root, parts = str(root), absolute.parts
    for depth in range(2, len(parts) + 1):
        real = safeopen.real_path(os.path.join(*parts[:depth]))
        if real == real_root:
            return PurePosixPath(*parts[depth:]) if depth < len(parts) else PurePosixPath()
        if real is None or real.startswith(real_root + os.sep) or not os.path.isdir(real):
            break  # inside the checkout, or no folder there: nothing below is the root
    return None

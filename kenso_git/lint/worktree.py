"""The work tree as lint's path rules judge it (#30): git's listing made a `TreeIndex` (what
is on disk under ignored folders, where symlinks lead, the top-level folders git had and
renamed or deleted since), the pages outside the corpus read for their anchors, and whether
lint runs for a commit being made."""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kenso_git.lint.treeindex import ReadPage
from kenso_git.lint.treeindex import ReadText
from kenso_git.lint.treeindex import TreeIndex
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import CODE_OPENING
from kenso_git.text.parse import Document

if TYPE_CHECKING:
    from kenso_git.lint.docscan import Scan
    from kenso_git.repo.tree import Listing
    from kenso_git.repo.workspace import Workspace


def work_tree(
    ws: Workspace,
    listed: Listing,
    docs: Iterable[Document] = (),
    scans: Mapping[str, Scan] | None = None,
) -> TreeIndex:
    """The tree `listed`; with `docs` (the documents to lint, whose code paths git's renames
    may place), the top-level names their code paths use that the tree lacks and git had
    are taken as the tree's too (`FormerTree`)."""
    unstaged = listed.untracked if in_commit_hook() else ()
    tree = TreeIndex(
        listed.files, listed.whole, listed.absent, on_disk(ws), leads_out(ws), unstaged
    )
    tree.read_text = text_reader(ws)  # Hugo's configs, for their heading ids
    names = _unknown_tops(docs, scans or {}, tree.folded_top)
    if not names:
        return tree
    from kenso_git.errors import GitError
    from kenso_git.repo.toplevel import former_names

    try:
        former = former_names(ws, names)
    except GitError:  # the moves search asks git next, and warns when it fails
        return tree
    if not former:
        return tree
    former_tree = FormerTree(
        listed.files,
        listed.whole,
        listed.absent,
        on_disk(ws),
        leads_out(ws),
        unstaged,
        former=former,
    )
    former_tree.read_text = tree.read_text
    return former_tree


class FormerTree(TreeIndex):
    """A work tree whose top-level names also hold `former` ones: folders git had and
    renamed or deleted whole (`git mv src lib`). A code path under one is a path of the
    repository, for git's renames to place (KS024) or its deletions to explain (KS025),
    not prose; a root-relative link into one is a link into the tree, not the site's."""

    __slots__ = ("former",)

    def __init__(
        self,
        files: Iterable[str],
        ignored: Iterable[str] = (),
        absent: Iterable[str] = (),
        on_disk: Callable[[str], bool] | None = None,
        leads_out: Callable[[str], bool] | None = None,
        unstaged: Iterable[str] = (),
        *,
        former: Iterable[str] = (),
    ) -> None:
        super().__init__(files, ignored, absent, on_disk, leads_out, unstaged)
        self.former = frozenset(former) - self.top
        self.top = self.top | self.former

    def changed(self, files: Iterable[str]) -> TreeIndex:
        """The same tree holding `files` instead, its former top-level names kept."""
        return FormerTree(
            files, self.ignored, self.absent, self.on_disk, self.leads_out, former=self.former
        )


_NAME = re.compile(r"[\w@+-][\w.@+-]*")  # a path segment as `text.mdlinks` reads code paths


def _unknown_tops(
    docs: Iterable[Document], scans: Mapping[str, Scan], folded_top: frozenset[str]
) -> set[str]:
    """The first segments of what may be code paths in `docs` (a superset: what follows
    each backtick run, or a kept scan's code paths) that no top-level entry of the tree
    has, in any case."""
    out: set[str] = set()
    for doc in docs:
        scan = scans.get(doc.path)
        if scan is not None:
            heads = [ref.target for ref in scan.refs if ref.kind == CODE]
        elif "`" in doc.body:
            heads = CODE_OPENING.findall(doc.body)
        else:
            continue
        for text in heads:
            first, slash, _ = text.partition("/")
            if slash and first.casefold() not in folded_top and _NAME.fullmatch(first):
                out.add(first)
    return out


def in_commit_hook(environ: Mapping[str, str] | None = None) -> bool:
    """Whether lint runs for a commit being made: from the pre-commit framework (which sets
    `PRE_COMMIT=1`) or a git commit hook (git sets `GIT_INDEX_FILE`). The commit then holds
    the staged files, and a link to a file git does not track is dead in it."""
    import os

    env = os.environ if environ is None else environ
    return env.get("PRE_COMMIT") == "1" or bool(env.get("GIT_INDEX_FILE"))


def on_disk(ws: Workspace) -> Callable[[str], bool]:
    """Whether a path under a folder git ignores (listed whole, never file by file) is there:
    a link to a page missing from a present build folder is dead as any other."""
    import os

    root = str(ws.root)
    return lambda path: os.path.lexists(os.path.join(root, path))


def leads_out(ws: Workspace) -> Callable[[str], bool]:
    """Whether the symlink at a root-relative path leads out of the work tree: its real path
    is resolved (links read, as discovery resolves a symlinked page), nothing there is read."""
    from kenso_git.repo.safeopen import real_path

    root = real_path(str(ws.root)) or str(ws.root)

    def out(path: str) -> bool:
        import os

        real = real_path(os.path.join(ws.root, path))
        return real is not None and os.path.commonpath([root, real]) != root

    return out


def text_reader(ws: Workspace) -> ReadText:
    """Read a file of the work tree as text (a site's config): a regular file of at most
    the given number of bytes, opened with no symlink followed (`safeopen`)."""
    root = str(ws.root)

    def read(path: str, limit: int) -> str | None:
        import os

        from kenso_git.repo.safeopen import open_beneath
        from kenso_git.repo.safeopen import read_capped

        try:
            fd = open_beneath(root, path)
        except OSError:
            return None
        try:
            size = os.fstat(fd).st_size
            if size > limit:
                return None
            data = read_capped(fd, size, limit)
        except OSError:
            return None
        finally:
            os.close(fd)
        return data.decode("utf-8", "replace")

    return read


def page_reader(ws: Workspace, max_size: int) -> ReadPage:
    """Read a Markdown page of the work tree that is not in the corpus (a checked-out
    submodule's, an ignored folder's) for the anchors a link asks of it: a regular file
    under the size cap (`max-file-size`), opened with no symlink followed (`safeopen`,
    as discovery reads), never in `.git/` or `.kenso/`."""
    root = str(ws.root)

    def read(path: str, limit: int) -> Document | None:
        import os
        import stat

        from kenso_git.repo.discover import Skip
        from kenso_git.repo.discover import SourceFile
        from kenso_git.repo.discover import document_from_bytes
        from kenso_git.repo.discover import read_bytes
        from kenso_git.repo.ignore import ALWAYS_SKIPPED_DIRS
        from kenso_git.repo.safeopen import lstat_beneath

        if not ALWAYS_SKIPPED_DIRS.isdisjoint(path.split("/")):
            return None
        try:
            st = lstat_beneath(root, path)
        except OSError:
            return None  # gone, or a symlink on the way
        if not stat.S_ISREG(st.st_mode):
            return None  # a symlink (not followed), a folder, a FIFO
        location = os.path.join(root, path)
        sf = SourceFile(path, location, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        data = read_bytes(sf, min(limit, max_size))
        return None if isinstance(data, Skip) else document_from_bytes(path, data)

    return read


def warn_unstaged(ws: Workspace, changed: Iterable[str], warn: Callable[[str], None]) -> None:
    """The commit gate lints the work tree's text: say which of the staged Markdown files
    `changed` hold changes the commit will not (under pre-commit none do: it stashes them
    first). git is asked only when the commit stages a Markdown file."""
    from kenso_git.repo.staged import unstaged
    from kenso_git.repo.workspace import is_markdown

    docs = [path for path in changed if is_markdown(path)]
    dirty = unstaged(ws) if docs else frozenset()
    for path in (p for p in docs if p in dirty):
        warn(
            f"{path}: has changes that are not staged; lint reads the work tree's text, "
            f"which the commit will not hold: `git add {path}`, or `git stash --keep-index` "
            "before linting"
        )

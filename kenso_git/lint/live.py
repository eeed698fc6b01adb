"""A repository's lint kept in memory for an editor: the corpus facts are built once, then
updated per edited document, so a keystroke costs one document's parse and lint (#30).

This is the library behind `kenso-git lsp` (which only speaks the protocol). What an edit
changes: the document's links, anchors and code paths always (its cached scan is dropped);
the relation graph, categories and titles only when its frontmatter or title changed (they
are recomputed over the documents in memory, without reading a file); the work tree only
for a document not on disk yet. Git is asked about each missing target once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.config import load_settings
from kenso_git.errors import GitError
from kenso_git.lint.config import LintConfig
from kenso_git.lint.config import load_lint_config
from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.corpus import build_facts
from kenso_git.lint.corpus import facts_for
from kenso_git.lint.corpus import select_documents
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Violation
from kenso_git.lint.root import lint_workspace
from kenso_git.lint.runner import lint_document
from kenso_git.lint.targets import FOUND
from kenso_git.records import NamedTuple
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import is_markdown
from kenso_git.text.mdlinks import CODE
from kenso_git.text.parse import Document
from kenso_git.text.parse import parse_document

if TYPE_CHECKING:
    from kenso_git.repo.ignore import IgnoreRules


class LinkedDoc(NamedTuple):
    """The document a link leads to, for an editor's hover."""

    path: str
    title: str
    fragment: str | None


def _shape(doc: Document) -> tuple[object, ...]:
    """What the corpus-wide facts read of a document besides its links and anchors."""
    return (doc.relations, doc.category, doc.title, doc.aliases)


class LiveCorpus:
    """Every document of one repository, parsed, with the corpus facts the rules judge by."""

    def __init__(
        self,
        ws: Workspace,
        settings: Settings,
        config: LintConfig,
        docs: dict[str, Document],
        facts: CorpusFacts,
        rules: IgnoreRules | None = None,
    ) -> None:
        self.workspace = ws
        self.settings = settings
        self.config = config
        self._rules = rules  # the ignore rules the read walked by
        self._docs = docs
        self._facts = facts
        self._asked: set[str] = set()  # missing paths git was asked about
        if facts.links is not None:
            facts.links.docs = docs  # one mapping: an edit is seen by the link facts too

    @classmethod
    def open(cls, root: Path, warn: Callable[[str], None] | None = None) -> LiveCorpus:
        """Read and parse the repository `kenso-git lint` judges from the folder `root`
        (`lint_workspace`: in git the work tree around it; outside git the folder of the
        index at or above it) and compute its facts.

        Raises:
            UsageError: the configuration is malformed, or `root` does not exist.
        """
        ws = lint_workspace((), root)
        settings = load_settings(ws.root)
        config = load_lint_config(settings)
        selection = select_documents(ws, settings, [], warn=warn)
        docs = {doc.path: doc for doc in selection.corpus}
        facts = facts_for(ws, selection, config, warn=warn)
        live = cls(ws, settings, config, docs, facts, selection.rules)
        if facts.links is not None:
            facts.links.settle()  # a server keeps no git waiting to be read
            live._asked.update(facts.links.missing(selection.corpus))
        return live

    def __contains__(self, path: object) -> bool:
        return path in self._docs

    def relative(self, file: Path) -> str | None:
        """`file` as a repo-relative POSIX path when it is a Markdown file under the root."""
        try:
            rel = file.resolve().relative_to(self.workspace.root)
        except ValueError:
            return None
        path = rel.as_posix()
        return path if is_markdown(path) and not path.startswith(".git/") else None

    def is_ignored(self, path: str) -> bool:
        """Whether `kenso-git lint` refuses the repo-relative `path` as ignored (.gitignore,
        .cursorignore, .kensoignore, `exclude`): the rules the read walked by."""
        return self._rules is not None and self._rules.is_ignored(path)

    def lint(self, path: str) -> tuple[Violation, ...]:
        """The findings of the document at `path` as it stands in memory."""
        doc = self._docs.get(path)
        if doc is None:
            return ()
        ctx = RuleContext(self._facts, self.config.thresholds)
        return lint_document(doc, ctx, self.config).violations

    def update(self, path: str, text: str) -> None:
        """The document at `path` now reads `text` (an editor's buffer, or the file again)."""
        doc = parse_document(path, text)
        old = self._docs.get(path)
        self._docs[path] = doc
        links = self._facts.links
        if links is not None:
            if path not in links.tree:
                tree = links.tree
                links.set_tree(tree.changed([*tree.files, path]))
            links.docs = self._docs
            links.forget(path)
        if old is None or _shape(old) != _shape(doc):
            self._refacts()
        if links is not None:
            self._ask_git(doc)

    def drop(self, path: str) -> None:
        """Forget the document at `path` (closed in the editor and not on disk)."""
        if self._docs.pop(path, None) is None:
            return
        links = self._facts.links
        if links is not None:
            links.forget(path)
            tree = links.tree
            kept = [p for p in tree.files if p != path]
            links.set_tree(tree.changed(kept))
        self._refacts()

    def _refacts(self) -> None:
        docs = [self._docs[p] for p in sorted(self._docs)]
        fresh = build_facts(
            docs,
            with_mentions="KS019" in self.config.select,
            min_label_chars=self.config.thresholds.min_label_chars,
        )
        links = self._facts.links
        if links is not None:
            links.set_paths(fresh.paths)
        self._facts = replace(fresh, links=links)

    def _ask_git(self, doc: Document) -> None:
        links = self._facts.links
        wanted = {"KS024", "KS025"} & self.config.select
        if links is None or not wanted:
            return
        new = links.missing([doc]) - self._asked
        if not new:
            return
        self._asked.update(new)
        from kenso_git.repo.moves import find_moves

        try:
            found = find_moves(self.workspace, new, links.tree.__contains__)
        except GitError:
            return  # the targets stay reported as missing, as `lint` does when git fails
        links.moves.update(found.moved)
        links.deleted.update(found.deleted)

    def linked_doc(self, path: str, line: int, column: int) -> LinkedDoc | None:
        """The document the link at 1-based `line` and `column` of `path` leads to (the
        cursor on its target or its text), or None."""
        doc = self._docs.get(path)
        links = self._facts.links
        if doc is None or links is None:
            return None
        lines = doc.text.split("\n")
        for target in links.targets(doc):
            if target.line != line or target.status != FOUND or target.ref.kind == CODE:
                continue
            text = lines[line - 1] if line <= len(lines) else ""
            start = text.rfind("[", 0, max(target.column - 2, 0)) + 1 or target.column
            if start <= column <= target.column + len(target.ref.target):
                linked = self._docs.get(target.path)
                if linked is not None:
                    return LinkedDoc(target.path, linked.display_title, target.fragment)
        return None

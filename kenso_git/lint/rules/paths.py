"""Path rules: links, anchors, moved targets and code paths, checked offline against the work
tree and git's renames (KS022 KS023 KS024 KS025, #30), and the pages whose links pass the
scan's caps (KS026).

Each rule's fix is made beside its check: a finding carries the `Edit` that `lint --fix` and
the language server's code actions apply (written by `rules/_linkedit.py`; KS024's findings
for moved targets and moved pages are made in `rules/_moved.py`). External URLs are never
fetched; `~/x.md` links, site-absolute links (`/dotnet/api/x`) no root of the tree makes a
page of in a site project (`lint/placement.py`), `xref:`-style schemes and site templates
other than Hugo's `ref`/`relref` (`lint/hugoref.py`) are skipped and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter

from kenso_git.lint.hugoref import is_template
from kenso_git.lint.model import Finding
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Severity
from kenso_git.lint.model import rule
from kenso_git.lint.placement import page_url_folder
from kenso_git.lint.relpaths import relative_to
from kenso_git.lint.rules._entryedit import entry_edit
from kenso_git.lint.rules._linkedit import link_edit
from kenso_git.lint.rules._linkedit import path_part
from kenso_git.lint.rules._linkedit import what
from kenso_git.lint.rules._moved import fixing
from kenso_git.lint.rules._moved import rebased_climbing
from kenso_git.lint.rules._moved import rebased_link
from kenso_git.lint.rules._moved import rebased_relation
from kenso_git.lint.rules._moved import relinked
from kenso_git.lint.rules._moved import target_move
from kenso_git.lint.rules._typo import Guesser
from kenso_git.lint.rules._typo import anchor_index
from kenso_git.lint.rules._where import column_in_line
from kenso_git.lint.targets import CASE
from kenso_git.lint.targets import FOUND
from kenso_git.lint.targets import LINE_ANCHOR
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import UNSTAGED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.targets import Target
from kenso_git.lint.targets import rewritable
from kenso_git.lint.treeindex import PULLED_IN
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import HTML_KINDS
from kenso_git.text.mdlinks import MAX_LINK_SCANS
from kenso_git.text.mdlinks import MAX_REFS
from kenso_git.text.parse import Document


@rule(
    "KS022",
    "dead-link",
    severity=Severity.ERROR,
    summary="Links and images (Markdown, and HTML `<a href>` and `<img src>`) point at files "
    "and folders that exist in the tree, with the same case.",
    why="A relative link to a missing file is a 404 for readers and a dead end for agents "
    "following it; a link that differs only in case works on macOS and Windows and breaks "
    "on Linux checkouts and on GitHub. Hugo's `ref`/`relref` shortcodes are resolved as "
    "Hugo does (from the page, from a content root, by name) and their anchors checked; "
    "a ref that finds no page of the tree (Hugo may mount it from another repository) and "
    "other site templates (`{{% eturl x %}}`, `{{ site.baseurl }}`) are counted as not "
    "checked, not reported. A relative page link as static sites write it, with a trailing "
    "slash (`../x/`) or no extension (`./x`), that names nothing as written names the page "
    "`x.md`, `x.markdown`, `x/index.md`, `x/_index.md` or `x/README.md`, read from the "
    "page's folder and from its own URL (a site with directory URLs serves `a/p.md` at "
    "`a/p/`, an index page at its folder's); its fragment is checked there. Where a site "
    "leaves such a link as written (MkDocs rewrites only links to `.md` files, Hugo none "
    "unless a link render hook may resolve it from the page's file: a `render-link.html` in "
    "the tree, a config setting `renderHooks`, two or more languages, or a theme or module "
    "not in the tree), a page it serves "
    "at a folder URL of its own reads it from that URL alone: one only the page's folder "
    "finds is dead (`./setup/` in `guide/p.md` is `guide/p/setup/`), and the finding names "
    "the link that works (`../setup/`). Raw HTML "
    "(`<img src>`, `<a href>`) in a page MkDocs serves at a folder URL of its own (unless "
    "`use_directory_urls: false`, and under its `docs_dir`) is read from that URL's folder "
    "too, as its browser does: MkDocs rewrites a Markdown link for the page's URL, raw HTML "
    "it leaves as written. In a page MkDocs or Hugo serves at a folder URL of its own, a "
    "directory-style link that differs in case from the page's folder is read from its URL "
    "too; `--fix` corrects a link's case only where the file's folder is what the page's "
    "dialect reads it from (GitHub's links, a site's index pages, MkDocs' Markdown links "
    "to files), never a directory-style link or raw HTML of another site page, nor a Hugo "
    "page's links. A site-absolute "
    "link (`/docs/x/`, `/docs/x`) names the file it names from the repository's root, else "
    "that page read from the root or a content root (each folder above the page is tried as "
    "one, as for `ref`: `content/`, `content/en/`). One no root makes a page of is dead when "
    "its first folder is the root's, and counted as not checked when it is not or under a "
    "site config (Hugo's `hugo.toml` or `config.toml`, `mkdocs.yml`, `docusaurus.config.js`, "
    "Jekyll's `_config.yml`): the site may serve it from static files or another repository. "
    "`--fix` and KS024 never rewrite the path of a link found so. Run from a "
    "commit hook (pre-commit sets `PRE_COMMIT`, git `GIT_INDEX_FILE`), a link to a file git "
    "does not track is dead in the commit, though the file is on disk: `git add` it.",
    action="fix links to missing files",
    deduction=3,
    cap=15,
    emit=18,
    impact=1,
    fixable=True,
    targets_only=True,
)
def dead_link(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    facts = ctx.corpus.links
    if facts is None:  # the work tree is not known (a lint of given texts): nothing to judge
        return
    for target in facts.notable(doc):
        if target.ref.kind == CODE or target.status not in (MISSING, CASE, UNSTAGED):
            continue
        raw = target.ref.target
        if target.status == UNSTAGED:
            message = (
                f'{what(target)} "{raw}": {target.path} exists but is not staged: '
                f"`git add {target.path}`, or the commit holds a dead link"
            )
            yield Finding(target.line, target.column, message, raw)
            continue
        if target.status == MISSING:
            if not ctx.moves_named or (
                target_move(doc, target, facts) is None and facts.moved_source(doc, target) is None
            ):
                message = f'{what(target)} "{raw}": {target.path} does not exist'
                if target.reason:  # a page the file's folder finds, not the page's site
                    message = _served_only(doc, target, facts)
                yield Finding(target.line, target.column, message, raw)
            continue
        real = target.reason
        path, rest = path_part(raw)
        fixed = relative_to(doc.path, path, real) + rest
        message = (
            f'{what(target)} "{raw}": {target.path} exists only as {real} '
            "(breaks on case-sensitive checkouts)"
        )
        # the real path is the file's folder's reading: not the page's site's, maybe
        html = target.ref.kind in HTML_KINDS
        rewrites = rewritable(doc.path, raw, facts.tree, html=html)
        edit = link_edit(target, fixed) if rewrites else None
        yield Finding(target.line, target.column, message, raw, edit)


def _served_only(doc: Document, target: Target, facts: LinkFacts) -> str:
    """KS022's message for a directory-style link its site reads from the page's folder URL,
    where it names nothing, though from the file's folder it names the page `reason`."""
    fixed = relinked(doc, target, target.reason, facts)
    how = f'write "{fixed}"' if fixed else f"link to {target.reason} by another path"
    return (
        f'{what(target)} "{target.ref.target}": the site serves this page at a folder URL of '
        f"its own ({page_url_folder(doc.path)}/), where the link names {target.path}, which "
        f"does not exist ({target.reason} is found only from the file's folder): {how}"
    )


@rule(
    "KS023",
    "dead-anchor",
    severity=Severity.ERROR,
    summary="A `#fragment` names a heading (GitHub's slugs, and in an MkDocs project "
    "Python-Markdown's too, in a Hugo project the ids its `autoHeadingIDType` makes), an "
    "`{#id}` or an `<a name>` of its target.",
    why="A fragment no heading produces lands readers at the top of the page, and it "
    "breaks silently when a heading is reworded; GitHub numbers repeated headings "
    "`-1`, `-2`. A page with an `mkdocs.yml` (or `mkdocs.yaml`) in its folder or one above "
    'it also offers the ids MkDocs renders (Python-Markdown\'s `toc`: "Users & UsersFile" '
    "is `#users-usersfile`, a repeated heading `#x_1`); a fragment either dialect makes "
    "passes. So does one Hugo makes where the Hugo config nearest the page (in its folder or "
    "above, `config/_default/` too) sets `[markup.goldmark.parser] autoHeadingIDType` to "
    '`blackfriday` ("What\'s new?" is `#what-s-new`, "1.0.0" is `#1-0-0`) or `github-ascii` '
    "(GitHub's with accents taken off and other non-ASCII dropped). A Hugo page that calls "
    "a shortcode pulling in content from elsewhere (a name with `markdown`, `readfile`, "
    "`include`, `import`, `embed` or `remote`, opening a line) may have headings lint cannot "
    "read: a fragment none of its anchors makes is counted as not checked. A folder link's "
    "fragment is the page's the folder shows: `./#part` in a page MkDocs or Hugo serves at a "
    "folder URL of its own (`a/p.md` at `a/p/`, unless `use_directory_urls: false` or "
    "`uglyURLs`) is the page's own, and another folder link of such a page is read from "
    "that URL (`../#part` in `a/b/p.md` is `a/b/`'s index page); in a project no site "
    "config holds a folder's (`./#part`, `../guide/#part`, and the repository's root: "
    "`../#part` in `docs/p.md`, `/#part`) is its README's, as GitHub shows it. On a site "
    "page `/` is the domain's root, always served: its `#part` is the home page's "
    "(`docs/index.md`, `content/_index.md`: the content folder's) when an MkDocs or Hugo "
    "site is served at that root (`site_url` or `baseURL` `https://x.io/`), and not checked "
    "otherwise. A link to "
    "the root is inside the repository; only one that climbs above it is counted as "
    "outside. One of another site, of a URL no page answers, or of a folder with no "
    "Markdown README is counted as not checked. A suggestion "
    "for a Hugo page whose config sets the type is looked for among its Hugo ids first. "
    "`lint --fix` corrects a fragment's case, and a typo when exactly one "
    "anchor of the page is close to it (the one the finding suggests). So that a generated "
    "page cannot make lint slow, a page of more than 200 anchors (or of very long ones) is "
    "searched only beside the fragment, and fixed only when the suggestion is its only "
    "anchor one edit away (a character added, dropped, replaced or two swapped) and no "
    "other anchor searched is close.",
    action="fix links to missing headings",
    deduction=2,
    cap=10,
    emit=18,
    fixable=True,
    targets_only=True,
)
def dead_anchor(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    facts = ctx.corpus.links
    if facts is None:
        return
    guesser = Guesser()
    for target in facts.notable(doc):
        fragment = target.fragment
        if target.status != FOUND or not fragment or LINE_ANCHOR.fullmatch(fragment):
            continue
        if fragment.casefold() == "top":  # HTML: no such element, the top of the page
            continue
        made = facts.offers(target.path, fragment)
        if made is None:  # no page lint can read is there: said unchecked, not passed
            facts.pages.unjudged(doc.path, target.line, target.column, target.path)
        if made is not False:
            continue
        if facts.pulls_headings(target.path):  # its shortcodes may make it: unchecked
            at = (doc.path, target.line, target.column, target.path)
            facts.pages.unjudged(*at, PULLED_IN)
            continue
        index = anchor_index(facts.anchors_of(target.path) or frozenset())
        raw = target.ref.target
        where = "this document" if target.path == doc.path else target.path
        same = index.by_fold.get(fragment.casefold(), ())
        if len(same) == 1:
            fixed = raw[: raw.rfind("#") + 1] + same[0]
            message = f'anchor "#{fragment}" differs in case from "#{same[0]}" of {where}'
            edit = None if is_template(raw) else link_edit(target, fixed)
            yield Finding(target.line, target.column, message, raw, edit)
            continue
        site = facts.site_ids(target.path)  # a Hugo site's own ids are suggested first
        close = guesser.guess(fragment, anchor_index(site)) if site else None
        if close is None:
            close = guesser.guess(fragment, index)  # bounded: see lint/rules/_typo.py
        hint = f'; did you mean "#{close.anchor}"?' if close else ""
        message = f'anchor "#{fragment}": no heading of {where} makes it{hint}'
        edit = None
        if close and close.fixable and not is_template(raw):
            edit = link_edit(target, raw[: raw.rfind("#") + 1] + close.anchor)
        yield Finding(target.line, target.column, message, raw, edit)


@rule(
    "KS024",
    "moved-target",
    severity=Severity.ERROR,
    summary="Links, relates_to entries and code paths follow files git has renamed.",
    why="A renamed page breaks every link to it, and moving a page to another folder breaks "
    "its own relative links and relates_to entries; git's rename detection knows where each "
    "went, so `kenso-git lint --fix` rewrites the link (re-based from the page's old folder, "
    "or an earlier one for a page moved more than once) instead of a reader hunting for it. "
    "A moved page's link to a page git moved too (in the same commit, the staged changes or "
    "another commit) is re-based to where that page went. In a page MkDocs or Hugo serves "
    "at a folder URL of its own (`a/p.md` at `a/p/`), a directory-style link (`../x/`, "
    "`./x`) is read at the page's old place and rewritten from its URL, as the site reads "
    "it and KS022 checks it (a page named by its URL: `x/` for `x.md`), and one naming a "
    "page or folder git renamed follows it (`../setup/` for `setup.md`); a rewrite KS022 "
    "would not find at the target is never offered. `lint --staged`, the commit gate, "
    "also lints the pages linking to what the staged changes rename or delete.",
    action="run lint --fix for renamed targets",
    deduction=3,
    cap=15,
    emit=18,
    impact=1,
    fixable=True,
    targets_only=True,
)
def moved_target(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    facts = ctx.corpus.links
    if facts is None:
        return
    found: list[Finding] = []
    for target in facts.notable(doc):
        moved = target_move(doc, target, facts)
        if moved is None:
            rebased = rebased_link(doc, target, ctx)
            if rebased is not None:
                found.append(rebased)
            continue
        was, move = moved
        raw = target.ref.target
        if target.ref.kind == CODE:
            fixed: str | None = move.new + ("/" if raw.endswith("/") else "")
        else:
            fixed = relinked(doc, target, move.new, facts)
        message = f"{move.describe(was)}; {fixing(target, fixed)}"
        edit = None if fixed is None else link_edit(target, fixed)
        found.append(Finding(target.line, target.column, message, raw, edit))
    found.extend(rebased_climbing(doc, facts))
    for rel, paths in facts.missing_relations(doc):
        moved = facts.relation_move(paths)
        if moved is None:
            rebased = rebased_relation(doc, rel, ctx)
            if rebased is not None:
                found.append(rebased)
            continue
        path, move = moved
        if rel.target.startswith(("./", "../")) or path != paths[0]:  # from the folder
            fixed = relative_to(doc.path, rel.target, move.new, link=False)
        else:  # written root-relative (as KS002 reads a bare path first)
            fixed = ("/" if rel.target.startswith("/") else "") + move.new
        column = column_in_line(doc, rel.line, rel.target)
        message = f"relates_to: {move.describe(path)}; lint --fix rewrites the entry"
        edit = entry_edit(doc, rel.line, column, rel.target, fixed)
        found.append(Finding(rel.line, column, message, rel.target, edit))
    if found:
        yield from sorted(found, key=attrgetter("line", "column"))


@rule(
    "KS025",
    "missing-code-path",
    severity=Severity.WARNING,
    summary="A backticked repository path in prose (`src/tool.py`) names a file or folder "
    "of the tree.",
    why="Docs that name code paths rot when the code moves or goes. Only tokens shaped like "
    "paths whose first folder exists, or did until git renamed or deleted it, are looked at, "
    "and a missing one is reported when git deleted it, when a name in its folder is a near "
    "miss (a typo), or when only its case differs (a path git moved is KS024's); a path no "
    "commit ever had is read as an example (`docs/x.md`), not a finding.",
    action="update code paths the docs name",
    deduction=1,
    cap=4,
    emit=18,
    fixable=True,
    targets_only=True,
)
def missing_code_path(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    facts = ctx.corpus.links
    if facts is None:
        return
    for target in facts.notable(doc):
        if target.ref.kind != CODE or target.status not in (MISSING, CASE):
            continue
        token = target.ref.target
        slash = "/" if token.endswith("/") else ""
        if target.status == CASE:
            fixed = target.reason + slash
            message = f"code path `{token}` exists only as `{target.reason}` (case differs)"
            yield Finding(target.line, target.column, message, token, link_edit(target, fixed))
        elif ctx.moves_named and facts.move_of(target.path) is not None:
            continue  # KS024 names where it went
        elif (commit := facts.deleted.get(target.path)) is not None:
            message = f"code path `{token}` is not in the tree: deleted in {commit}"
            yield Finding(target.line, target.column, message, token)
        elif (near := facts.tree.near(target.path)) is not None:
            message = f"code path `{token}` is not in the tree; did you mean `{near}{slash}`?"
            yield Finding(target.line, target.column, message, token)


@rule(
    "KS026",
    "unchecked-links",
    severity=Severity.WARNING,
    summary=f"A page holds at most {MAX_REFS:,} links and {MAX_REFS:,} code paths, "
    "the most the path rules check.",
    why="Lint reads a page's links and code paths up to a cap, so that a generated page "
    f"cannot make it slow (and at most {MAX_LINK_SCANS:,} `](` outside code, whether or not "
    "a `[` opens a link there); a dead link past the cap would pass without a word. The finding "
    "stands at the first link or code path not checked, once per page.",
    action="split pages past the link cap",
    deduction=1,
    emit=18,
    targets_only=True,
)
def unchecked_links(doc: Document, ctx: RuleContext) -> Iterator[Finding]:
    facts = ctx.corpus.links
    if facts is None or (at := facts.unchecked(doc)) is None:
        return
    message = (
        f"more links or code paths than lint checks ({MAX_REFS:,} of each, "
        f"{MAX_LINK_SCANS:,} `](` outside code): this one and "
        "those after it are not checked; split the page, or if it is generated, exclude "
        "it (the `exclude` setting)"
    )
    yield Finding(at[0], at[1], message)


RULES = (dead_link, dead_anchor, moved_target, missing_code_path, unchecked_links)

"""The options several commands share, declared once and free of click.

The click commands turn these into decorators (`kenso_git.cli.click_options`) and the entry's
fast path (`kenso_git.entry`) parses plain `sync` and `search` command lines with them, so a
flag, its destination, its accepted values and its default cannot differ between the two.
"""

from __future__ import annotations

from typing import Literal

from kenso_git.records import NamedTuple

# flag: an on/off switch; text: any string; count: a non-negative integer; choice: one of
# `choices`; dir: an existing directory (checked by click only).
Kind = Literal["flag", "text", "count", "choice", "dir"]

COLORS = ("auto", "always", "never")


class Option(NamedTuple):
    """One command-line option: its flags, the parameter it sets, its values and help."""

    flags: tuple[str, ...]
    dest: str
    kind: Kind
    help: str | None = None
    default: object = None
    show_default: bool = False
    choices: tuple[str, ...] = ()

    def with_help(self, text: str | None) -> Option:
        """The same option with a command's own help text."""
        return self._replace(help=text)

    def parse(self, value: str) -> object | None:
        """`value` as this option's value, or None when click would reject it (or might)."""
        if self.kind == "count":
            return int(value) if value.isdigit() else None
        if self.kind == "choice":
            return value if value in self.choices else None
        return value


JSON = Option(("--json",), "as_json", "flag", default=False)
QUIET = Option(
    ("--quiet", "-q"), "quiet", "flag", "Print nothing unless something changed.", default=False
)
DB = Option(("--db",), "db_path", "text", "Database file (default .kenso/docs.db).")
COLOR = Option(
    ("--color",),
    "color",
    "choice",
    "Colour the output.",
    default="auto",
    show_default=True,
    choices=COLORS,
)
SEARCH_LIMIT = 5  # search's results when no --limit is given (within search-limit-max)
# None when not given: the default is brought within search-limit-max without a warning,
# a --limit given outside it is said on stderr
LIMIT = Option(
    ("--limit", "-n"),
    "limit",
    "count",
    f"Results (1..search-limit-max, default {SEARCH_LIMIT}).",
)
CATEGORY = Option(
    ("--category", "-c"), "category", "text", "Only this exact category ('all' = any)."
)
NO_SYNC = Option(
    ("--no-sync",),
    "no_sync",
    "flag",
    "Do not sync changed docs first.",
    default=False,
)
ROOT = Option(("--root",), "root", "dir")

# The options of the two commands the entry parses without click, in `--help` order.
SYNC_OPTIONS = (JSON.with_help("Print the outcome as JSON."), QUIET, DB)
# `serve` over stdio, what an editor starts each session (#32): any other form goes to click.
SERVE_OPTIONS = (
    Option(("--transport",), "transport", "choice", choices=("stdio",)),
    Option(("--no-watch",), "no_watch", "flag", default=False),
    DB,
    ROOT,
)
SEARCH_OPTIONS = (
    LIMIT,
    CATEGORY,
    JSON.with_help("Print the search_docs JSON array."),
    DB,
    COLOR,
    NO_SYNC,
    Option(("--ref",), "ref", "text", "The docs as in this commit, branch or tag (REV)."),
)


# `search`'s agent-surface options (issue #17). Any of them sends `search` to the query
# language, the pages and `--format`; the entry's fast path does not know them, so a command
# line that uses one goes through click.
FORMATS = ("text", "json", "tsv")
AGENT_SEARCH_OPTIONS = (
    Option(("--path",), "path", "text", "Only docs under this folder (in:PATH)."),
    Option(("--ext",), "ext", "text", "Only files with this extension (ext:EXT)."),
    Option(("--tag",), "tag", "text", "Only docs with this frontmatter tag (tag:TAG)."),
    Option(("--since",), "since", "text", "Only files modified within, e.g. 7d (modified:)."),
    Option(("--exhaustive",), "exhaustive", "flag", "Every match, path-sorted.", default=False),
    Option(("--page-size",), "page_size", "count", "Hits per page (1..50, default 10; or -n)."),
    Option(("--cursor",), "cursor", "text", "next_cursor of the previous page."),
    Option(
        ("--format",),
        "fmt",
        "choice",
        "text, json (the search tool's page) or tsv (path, score, snippet).",
        choices=FORMATS,
    ),
)


def spoken_flags(options: tuple[Option, ...], *, leaving_out: str = "") -> str:
    """The options' first flags as a sentence says them: `--a, --b or --c`."""
    flags = [o.flags[0] for o in options if o.flags[0] != leaving_out]
    return f"{', '.join(flags[:-1])} or {flags[-1]}" if len(flags) > 1 else "".join(flags)


def parse_plain(
    args: list[str], options: tuple[Option, ...]
) -> tuple[dict[str, object], list[str]] | None:
    """The values of `options` (defaults included) by destination, and the other words of a
    plain command line; None for any other form (`--help`, `--limit=5`, a bad value, a typo,
    a word starting with `-`), which click then explains."""
    by_flag = {flag: option for option in options for flag in option.flags}
    values = {option.dest: option.default for option in options}
    words: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        option = by_flag.get(arg)
        if option is not None and option.kind == "flag":
            values[option.dest] = True
        elif option is not None and rest and not rest[0].startswith("-"):
            value = option.parse(rest.pop(0))
            if value is None:
                return None
            values[option.dest] = value
        elif arg.startswith("-"):
            return None
        else:
            words.append(arg)
    return values, words

"""The `kenso-git` command line: a thin click layer over the library.

Sub-commands live in their own modules and are imported only when invoked, so
`kenso-git search` never pays for the MCP SDK, pygit2 or the linter.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from kenso_git import __version__
from kenso_git.cli.exit import run_and_exit

# command name -> "module:attribute"; each module owns one family of commands.
_COMMANDS: dict[str, str] = {
    "ingest": "kenso_git.cli.index_cmd:ingest",
    "sync": "kenso_git.cli.index_cmd:sync",
    "stats": "kenso_git.cli.index_cmd:stats",
    "state": "kenso_git.cli.state_cmd:state",
    "search": "kenso_git.cli.search_cmd:search",
    "related": "kenso_git.cli.related_cmd:related",
    "lint": "kenso_git.cli.lint_cmd:lint",
    "hooks": "kenso_git.cli.hooks_cmd:hooks",
    "hook": "kenso_git.cli.hooks_cmd:hook",
    "serve": "kenso_git.cli.serve_cmd:serve",
    "lsp": "kenso_git.cli.lsp_cmd:lsp",
    "connect": "kenso_git.cli.serve_cmd:connect",
    "watch": "kenso_git.cli.watch_cmd:watch",
    "changed": "kenso_git.cli.history_cmd:changed",
    "drift": "kenso_git.cli.history_cmd:drift",
}


class _LazyGroup(click.Group):
    """A group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            return None
        command = getattr(module, attr, None)
        return command if isinstance(command, click.Command) else None


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="kenso-git")
def cli() -> None:
    """Keep this repository's Markdown docs searchable by AI coding agents.

    \b
    Start here:
      kenso-git ingest            index the repository's Markdown (run once)
      kenso-git search "query"    search it from the terminal
      kenso-git hooks install     keep the index fresh on checkout, merge, rebase
      kenso-git lint docs/        check docs for retrieval quality
      kenso-git connect claude-code --write   let an agent search the docs

    Exit codes: 0 ok, 1 failure (or lint errors), 2 usage, 3 no index.
    """


def _configure_logging() -> None:
    """Logs go to stderr (stdout may carry JSON or MCP messages), at KENSO_LOG_LEVEL.

    Unset, nothing is configured: Python's last-resort handler already prints warnings
    to stderr, and `logging` stays unimported on the fast paths.
    """
    name = os.environ.get("KENSO_LOG_LEVEL", "").strip().upper()
    if not name:
        return
    import logging

    level = logging.getLevelName(name)
    logging.basicConfig(
        level=level if isinstance(level, int) else logging.WARNING,
        stream=sys.stderr,
        format="kenso-git: %(levelname)s: %(message)s",
    )


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the group and map errors to exit codes."""
    _configure_logging()
    run_and_exit(
        lambda: cli.main(args=argv, prog_name="kenso-git", standalone_mode=False),
        interrupts=(click.exceptions.Abort,),
        usage_errors=(click.ClickException,),
    )

"""`kenso-git lsp`: the language server (KS diagnostics, quick fixes, link hovers) on stdio."""

from __future__ import annotations

import logging
import sys

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Speak on stdin and stdout (the default and only way).")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Log to stderr at this level.",
)
def lsp(stdio: bool, log_level: str) -> int:
    """Run the Language Server for an editor, over stdin and stdout.

    The editor starts it in the repository: it reads every doc once, then publishes the KS
    findings of each open document on open, change and save, judged against the whole
    repository (links, anchors and moved files across documents), offers quick fixes for the
    fixable ones and shows a linked doc's title on hover. Set-up for VS Code, Neovim and
    Helix: docs/editors.md.
    """
    # stdout carries the protocol: every log line goes to stderr.
    logging.basicConfig(
        level=getattr(logging, log_level.upper()),
        format="%(name)s: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    from kenso_git.lsp.server import serve_stdio

    serve_stdio()
    return 0

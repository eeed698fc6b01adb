"""Lint time with and without the path rules, their linearity, and the language server's
latency on the docs corpus (issue #30; run by hand).

    python benchmarks/bench_lint.py [CORPUS_DIR] [--runs 3] [--kenso-venv /work/kenso-ref]
        [--changes 40] [--skip-x4]

Copies CORPUS_DIR (default ../shared/corpora/docs-desktop/docs) into a temporary git repo
(one commit) and, for the linearity check, four copies of it side by side into a second one.
In the same run, alternating:

- `kenso-git lint --json` of the whole repository with every default rule, and with the path
  rules (KS022-KS025) ignored: the rules' share of lint's time (target <= 20%);
- the same on x4 the input (target: x4 input within x8 the time);
- `kenso lint` of kenso 2.0.0 on the same tree (with --kenso-venv), the reference floor;
- `kenso-git lsp` driven by pygls's LanguageClient over stdio: the initialize round trip
  (target <= 1 s), the time to the first diagnostics, and the time from each of --changes
  edits of a document to its diagnostics (target p95 <= 100 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "docs-desktop" / "docs"
PATH_RULES = "KS022,KS023,KS024,KS025"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git_repo(root: Path, corpus: Path, copies: int) -> None:
    root.mkdir(parents=True)
    for n in range(copies):
        shutil.copytree(corpus, root / (f"copy{n}" if copies > 1 else "docs"))
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "corpus"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")
    return elapsed


def _lint(root: Path, runs: int, kenso: Path | None) -> dict[str, float]:
    ours = [sys.executable, "-m", "kenso_git", "lint", "--json", "."]
    variants = {"all rules": ours, "without KS022-KS025": [*ours, "--ignore", PATH_RULES]}
    if kenso is not None:
        variants["kenso 2.0.0"] = [str(kenso / "bin" / "kenso"), "lint", "--json", "."]
    times: dict[str, list[float]] = {name: [] for name in variants}
    for run in range(runs):  # alternate, so load drifts hit every variant alike
        for name, cmd in variants.items():
            if name == "kenso 2.0.0" and run > 0:
                continue  # minutes a run: once is the floor
            times[name].append(_timed(cmd, root))
    return {name: statistics.median(values) for name, values in times.items()}


async def _lsp(root: Path, doc: Path, changes: int) -> dict[str, float]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient
    from pygls.uris import from_fs_path

    client = LanguageClient("bench", "1")
    arrived: asyncio.Queue[float] = asyncio.Queue()
    uri = from_fs_path(str(doc))
    assert uri is not None

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            arrived.put_nowait(time.perf_counter())

    await client.start_io(sys.executable, "-m", "kenso_git", "lsp", cwd=root)
    started = time.perf_counter()
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            process_id=None,
        )
    )
    initialize = time.perf_counter() - started
    client.initialized(types.InitializedParams())
    text = doc.read_text(encoding="utf-8")
    opened = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    first = await asyncio.wait_for(arrived.get(), 120) - opened
    latencies = []
    for version in range(2, changes + 2):
        text += f"\nAn edit number {version} with a [link](../missing-{version % 3}.md).\n"
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        latencies.append(await asyncio.wait_for(arrived.get(), 60) - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    latencies.sort()
    return {
        "initialize": initialize,
        "first diagnostics after open": first,
        "change p50": statistics.median(latencies),
        "change p95": latencies[max(0, round(0.95 * len(latencies)) - 1)],
        "change max": latencies[-1],
    }


def _compiled() -> None:
    """The package's bytecode written now, as an install leaves it: with
    PYTHONDONTWRITEBYTECODE set (as on CI machines and sandboxes) a module edited since its
    last compile is compiled again by every timed process, and the modules of one variant
    more than the other's."""
    import compileall

    package = REPO / "kenso_git"
    if package.is_dir():
        compileall.compile_dir(str(package), quiet=1)
        print(f"bytecode of {package} up to date (as installed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--kenso-venv", type=Path)
    parser.add_argument("--skip-x4", action="store_true")
    args = parser.parse_args()
    _compiled()
    with tempfile.TemporaryDirectory(prefix="bench-lint-") as tmp:
        one = Path(tmp) / "x1"
        _git_repo(one, args.corpus, 1)
        x1 = _lint(one, args.runs, args.kenso_venv)
        print(f"lint of the corpus ({args.runs} runs, median seconds):")
        for name, value in x1.items():
            print(f"  {name:<24} {value:7.2f}")
        base = x1["without KS022-KS025"]
        share = (x1["all rules"] - base) / base * 100
        print(f"  path rules add {share:+.1f}% (target <= 20%)")
        if "kenso 2.0.0" in x1:
            print(f"  kenso-git / kenso 2.0.0: {x1['all rules'] / x1['kenso 2.0.0']:.2f}x")
        if not args.skip_x4:
            four = Path(tmp) / "x4"
            _git_repo(four, args.corpus, 4)
            x4 = _lint(four, args.runs, None)
            ratio = x4["all rules"] / x1["all rules"]
            print(
                f"x4 input: {x4['all rules']:.2f} s with all rules, "
                f"{x4['without KS022-KS025']:.2f} s without; x{ratio:.2f} the time (bound 8)"
            )
        docs = sorted((one / "docs").rglob("*.md"))
        doc = max(docs[:400], key=lambda p: p.stat().st_size)  # a long page: a worst case
        lsp = asyncio.run(_lsp(one, doc, args.changes))
        print(f"lsp on {doc.relative_to(one)} ({doc.stat().st_size} bytes):")
        for name, value in lsp.items():
            print(f"  {name:<30} {value * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

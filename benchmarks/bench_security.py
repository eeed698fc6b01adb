"""Hostile calls stay bounded (issue #13 targets), run by hand on the docs corpus.

    .venv/bin/python benchmarks/bench_security.py [--corpus docs-desktop]

1. CPU seconds of single hostile calls through the service (target: each < 2 s).
2. Wall seconds of a normal `search_docs` from one HTTP client while 40 hostile calls run
   from others (target: < 1 s), as the median of `--rounds` rounds, and its ratio to the same
   search with no other client. `--src DIR` runs the server of another checkout (a baseline:
   `git worktree add /tmp/h13-base 627cdd9`); `--only http` skips part 1.
3. `--only race` (#27 finding 1): a separate process flips `docs/x.md` between a regular
   in-scope file and a link to a canary (`../.env`, a file outside the repository, an
   out-of-scope doc) while the tools read it; answers holding a canary are counted (target
   0 in 10 minutes: `--race-seconds 600`, the default).
4. `--only stale` (#27 finding 2): `docs/x.md` is indexed as a link to the out-of-scope
   canary doc, then becomes a regular file with no sync, with `query-sync = false` and in the
   window after a bulk change of > 200 docs; answers holding the canary are counted (target 0).
5. `--only rss` (#27 finding 4): the server's resident set after each of `--bursts` (12)
   bursts of 40 concurrent hostile HTTP calls (huge and misspelt queries, negated `re:`
   filters, costly regexes, hostile paths); targets: RSS after the last <= 1.5x RSS after
   the first, and <= 300 MB.
6. `--only scoped` (#27 finding 6): what the scoped index costs a server whose
   `agent-scoped-roots` hides docs (the first search builds it; a search after one edit
   syncs the main index, then the scoped one), beside the same searches of an unscoped one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(sys.argv[sys.argv.index("--src") + 1]).resolve() if "--src" in sys.argv else ROOT
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(SRC))  # kenso_git of the measured checkout; the helpers of this one

from kenso_git.errors import KensoError  # noqa: E402
from kenso_git.kb import KnowledgeBase  # noqa: E402
from kenso_git.serve.service import Service  # noqa: E402
from tests.serve.http_helpers import running_http_server  # noqa: E402

WORDS = [f"w{i}x" for i in range(64)]
CLOSE_SESSIONS = "--close-sessions" in sys.argv
HOSTILE_QUERIES = {
    "query at both caps": " ".join(f"deploymentconfiguration{i:06d}x" for i in range(64))[:2000],
    "query at the word cap": " ".join(WORDS),
    "1 MB query": "x" * 1_000_000,
    "typo query": "zanzibat deplyo konfiguraton",
}
HOSTILE_PATHS = {
    "path of 63 components": "a/" * 63 + "x.md",
    "path of 2,000 components": "a/" * 2000 + "x.md",
    "path of 4,096 chars": "docs/" + "b" * 4080 + ".md",
}


def _cpu(fn: object) -> float:
    start = time.process_time()
    with contextlib.suppress(KensoError):
        fn()  # type: ignore[operator]
    return time.process_time() - start


def single_calls(root: Path) -> None:
    service = Service(root)
    service.search_docs("warm up", None, 5)
    for name, query in HOSTILE_QUERIES.items():
        cpu = _cpu(lambda q=query: service.search_docs(q, None, 20))
        print(f"  search_docs {name:<26} {cpu:.3f} s CPU")
        cpu = _cpu(lambda q=query: service.search_multi([q] * 5, None, 20))
        print(f"  search_multi {name:<25} {cpu:.3f} s CPU")
    for name, path in HOSTILE_PATHS.items():
        print(f"  get_doc {name:<30} {_cpu(lambda p=path: service.get_doc(p, None)):.3f} s CPU")
        cpu = _cpu(lambda p=path: service.get_related(p, 3, None))
        print(f"  get_related {name:<26} {cpu:.3f} s CPU")
    agent = {  # the agent surface's hostile kinds of the HTTP mix
        "search": lambda a: service.search(a["query"], page_size=50, mode=a.get("mode", "ranked")),
        "regex_search": lambda a: service.regex_search(a["pattern"], page_size=50),
        "find_related": lambda a: service.find_related(a["path"], 50, None),
    }
    for tool, args in RSS_HOSTILE:
        if tool in agent:
            shown = str(next(iter(args.values())))[:40]
            print(f"  {tool} {shown:<46} {_cpu(lambda a=args, t=tool: agent[t](a)):.3f} s CPU")


def _session(client: httpx.Client, url: str) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    reply = client.post(url, json=init)
    headers = {"mcp-session-id": reply.headers.get("mcp-session-id", "")}
    client.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    return headers


def _call(url: str, auth: dict[str, str], name: str, args: dict[str, object]) -> float:
    if name == "GET /search":  # the HTTP route beside MCP: no session
        with httpx.Client(headers=auth, timeout=120) as client:
            start = time.perf_counter()
            client.get(url.removesuffix("/mcp") + "/search", params=args)
            return time.perf_counter() - start
    headers = {**auth, "Accept": "application/json, text/event-stream"}
    with httpx.Client(headers=headers, timeout=120) as client:
        session = _session(client, url)
        start = time.perf_counter()
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
        client.post(url, json=body, headers=session).raise_for_status()
        took = time.perf_counter() - start
        if CLOSE_SESSIONS:  # a polite client ends its session; a hostile one leaves it open
            client.delete(url, headers=session)
        return took


class _Agent:
    """A normal client as agents are: one MCP session kept across its calls."""

    def __init__(self, url: str, auth: dict[str, str]) -> None:
        self.url = url
        headers = {**auth, "Accept": "application/json, text/event-stream"}
        self.client = httpx.Client(headers=headers, timeout=120)
        self.session = _session(self.client, url)
        self.calls = 2

    def search(self, query: str) -> float:
        self.calls += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.calls,
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": query}},
        }
        start = time.perf_counter()
        self.client.post(self.url, json=body, headers=self.session).raise_for_status()
        return time.perf_counter() - start


def _hostile_call(url: str, auth: dict[str, str], name: str, args: dict[str, object]) -> float:
    """A hostile call's seconds (a 503 or a tool error is an answer too)."""
    start = time.perf_counter()
    with contextlib.suppress(httpx.HTTPError):
        return _call(url, auth, name, args)
    return time.perf_counter() - start


def _round(
    server: object, hostile: list[tuple[str, dict[str, object]]], agent: _Agent | None = None
) -> tuple[float, float]:
    """One normal search while 40 hostile calls run: its seconds and the slowest hostile's.
    The normal client is `agent` (its session kept), else a new client."""
    url, auth = server.url, server.auth()  # type: ignore[attr-defined]
    with concurrent.futures.ThreadPoolExecutor(max_workers=41) as pool:
        jobs = [
            pool.submit(_hostile_call, url, auth, *hostile[i % len(hostile)]) for i in range(40)
        ]
        time.sleep(0.2)  # let the hostile calls reach the server first
        if agent is None:
            normal = _call(url, auth, "search_docs", {"query": "configure deployment"})
        else:
            normal = agent.search("configure deployment")
        slowest = max(job.result() for job in jobs)
    return normal, slowest


def _p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def concurrent_calls(root: Path, rounds: int, extra: dict[str, str], mix: str, normal: str) -> None:
    if mix == "search":  # the first rounds' mix: searches and paths only
        hostile = [("search_docs", {"query": q}) for q in HOSTILE_QUERIES.values()]
        hostile += [("get_doc", {"path": p}) for p in HOSTILE_PATHS.values()]
    else:  # every kind the issue names, and the HTTP route with 64 `re:` filters
        hostile = [*RSS_HOSTILE, ("GET /search", {"q": GET_64_FILTERS})]
    env = {"PYTHONPATH": str(SRC), **extra}  # the server imports the measured checkout
    with running_http_server(root, env=env) as server:
        _call(server.url, server.auth(), "search_docs", {"query": "warm up"})
        agent = _Agent(server.url, server.auth()) if normal == "session" else None
        alone, during, slowest = [], [], []
        for _ in range(rounds):
            if agent is None:
                query = {"query": "configure deployment"}
                alone.append(_call(server.url, server.auth(), "search_docs", query))
            else:
                alone.append(agent.search("configure deployment"))
            took, worst = _round(server, hostile, agent)
            during.append(took)
            slowest.append(worst)
    a, d, worst = statistics.median(alone), statistics.median(during), statistics.median(slowest)
    print(
        f"  hostile mix {mix!r} ({len(hostile)} kinds), normal client: "
        f"{'one session kept' if agent else 'a new session per call'}\n"
        f"  normal search_docs alone: {a:.3f} s; "
        f"during 40 hostile calls: median {d:.3f} s, p95 {_p95(during):.3f} s, max "
        f"{max(during):.3f} s (target p95 < 1 s; median {d / a:.1f}x alone); slowest hostile "
        f"call {worst:.3f} s (median)\n  {rounds} rounds: {', '.join(f'{x:.2f}' for x in during)}"
    )


# -- #27 finding 4: memory after bursts of hostile calls -------------------------------

RSS_HOSTILE: list[tuple[str, dict[str, object]]] = [
    *(("search_docs", {"query": q, "limit": 20}) for q in HOSTILE_QUERIES.values()),
    *(("get_doc", {"path": p}) for p in HOSTILE_PATHS.values()),
    ("search", {"query": "window -re:a.*b -re:c.*d -re:[a-q][^u-z]{99}x", "page_size": 50}),
    ("search", {"query": " ".join(f"re:w{i}.*x" for i in range(12)), "page_size": 50}),
    ("search", {"query": "the", "mode": "exhaustive", "page_size": 50}),
    ("regex_search", {"pattern": "[a-q][^u-z]{999}x", "page_size": 50}),
    ("regex_search", {"pattern": "(?i)the|and|of|to", "page_size": 50}),
    ("search_docs", {"query": "wndow contrl bindng propertie dependncy evnt handlr", "limit": 20}),
    ("search_multi", {"queries": ["window", "control", "binding", "property", "event"]}),
    ("find_related", {"path": "docs/dotnet-desktop-guide/wpf/security-wpf.md", "page_size": 50}),
]


GET_64_FILTERS = " ".join(f"re:w{i}.*x" for i in range(64))


def _burst(server: object, size: int) -> None:
    url, auth = server.url, server.auth()  # type: ignore[attr-defined]
    with concurrent.futures.ThreadPoolExecutor(max_workers=size) as pool:
        jobs = [
            pool.submit(_call, url, auth, *RSS_HOSTILE[i % len(RSS_HOSTILE)]) for i in range(size)
        ]
        for job in jobs:
            with contextlib.suppress(httpx.HTTPError):
                job.result()


def rss_bursts(root: Path, bursts: int, size: int, extra: dict[str, str]) -> list[float]:
    """The server's RSS (MB) after starting, then after each burst of `size` hostile calls."""
    env = {"PYTHONPATH": str(SRC), **extra}
    with running_http_server(root, env=env) as server:
        _call(server.url, server.auth(), "search_docs", {"query": "warm up"})
        seen = [server.rss_mb()]
        for _ in range(bursts):
            _burst(server, size)
            seen.append(server.rss_mb())
    return seen


def rss_report(root: Path, bursts: int, extra: dict[str, str]) -> None:
    seen = rss_bursts(root, bursts, 40, extra)
    first, last, peak = seen[1], seen[-1], max(seen)
    print(
        f"  RSS at start {seen[0]:.0f} MB, after burst 1 {first:.0f} MB, after burst {bursts} "
        f"{last:.0f} MB ({last / first:.2f}x, target <= 1.5x; target <= 300 MB), peak {peak:.0f} MB"
    )
    print("  after each burst: " + ", ".join(f"{x:.0f}" for x in seen[1:]))


# -- #27 finding 6: what the scoped index costs ------------------------------------------


def _median_ms(fn: object, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def scoped_cost(root: Path) -> None:
    query = "data binding validation"
    plain = Service(root)
    first = _median_ms(lambda: plain.search_docs(query, None, 5), 1)
    warm = _median_ms(lambda: plain.search_docs(query, None, 5), 9)
    print(f"  unscoped search_docs: first {first:.0f} ms, then {warm:.0f} ms (median of 9)")
    (root / ".kenso.toml").write_text('agent-scoped-roots = ["docs/dotnet-desktop-guide/wpf"]\n')
    scoped = Service(root)
    build = _median_ms(lambda: scoped.search_docs(query, None, 5), 1)
    warm = _median_ms(lambda: scoped.search_docs(query, None, 5), 9)
    again = Service(root)
    first = _median_ms(lambda: again.search_docs(query, None, 5), 1)
    print(
        f"  scoped search_docs: first {build:.0f} ms (builds the scoped index), then "
        f"{warm:.0f} ms; a new server's first {first:.0f} ms (the scoped index exists)"
    )
    for label, folder, service in (
        ("scoped, a visible doc edited", "wpf", again),
        ("scoped, a hidden doc edited", "winforms", again),
        ("unscoped, a doc edited", "wpf", plain),
    ):
        doc = next((root / "docs" / "dotnet-desktop-guide" / folder).rglob("*.md"))

        def edited(doc: Path = doc, service: Service = service) -> None:
            with doc.open("a", encoding="utf-8") as out:
                out.write("\nAn edit by the benchmark.\n")
            service.search_docs(query, None, 5)

        print(
            f"  search_docs after one edit ({label}): {_median_ms(edited, 5):.0f} ms (median of 5)"
        )
    scopes = root / ".kenso" / "scopes"
    size = sum(p.stat().st_size for p in scopes.glob("*.db")) / 1e6
    main = (root / ".kenso" / "docs.db").stat().st_size / 1e6
    print(f"  scoped index {size:.1f} MB beside the main index's {main:.1f} MB")


# -- #27: the race and the stale window -------------------------------------------------

CANARIES = {"env": "zebracornsecret", "outside": "farawaycanary", "private": "hiddenroadmapword"}
X_TEXT = "# X Page\n\nThe flipword page, a harmless in-scope doc long enough to be indexed.\n"
FLIPPER = """
import os, sys, time
x, targets, stop = sys.argv[1], sys.argv[2:-1], float(sys.argv[-1])
text = open(x + ".text", "rb").read()
i = 0
while time.time() < stop:
    tmp = x + ".swap"
    if i % 2:
        with open(tmp, "wb") as out:
            out.write(text)
    else:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(targets[(i // 2) % len(targets)], tmp)
    os.replace(tmp, x)
    i += 1
print(i)
"""


def _probe_repo(docs: Path, tmp: Path, config: str) -> Path:
    """The corpus under docs/ (the agent scope), a private doc, `.env` and a file outside
    the repository, each holding its canary word."""
    root = tmp / "repo"
    shutil.copytree(docs, root / "docs")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".kenso.toml").write_text('agent-scoped-roots = ["docs"]\n' + config)
    (root / ".env").write_text(f"API_TOKEN={CANARIES['env']}\n" * 4)
    (root / "private").mkdir()
    private = f"# Private Plan\n\nThe {CANARIES['private']} flipword plan agents must not see.\n"
    (root / "private" / "plan.md").write_text(private)
    (tmp / "outside.md").write_text(f"# Outside\n\nThe {CANARIES['outside']} flipword text.\n")
    (root / "docs" / "x.md").write_text(X_TEXT)
    (root / "docs" / "x.md.text").write_bytes(X_TEXT.encode())
    KnowledgeBase.open(root).ingest()
    return root


def _leaks(answer: object) -> str | None:
    text = str(answer).lower()
    return next((k for k, word in CANARIES.items() if word.lower() in text), None)


def _probe_calls(service: Service) -> dict[str, object]:
    # get_doc last: its own sync of a changed path would end a stale window for the others
    return {
        "search_docs": lambda: service.search_docs("flipword", None, 20),
        "search": lambda: service.search("flipword", page_size=20),
        "regex_search": lambda: service.regex_search("flipword", page_size=20),
        "read_snippet": lambda: service.read_snippet("docs/x.md", "", 256),
        "get_doc": lambda: service.get_doc("docs/x.md", None),
    }


def _turn(calls: dict[str, object], table: dict[str, list[int]]) -> None:
    """Call each tool once: per tool [answers, refusals, answers holding a canary]."""
    for name, call in calls.items():
        row = table.setdefault(name, [0, 0, 0])
        try:
            got = call()  # type: ignore[operator]
        except KensoError as err:
            got, row[1] = err.message, row[1] + 1
        except Exception as err:  # a baseline (--src) may crash: a refusal that says nothing
            got, row[1] = repr(err), row[1] + 1
        row[0] += 1
        row[2] += _leaks(got) is not None


def _table(title: str, table: dict[str, list[int]]) -> None:
    print(f"  {title}")
    print(f"    {'tool':<14} {'answers':>8} {'refused':>8} {'canary':>7}")
    for name, (answers, refused, leaked) in table.items():
        print(f"    {name:<14} {answers:>8} {refused:>8} {leaked:>7}")
    total = sum(row[2] for row in table.values())
    print(f"    answers holding a canary: {total} (target 0)")


def race_probe(docs: Path, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _probe_repo(docs, Path(tmp), "")
        x = root / "docs" / "x.md"
        targets = ["../.env", str(Path(tmp) / "outside.md"), "../private/plan.md"]
        stop = time.time() + seconds
        flipper = subprocess.Popen(
            [sys.executable, "-c", FLIPPER, str(x), *targets, str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        table: dict[str, list[int]] = {}
        calls = _probe_calls(Service(root))
        try:
            while time.time() < stop:
                _turn(calls, table)
        finally:
            flips = flipper.communicate(timeout=60)[0].strip()
        _table(f"race: {seconds:.0f} s, {flips} flips of docs/x.md", table)


def stale_probe(docs: Path, rounds: int) -> None:
    for mode, config in (
        ("query-sync = false, watch = false", "query-sync = false\nwatch = false\n"),
        ("defaults, after a bulk change of > 200 docs", ""),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            root = _probe_repo(docs, Path(tmp), config)
            x = root / "docs" / "x.md"
            if not config:  # edited in place, never synced: every query gives up and says stale
                for path in sorted((root / "docs").rglob("*.md"))[:250]:
                    with path.open("a", encoding="utf-8") as out:
                        out.write("\nEdited by the stale-window probe.\n")
            kb, service = KnowledgeBase.open(root), Service(root)
            table: dict[str, list[int]] = {}
            for _ in range(rounds):
                x.unlink()
                x.symlink_to("../private/plan.md")
                kb.sync(paths=["docs/x.md"])  # the index now holds the plan under docs/x.md
                x.unlink()
                x.write_text(X_TEXT)  # a regular file again; no sync follows
                _turn(_probe_calls(service), table)
            _table(f"stale window ({mode}): {rounds} rounds", table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default="docs-desktop")
    parser.add_argument("--src", help="checkout whose kenso_git is measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("single", "http", "race", "stale", "rss", "scoped"))
    parser.add_argument("--bursts", type=int, default=12, help="hostile bursts of --only rss")
    parser.add_argument(
        "--close-sessions", action="store_true", help="each call ends its MCP session after"
    )
    parser.add_argument("--race-seconds", type=float, default=600.0, help="race probe length")
    parser.add_argument("--stale-rounds", type=int, default=200, help="stale-window rounds")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    parser.add_argument(
        "--mix",
        choices=("all", "search"),
        default="all",
        help="hostile calls of --only http: every kind (default), or searches and paths only",
    )
    parser.add_argument(
        "--normal",
        choices=("both", "session", "new"),
        default="both",
        help="the normal client of --only http: an agent keeping its MCP session, a new "
        "session per call, or both (default)",
    )
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(SRC)  # the ingest below runs in-process: same code
    docs = ROOT.parent / "shared" / "corpora" / args.corpus / "docs"
    if not docs.is_dir():
        docs = Path("/work/shared/corpora") / args.corpus / "docs"
    print(f"kenso_git from {SRC}, corpus {args.corpus}")
    if args.only == "race":
        race_probe(docs, args.race_seconds)
        return
    if args.only == "stale":
        stale_probe(docs, args.stale_rounds)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(docs, root / "docs")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        KnowledgeBase.open(root).ingest()
        extra = dict(e.split("=", 1) for e in args.env)
        if args.only in (None, "rss"):
            print(f"RSS: {args.bursts} bursts of 40 concurrent hostile HTTP calls")
            rss_report(root, args.bursts, extra)
        if args.only in (None, "scoped"):
            print("the scoped index (agent-scoped-roots hides part of the corpus)")
            scoped_cost(root)
            (root / ".kenso.toml").unlink()
        if args.only in ("rss", "scoped"):
            return
        if args.only != "http":
            print("single hostile calls")
            single_calls(root)
        if args.only != "single":
            print("HTTP: 40 hostile calls and one normal client")
            for normal in ("session", "new") if args.normal == "both" else (args.normal,):
                concurrent_calls(root, args.rounds, extra, args.mix, normal)


if __name__ == "__main__":
    main()

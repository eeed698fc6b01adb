"""Our path rules beside lychee and markdownlint's MD051 on the docs corpus (issue #30; by hand).

    python benchmarks/bench_lint_side_by_side.py [CORPUS_DIR] --lychee PATH --markdownlint PATH
        [--renames 10] [--sample 50] [--seed 30]

Copies CORPUS_DIR (default ../shared/corpora/docs-desktop/docs) into a temporary git repo,
commits it, then renames the --renames most linked pages into `moved/` in a second commit
(what a docs reorganisation does), and runs on the same tree:

- `kenso-git lint --json --select KS022,KS023,KS024,KS025`;
- `lychee --offline --include-fragments` (the link checker; offline, so files and anchors);
- `markdownlint-cli2` with MD051 (link fragments within a file) alone.

Prints each tool's findings by kind, the overlap of the broken-file findings (file, line,
target path), and --sample of our findings with their source line, for reading by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "docs-desktop" / "docs"
sys.path.insert(0, str(HERE))
from bench_lint import GIT_ENV  # noqa: E402  # one committer for every benchmark repository

_LINK = re.compile(r"\]\((?!https?:|#|/|~)([^)\s#?]+\.md)")


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return done.stdout.decode()


def _most_linked(root: Path, count: int) -> list[Path]:
    linked: Counter[Path] = Counter()
    for page in root.rglob("*.md"):
        for target in _LINK.findall(page.read_text(encoding="utf-8", errors="replace")):
            found = (page.parent / target).resolve()
            if found.is_file():
                linked[found] += 1
    return [p for p, _ in linked.most_common(count)]


def _corpus_repo(root: Path, corpus: Path, renames: int) -> list[tuple[str, str]]:
    shutil.copytree(corpus, root / "docs")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "corpus")
    moved = []
    (root / "moved").mkdir()
    for page in _most_linked(root, renames):
        old = page.relative_to(root.resolve()).as_posix()
        new = f"moved/{page.parent.name}-{page.name}"
        _git(root, "mv", old, new)
        moved.append((old, new))
    _git(root, "commit", "-q", "-m", "move the most linked pages")
    return moved


def _ours(root: Path) -> list[dict[str, object]]:
    cmd = [sys.executable, "-m", "kenso_git", "lint", "--json"]
    out = subprocess.run(
        [*cmd, "--select", "KS022,KS023,KS024,KS025", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    data = json.loads(out.stdout)
    print("ours: not checked offline:", data.get("skipped", {}))
    return [dict(i, file=f["file"]) for f in data["violations"] for i in f["issues"]]


def _lychee(root: Path, exe: str) -> list[dict[str, object]]:
    report = root.parent / "lychee.json"
    subprocess.run(
        [
            exe,
            "--offline",
            "--include-fragments",
            "--no-progress",
            "--format",
            "json",
            "--output",
            str(report),
            "**/*.md",
        ],
        cwd=root,
        capture_output=True,
        check=False,
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    prefix = f"file://{root.resolve()}/"
    out = []
    for source, errors in data.get("error_map", {}).items():
        for error in errors:
            url, text = error["url"], error["status"]["text"]
            if "/~/" in url:
                kind = "'~/' link read as a relative folder"
            elif "fragment" in text.lower():
                kind = "fragment not found"
            elif text.startswith("Error building URL"):
                kind = "site-absolute link (no --root-dir)"
            else:
                kind = "file not found"
            path = url.removeprefix(prefix).split("#")[0]
            out.append({"file": source, "line": error["span"]["line"], "kind": kind, "path": path})
    return out


def _markdownlint(root: Path, exe: str) -> list[str]:
    (root / ".markdownlint-cli2.jsonc").write_text(
        '{ "config": { "default": false, "MD051": true } }\n', encoding="utf-8"
    )
    done = subprocess.run([exe, "**/*.md"], cwd=root, capture_output=True, text=True, check=False)
    return [line for line in (done.stdout + done.stderr).splitlines() if "MD051" in line]


def _broken_path(finding: dict[str, object]) -> tuple[object, object, str] | None:
    """(file, line, target path) of a KS022 missing-file or a KS024 finding."""
    message = str(finding["message"])
    if finding["rule"] == "KS024":
        path = message.split(" was renamed to ", 1)[0].removeprefix("relates_to: ")
    elif message.endswith(" does not exist"):
        path = message.rsplit(": ", 1)[-1].removesuffix(" does not exist")
    else:
        return None
    return finding["file"], finding["line"], path


def _kind(finding: dict[str, object]) -> str:
    word = "moved" if finding["rule"] == "KS024" else str(finding["message"]).split(" ")[0]
    return f"{finding['rule']} {word}"


def _sample(found: list[dict[str, object]], size: int, seed: int) -> list[dict[str, object]]:
    """`size` findings drawn evenly from each kind (rule and link/image), then by chance."""
    rng = random.Random(seed)
    kinds: dict[str, list[dict[str, object]]] = {}
    for f in found:
        kinds.setdefault(_kind(f), []).append(f)
    groups = [kinds[k] for k in sorted(kinds, key=lambda k: len(kinds[k]))]
    out: list[dict[str, object]] = []
    for n, group in enumerate(groups):
        share = (size - len(out)) // (len(groups) - n)
        out.extend(rng.sample(group, min(share, len(group))))
    return out


def _source_line(root: Path, finding: dict[str, object]) -> str:
    lines = (root / str(finding["file"])).read_text(encoding="utf-8").split("\n")
    return lines[int(str(finding["line"])) - 1].strip()[:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--lychee", required=True)
    parser.add_argument("--markdownlint", required=True)
    parser.add_argument("--renames", type=int, default=10)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        moved = _corpus_repo(root, args.corpus, args.renames)
        print(f"renamed {len(moved)} pages into moved/ in the last commit")
        ours, lychee, mdl = (
            _ours(root),
            _lychee(root, args.lychee),
            _markdownlint(root, args.markdownlint),
        )
        kinds = Counter(_kind(f) for f in ours)
        print(f"\nkenso-git: {len(ours)} findings", dict(kinds.most_common()))
        print(
            f"lychee --offline --include-fragments: {len(lychee)} errors",
            dict(Counter(str(f["kind"]) for f in lychee).most_common()),
        )
        print(f"markdownlint-cli2 MD051: {len(mdl)} findings", *mdl[:10], sep="\n  ")
        ours_files = {_broken_path(f) for f in ours if f["rule"] in ("KS022", "KS024")}
        ours_files.discard(None)
        theirs = {
            (f["file"], f["line"], f["path"]) for f in lychee if f["kind"] == "file not found"
        }
        print(
            f"\nbroken files: ours {len(ours_files)}, lychee {len(theirs)}, "
            f"both {len(ours_files & theirs)}"
        )
        for label, extra in (
            ("only ours", ours_files - theirs),
            ("only lychee", theirs - ours_files),
        ):
            print(f"  {label}: {len(extra)}", *sorted(extra)[:8], sep="\n    ")
        ks024 = [f for f in ours if f["rule"] == "KS024"]
        print(f"\nmoved targets (KS024, with the new path and commit): {len(ks024)}")
        for f in ks024[:5]:
            print(f"  {f['file']}:{f['line']}: {f['message']}")
        sample = _sample(ours, args.sample, args.seed)
        print(f"\n{len(sample)} of our findings to read by hand (seed {args.seed}):")
        for n, f in enumerate(sorted(sample, key=lambda f: (f["rule"], f["file"])), 1):
            print(f"{n:3}. {f['file']}:{f['line']}:{f['column']} {f['rule']} {f['message']}")
            print(f"     | {_source_line(root, f)}")
        fixed = subprocess.run(
            [sys.executable, "-m", "kenso_git", "lint", "--fix", "--select", "KS024", "."],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        after = Counter(_kind(f) for f in _ours(root))
        print(f"\nlint --fix: {fixed.stderr.strip()}; after it: {dict(after.most_common())}")


if __name__ == "__main__":
    main()

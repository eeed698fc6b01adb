"""Builders shared by the tests: real git repositories and Markdown files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = os.environ.copy()
    env.update(
        GIT_AUTHOR_DATE="1700000000 +0000",
        GIT_COMMITTER_DATE="1700000000 +0000",
    )
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, env=env
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def init_repo(root: Path, files: dict[str, str | bytes] | None = None, commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    if files:
        write(root, files)
    if commit and files:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    return root


def doc(title: str, body: str = "", **frontmatter: object) -> str:
    """A Markdown document long enough to be indexed."""
    fm = ""
    if frontmatter:
        lines = []
        for key, value in frontmatter.items():
            if isinstance(value, list):
                lines.append(f"{key}:")
                lines.extend(f"  - {item}" for item in value)
            else:
                lines.append(f"{key}: {value}")
        fm = "---\n" + "\n".join(lines) + "\n---\n"
    text = body or (
        f"{title} explains how the system behaves in detail.\n\n"
        f"## {title} details\n\nThe {title.lower()} section carries enough words to index.\n"
    )
    return f"{fm}# {title}\n\n{text}"


def corpus_roots() -> list[Path]:
    """The shared corpora folder when this checkout has ../shared (tests skip otherwise)."""
    candidates = [
        Path(__file__).resolve().parents[2] / "shared" / "corpora",
        Path("/work/shared/corpora"),
    ]
    return [p for p in dict.fromkeys(candidates) if p.is_dir()]

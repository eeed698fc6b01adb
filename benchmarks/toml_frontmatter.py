"""Rewrite the TOML front matter (`+++ ... +++`) of a corpus copy's Markdown as YAML.

    python benchmarks/toml_frontmatter.py FOLDER

Hugo sites may write front matter in TOML; kenso reads YAML front matter only (kenso-git
and the eval's query maker, `quality_queries.py`, read TOML too), so to kenso such a
corpus's pages have no titles and no descriptions. Run on an extracted copy (never on a
repository): each page whose front matter is TOML gets the same keys as YAML, the body
untouched. A page whose TOML does not parse is named and left as it is. Not run in CI.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import yaml

FENCE = "+++"


def converted(text: str) -> str | None:
    """`text` with its TOML front matter as YAML; None when it has none."""
    if not text.startswith(FENCE + "\n"):
        return None
    end = text.find("\n" + FENCE + "\n", len(FENCE))
    if end < 0:
        return None
    fields = tomllib.loads(text[len(FENCE) + 1 : end])
    front = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True)
    return "---\n" + front + "---\n" + text[end + len(FENCE) + 2 :]


def main(folder: Path) -> int:
    pages = changed = 0
    for page in sorted(folder.rglob("*.md")):
        pages += 1
        try:
            text = converted(page.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            print(f"{page}: left as it is: {error}", file=sys.stderr)
            continue
        if text is not None:
            page.write_text(text, encoding="utf-8")
            changed += 1
    print(f"{changed} of {pages} pages had TOML front matter, now YAML")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        sys.exit("usage: python benchmarks/toml_frontmatter.py FOLDER")
    sys.exit(main(Path(sys.argv[1])))

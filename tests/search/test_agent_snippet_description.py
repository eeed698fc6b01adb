"""The `search` snippet of a page whose matched chunk holds no text is its description.

Found on Spinnaker's docs (never seen before): a section page of frontmatter alone
(`guides/user/canary/_index.md`: a title and a description, as static sites' `_index.md`
often are) was the first hit for "canary analysis" with an empty snippet, which told an
agent nothing the title had not. Its description is now the snippet; a page with text keeps
its own snippet, and labelled lines (aliases, keywords, the source path) never show.
"""

from __future__ import annotations

from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from tests.helpers import init_repo

SECTION = """---
title: Using Spinnaker for Automated Canary Analysis
description: >
  Automated canary analysis lets you partially roll out a change then evaluate
  it against the current deployment.
aliases: [kayenta-guide]
tags: [canary]
---
"""
PAGE = """---
title: Canary stage
description: The stage that runs an analysis.
---
# Canary stage

The canary stage compares the baseline with the new version and scores the analysis of it.
"""


def test_a_page_of_frontmatter_alone_shows_its_description(tmp_path: Path) -> None:
    root = init_repo(
        tmp_path / "repo", {"docs/canary/_index.md": SECTION, "docs/canary/stage.md": PAGE}
    )
    kb = KnowledgeBase.open(root)
    kb.ingest()
    for mode in ("ranked", "exhaustive"):
        hits = kb.agent_search(SearchRequest("canary analysis", mode=mode))["results"]
        snippets = {h["path"]: h["snippet"] for h in hits}
        section = snippets["docs/canary/_index.md"]
        assert section.startswith("Automated canary analysis lets you"), (mode, section)
        assert "kayenta" not in section and "Source:" not in section and "Keywords" not in section
        assert "The canary stage compares" in snippets["docs/canary/stage.md"], (mode, snippets)

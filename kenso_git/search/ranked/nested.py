"""Signal `nested` (#31, twenty-second round): a question that names a page's file and the
folder it is in asks for that page, not for the folder's own page.

Reference trees name a page by what it documents inside what: `staticTypes/add.md` is the
`<add>` element of `<staticTypes>`, `k6-browser/page/click.md` the `click` method of
`page`. A question that asks for the one says both names ("The add element of the
staticTypes element adds a MIME type ..."), and the folder's own page
(`staticTypes/index.md`), which lists its children and so holds all their words, came
first: `index` lifts a section page whose folder the question names.

A candidate that is not an index page is named when the words of its file name and the
words of its folder's name are all among the question's words, and each says a word the
other does not (`query/query_acceleration.md` and `PSReadLine/PSReadLine.md` name their
folder in their file name: the question names one thing there, not two). When only one
candidate of a folder is so named, it gets `Tuning.nested`, and that folder's own page
loses `index` for the question. Linear in the candidates (the words of each file and
folder name are cached).
"""

from __future__ import annotations

from collections.abc import Sequence

from kenso_git.search.ranked.rankdocs import INDEX_STEMS
from kenso_git.search.ranked.rankdocs import folder_words
from kenso_git.search.ranked.rankdocs import words


def nested(
    wanted: frozenset[str], candidates: Sequence[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """(the candidates the question names with their folder, the folders whose own page
    loses `index`); `wanted` is the question's words as the other signals read them."""
    by_folder: dict[str, list[str]] = {}
    for path in candidates:
        folder, _, file = path.rpartition("/")
        name = file.rsplit(".", 1)[0]
        if not folder or name.lower() in INDEX_STEMS:
            continue
        said = words(name.replace("-", " "))
        held = folder_words(path)
        if said and held and said <= wanted and held <= wanted and said - held and held - said:
            by_folder.setdefault(folder, []).append(path)
    named = [paths[0] for paths in by_folder.values() if len(paths) == 1]
    return frozenset(named), frozenset(p.rpartition("/")[0] for p in named)

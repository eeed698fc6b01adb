"""The words a document lends the typo correction (text/titlewords.py): the writer's
`document_words` gives what `WordSplitter` gives from the stored chunks (#32)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kenso_git.text.titlewords import FTS_SPECIAL
from kenso_git.text.titlewords import WordSplitter
from kenso_git.text.titlewords import clean
from kenso_git.text.titlewords import document_words

_TEXT = st.text(alphabet=st.sampled_from('aBz -_"*()+^:é İ Σ\tx1.'), max_size=30)


@given(_TEXT)
def test_clean_deletes_the_fts_special_characters_of_any_text(text) -> None:
    assert clean(text) == text.translate(FTS_SPECIAL)


@given(
    st.lists(st.one_of(st.none(), _TEXT), max_size=6),
    st.one_of(st.none(), _TEXT),
    st.lists(st.one_of(_TEXT, st.integers()), max_size=4),
)
def test_document_words_are_the_word_splitters(titles, category, tags) -> None:
    split = WordSplitter()
    expected: set[str] = set()
    for text in (*titles, category):
        if text:
            expected.update(split.text(text))
    expected.update(split.tags(tags))
    assert document_words(titles, category, tags) == tuple(sorted(expected))

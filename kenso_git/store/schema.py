"""DDL of the index, its schema version and migrations.

`chunks` and `links` (views) and `chunks_fts` keep kenso 2.0.0's columns, so queries
written for its tables still read the same data, from any SQLite client: no view calls a
function of ours. `chunk_rows`, `documents`, `paths`, `link_rows`, `files` and `meta` are
ours: what each chunk holds of its own, the labels every chunk of a document shares, each
link end once, the blob id of every indexed file and the index's freshness record.
"""

from __future__ import annotations

SCHEMA_VERSION = 5  # 2: document labels in `documents`, chunk rows in `chunk_rows`
# 3: a document's chunks past its first index at most LABELS_CAP characters of its labels
# 4: each link end stored once, in `paths`; `links` is a view of `link_rows` (and chunk
# text stored packed, which 5 undoes)
# 5: chunk text stored plain, and a chunk's expanded terms not stored (TERMS_OF)
APPLICATION_ID = 0x4B454E53  # "KENS": marks the file as a kenso-git index

TOKENIZER = "porter unicode61 remove_diacritics 2"
# bm25() weights in FTS column order: title, section_path, tags, category, searchable_content
BM25_WEIGHTS = (10.0, 8.0, 7.0, 5.0, 1.0)

# The FTS index reads the view `chunks_search`, not `chunks`: the searchable text is the
# chunk content plus its search extra (the "Also known as: ...", "Keywords: ...", "Source:
# ..." lines of kenso's searchable_content), so the content is stored once, not twice. The
# title column also carries the document's frontmatter title when it differs
# (`doc_title`), giving the declared title the title column's 10x weight.
#
# The labels every chunk of a document repeats (its tags, and the labelled lines of its
# search extra) are stored once, in `documents`; a chunk row keeps its own part. A row's
# `tags`/`search_extra` of its own, set only by writers that predate `documents` (tests,
# tools), still count: `tags` overrides the document's, `search_extra` follows its labels.
# The FTS index still holds every chunk's labels, so BM25 ranks exactly as when each row
# carried them (issue #14, finding 3), but for labels longer than LABELS_CAP characters
# (the tags JSON, or the labelled lines): the document's first chunk indexes them whole,
# each other chunk only their first `tags_head` / `labels_head` characters (cut at a label
# boundary by label_head), so that 100k tags over 300 sections do not cost 300 copies of
# their postings. The docs corpus's largest labels are 386 characters: no document of it
# is cut.
#
# A chunk's own last line, its "Expanded terms: ..." (spec §3.7, item 8), is made from its
# content by a fixed rule (text.terms.expanded_line), so it is not stored (#26: 2 MB of the
# docs corpus's 9 MB, 60 MB at 30x): a row whose own `search_extra` is NULL is indexed
# with the line the SQL function `kenso_terms` makes from its content. Only the FTS
# triggers call it, on the writer's connections (store.connection.add_functions); every
# view is plain SQL, so `chunks`, `chunks_search` and `chunks_fts` (its highlight() and
# snippet() included) read the same in a sqlite3 shell. `chunks_search` shows the FTS
# index each row's text without that line: FTS5 takes an external content table's text
# only to show it (highlight, snippet, column values), so a hit on an expanded term is
# ranked as before and highlighted from the content (search/preview.py). The bulk path
# gives FTS5 the line the parsing worker made (chunks.BulkInsert), and every delete
# computes it again: the rule must give the same line for the same content in every
# version. A change to it needs a schema step that rebuilds the FTS index from the rows
# ('delete-all', then every row again), not one that deletes entries one by one.
TERMS_FUNCTION = "kenso_terms"
TERMS_OF = TERMS_FUNCTION + "({r}.content)"
_OWN_SHOWN = "{r}.search_extra"
_OWN_INDEXED = f"coalesce({{r}}.search_extra, {TERMS_OF})"
TAGS_OF = "coalesce({r}.tags, (SELECT tags FROM documents WHERE path = {r}.file_path))"
EXTRA_OF = (
    f"coalesce((SELECT labels || coalesce(char(10) || char(10) || {_OWN_SHOWN}, '') "
    f"FROM documents WHERE path = {{r}}.file_path), {_OWN_SHOWN})"
)
LABELS_CAP = 2048
_HEAD = (
    "CASE WHEN {{r}}.chunk_index = 0 OR {c}_head IS NULL THEN {c} ELSE substr({c}, 1, {c}_head) END"
)
_TAGS_INDEXED = (
    f"coalesce({{r}}.tags, (SELECT {_HEAD.format(c='tags')} FROM documents "
    "WHERE path = {r}.file_path))"
)


def _columns(own: str) -> tuple[str, ...]:
    """The FTS columns of a chunk_rows row `{r}`, with `own` as its own last part."""
    extra = (
        f"coalesce((SELECT {_HEAD.format(c='labels')} || coalesce(char(10) || char(10) || "
        f"{own}, '') FROM documents WHERE path = {{r}}.file_path), {own})"
    )
    return (
        "{r}.title || coalesce(' ' || {r}.doc_title, '')",
        "coalesce({r}.section_path, '')",
        f"coalesce({_TAGS_INDEXED}, '')",
        "coalesce({r}.category, '')",
        f"{{r}}.content || coalesce(char(10) || char(10) || {extra}, '')",
    )


_VIEW_COLUMNS = _columns(_OWN_SHOWN)  # chunks_search: plain SQL, any client reads it
_INDEXED_COLUMNS = _columns(_OWN_INDEXED)  # what the triggers give the FTS index
_BOUNDARIES = (", ", " | ", "\n")  # between tags, aliases, answers and lines (search_labels)


def label_head(text: str | None) -> int | None:
    """How many characters of a document's labels its chunks past the first index: None
    (all) up to LABELS_CAP, else the longest head of at most LABELS_CAP that ends at a label
    boundary (or a space, or nothing), so that no word is cut in two."""
    if text is None or len(text) <= LABELS_CAP:
        return None
    cut = max(text.rfind(sep, 0, LABELS_CAP + len(sep)) for sep in _BOUNDARIES)
    return cut if cut >= 0 else max(text.rfind(" ", 0, LABELS_CAP + 1), 0)


def indexed_labels(text: str | None, head: int | None, chunk_index: int) -> str | None:
    """What a chunk's FTS entry holds of its document's labels (the view's _HEAD rule)."""
    return text if text is None or head is None or chunk_index == 0 else text[:head]


FTS_COLUMNS = "rowid, title, section_path, tags, category, searchable_content"
# The columns of the `chunks` view, kenso's chunks table.
CHUNK_COLUMNS = (
    "id",
    "file_path",
    "chunk_index",
    "title",
    "section_path",
    "content",
    "search_extra",
    "category",
    "audience",
    "tags",
    "content_hash",
    "doc_title",
    "created_at",
    "updated_at",
)
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
# The columns the view does not show as stored: tags and search_extra merged with the
# document's. A write through the view keeps what it did not change.
_VIEWED = {"tags": TAGS_OF, "search_extra": EXTRA_OF}
# The chunks columns the full-text index is made from: updating any other column (the
# file's content_hash on chunks a new version kept) costs the index nothing.
_INDEXED_COLS = "chunk_index, title, doc_title, section_path, tags, category, content, search_extra"
UPDATE_TRIGGER = "chunks_au"


def fts_values(
    title: str | None,
    doc_title: str | None,
    section_path: str | None,
    tags: str | None,
    category: str | None,
    content: str,
    search_extra: str | None,
) -> tuple[str | None, str, str, str, str]:
    """What the triggers give the FTS index for one chunks row (FTS_SOURCE), computed in
    Python: the same rules as _INDEXED_COLUMNS (a test holds the two equal). `search_extra`
    is the row's whole extra: its document's labels, then its own part or expanded line."""
    return (
        None if title is None else title if doc_title is None else f"{title} {doc_title}",
        section_path or "",
        tags or "",
        category or "",
        content if search_extra is None else f"{content}\n\n{search_extra}",
    )


# The links (#16): kenso's `links` table repeated both paths in the row, its UNIQUE index
# and two more indexes (4 of the 27 MB of the docs corpus's index). Each path is stored
# once in `paths` and a link is a row of two ids; the primary key starts with the source
# (a file's links), idx_link_rows_target finds the links to a path. `links` is a view with
# kenso's columns for tools and tests that read or write it; its `id` and `created_at` are
# NULL: no reader (kenso 2.0.0, kenso-git) uses them, and stamping or numbering every link
# would cost what the change saves.
_LINKS_VIEW = (
    "SELECT NULL, s.path, t.path, l.relation_type, l.raw_target, NULL FROM link_rows l "
    "JOIN paths s ON s.id = l.source_id JOIN paths t ON t.id = l.target_id"
)
_ID_OF = "(SELECT id FROM paths WHERE path = {})"
# A path is inserted only when absent (never REPLACEd by an outer INSERT OR REPLACE, which
# would give it a new id under its links), and deleted with its last link.
_ADD_PATH = (
    "INSERT INTO paths(path) SELECT {0} WHERE NOT EXISTS (SELECT 1 FROM paths WHERE path = {0});"
)
_FORGET_PATH = (
    "DELETE FROM paths WHERE path = {} "
    "AND NOT EXISTS (SELECT 1 FROM link_rows WHERE source_id = paths.id) "
    "AND NOT EXISTS (SELECT 1 FROM link_rows WHERE target_id = paths.id);"
)
LINKS_DDL: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS paths (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)",
    """
    CREATE TABLE IF NOT EXISTS link_rows (
        source_id INTEGER NOT NULL,
        target_id INTEGER NOT NULL,
        relation_type TEXT NOT NULL DEFAULT 'related',
        raw_target TEXT,
        PRIMARY KEY (source_id, target_id, relation_type)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX IF NOT EXISTS idx_link_rows_target ON link_rows(target_id)",
    "CREATE VIEW IF NOT EXISTS links(id, source_path, target_path, relation_type, raw_target, "
    f"created_at) AS {_LINKS_VIEW}",
    f"""
    CREATE TRIGGER IF NOT EXISTS links_vi INSTEAD OF INSERT ON links BEGIN
        {_ADD_PATH.format("new.source_path")}
        {_ADD_PATH.format("new.target_path")}
        INSERT INTO link_rows(source_id, target_id, relation_type, raw_target) VALUES (
            {_ID_OF.format("new.source_path")}, {_ID_OF.format("new.target_path")},
            coalesce(new.relation_type, 'related'), new.raw_target);
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS links_vd INSTEAD OF DELETE ON links BEGIN
        DELETE FROM link_rows WHERE source_id = {_ID_OF.format("old.source_path")}
            AND target_id = {_ID_OF.format("old.target_path")}
            AND relation_type = old.relation_type;
        {_FORGET_PATH.format("old.source_path")}
        {_FORGET_PATH.format("old.target_path")}
    END
    """,
)


def _fts_values(row: str) -> str:
    return ", ".join([f"{row}.id", *(c.format(r=row) for c in _INDEXED_COLUMNS)])


# The FTS values of every chunk_rows row `r` (add `WHERE ...`): what the triggers index.
FTS_SOURCE = f"SELECT {_fts_values('r')} FROM chunk_rows r"


DDL: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS chunk_rows (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        file_path TEXT NOT NULL,
        chunk_index INTEGER NOT NULL DEFAULT 0,
        title TEXT,
        section_path TEXT,
        content TEXT NOT NULL,
        search_extra TEXT,
        category TEXT,
        audience TEXT DEFAULT 'all',
        tags TEXT,
        content_hash TEXT,
        doc_title TEXT,
        created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (file_path, chunk_index)
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_chunks_category ON chunk_rows(category)",
    # Per indexed document: its tags (JSON) and the labelled lines every chunk's search
    # extra starts with, and how much of each the chunks past the first index (label_head).
    # A rowid table: a row may be megabytes (100k tags).
    """
    CREATE TABLE IF NOT EXISTS documents (
        path TEXT PRIMARY KEY,
        tags TEXT,
        labels TEXT,
        tags_head INTEGER,
        labels_head INTEGER
    )
    """,
    f"""
    CREATE VIEW IF NOT EXISTS chunks({", ".join(CHUNK_COLUMNS)}) AS SELECT
        {", ".join((_VIEWED.get(c) or "{r}." + c) for c in CHUNK_COLUMNS).format(r="r")}
    FROM chunk_rows r
    """,
    # Writes to the `chunks` view (tests, tools written for the single table) go to the rows.
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_vi INSTEAD OF INSERT ON chunks BEGIN
        INSERT INTO chunk_rows({", ".join(CHUNK_COLUMNS)}) VALUES (
            new.id, new.file_path, coalesce(new.chunk_index, 0), new.title, new.section_path,
            new.content, new.search_extra, new.category, coalesce(new.audience, 'all'),
            new.tags, new.content_hash, new.doc_title, coalesce(new.created_at, {_NOW}),
            coalesce(new.updated_at, {_NOW}));
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS chunks_vd INSTEAD OF DELETE ON chunks BEGIN
        DELETE FROM chunk_rows WHERE id = old.id;
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_vu INSTEAD OF UPDATE ON chunks BEGIN
        UPDATE chunk_rows SET {
        ", ".join(
            f"{c} = CASE WHEN new.{c} IS old.{c} THEN {c} ELSE new.{c} END"
            if c in _VIEWED
            else f"{c} = new.{c}"
            for c in CHUNK_COLUMNS
        )
    } WHERE id = old.id;
    END
    """,
    # A document's labels are in the FTS entries of its chunks: they change only while it
    # has none (write_chunks deletes them first), or the index would keep stale entries.
    """
    CREATE TRIGGER IF NOT EXISTS documents_bu BEFORE UPDATE ON documents
    WHEN EXISTS (SELECT 1 FROM chunk_rows WHERE file_path = old.path) BEGIN
        SELECT RAISE(ABORT, 'kenso-git: a document changed its labels under its chunks');
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS documents_bd BEFORE DELETE ON documents
    WHEN EXISTS (SELECT 1 FROM chunk_rows WHERE file_path = old.path) BEGIN
        SELECT RAISE(ABORT, 'kenso-git: a document was deleted before its chunks');
    END
    """,
    f"""
    CREATE VIEW IF NOT EXISTS chunks_search(id, title, section_path, tags, category,
        searchable_content) AS SELECT id, {", ".join(c.format(r="r") for c in _VIEW_COLUMNS)}
    FROM chunk_rows r
    """,
    f"""
    CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
        title, section_path, tags, category, searchable_content,
        content='chunks_search', content_rowid='id',
        tokenize='{TOKENIZER}'
    )
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunk_rows BEGIN
        INSERT INTO chunks_fts({FTS_COLUMNS}) VALUES ({_fts_values("new")});
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunk_rows BEGIN
        INSERT INTO chunks_fts(chunks_fts, {FTS_COLUMNS})
        VALUES ('delete', {_fts_values("old")});
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS {UPDATE_TRIGGER} AFTER UPDATE OF {_INDEXED_COLS}
    ON chunk_rows BEGIN
        INSERT INTO chunks_fts(chunks_fts, {FTS_COLUMNS})
        VALUES ('delete', {_fts_values("old")});
        INSERT INTO chunks_fts({FTS_COLUMNS}) VALUES ({_fts_values("new")});
    END
    """,
    *LINKS_DDL,
    # One row per Markdown file seen by discovery, indexed or skipped. `relations` keeps the
    # file's raw relates_to entries (JSON [[target, relation], ...]) so links can be re-resolved
    # when other files appear or vanish, without re-reading this one.
    """
    CREATE TABLE IF NOT EXISTS files (
        path TEXT PRIMARY KEY,
        blob_id TEXT NOT NULL,
        status TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL,
        inode INTEGER NOT NULL,
        seen_ns INTEGER NOT NULL,
        title TEXT,
        category TEXT,
        chunks INTEGER NOT NULL DEFAULT 0,
        detail TEXT,
        relations TEXT
    ) WITHOUT ROWID
    """,
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID",
)

INSERT_TRIGGER = "chunks_ai"


def insert_trigger_ddl() -> str:
    """The chunks insert trigger (dropped and restored around bulk inserts)."""
    return next(d for d in DDL if f"TRIGGER IF NOT EXISTS {INSERT_TRIGGER} " in d)


def update_trigger_ddl() -> str:
    """The chunks update trigger (indexes created before 0.2 have a broader one)."""
    return next(d for d in DDL if f"TRIGGER IF NOT EXISTS {UPDATE_TRIGGER} " in d)


# files.status values: kenso_git.repo.discover.FileStatus

# meta keys
META_ROOT = "root"
META_SCOPE = "scope"  # JSON list of root-relative folders the index covers
META_HEAD = "head_commit"
META_SYNCED_AT = "synced_at"
META_WORKTREE_DIRTY = "worktree_dirty"
META_GENERATION = "generation"
META_SETTINGS = "settings"  # chunk size/overlap the chunks were made with

# Migrations from version N to N+1, applied in order inside one transaction. 1 -> 2
# (labels once per document) and 2 -> 3 (labels capped past the first chunk) are Python:
# store/migrate.py.
MIGRATIONS: dict[int, tuple[str, ...]] = {}

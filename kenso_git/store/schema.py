"""DDL of the index, its schema version and migrations.

The `chunks`, `chunks_fts` and `links` tables follow kenso 2.0.0 so its tools see the same
data; `files` and `meta` are ours: the blob id of every indexed file and the index's
freshness record.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
APPLICATION_ID = 0x4B454E53  # "KENS": marks the file as a kenso-git index

TOKENIZER = "porter unicode61 remove_diacritics 2"
# bm25() weights in FTS column order: title, section_path, tags, category, searchable_content
BM25_WEIGHTS = (10.0, 8.0, 7.0, 5.0, 1.0)

# The FTS index reads the view `chunks_search`, not `chunks`: the searchable text is the
# chunk content plus `search_extra` (the "Also known as: ...", "Keywords: ...", "Source: ..."
# lines of kenso's searchable_content), so the content is stored once, not twice. The
# title column also carries the document's frontmatter title when it differs
# (`chunks.doc_title`), giving the declared title the title column's 10x weight.
_VIEW_COLUMNS = (
    "{r}.title || coalesce(' ' || {r}.doc_title, '')",
    "coalesce({r}.section_path, '')",
    "coalesce({r}.tags, '')",
    "coalesce({r}.category, '')",
    "{r}.content || coalesce(char(10) || char(10) || {r}.search_extra, '')",
)
FTS_COLUMNS = "rowid, title, section_path, tags, category, searchable_content"
# The chunks columns the full-text index is made from: updating any other column (the
# file's content_hash on chunks a new version kept) costs the index nothing.
_INDEXED_COLS = "title, doc_title, section_path, tags, category, content, search_extra"
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
    """What `chunks_search` shows the FTS index for one chunks row, computed in Python:
    the same rules as _VIEW_COLUMNS (a test holds the two equal)."""
    return (
        None if title is None else title if doc_title is None else f"{title} {doc_title}",
        section_path or "",
        tags or "",
        category or "",
        content if search_extra is None else f"{content}\n\n{search_extra}",
    )


def _fts_values(row: str) -> str:
    return ", ".join([f"{row}.id", *(c.format(r=row) for c in _VIEW_COLUMNS)])


DDL: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS chunks (
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
    "CREATE INDEX IF NOT EXISTS idx_chunks_category ON chunks(category)",
    f"""
    CREATE VIEW IF NOT EXISTS chunks_search(id, title, section_path, tags, category,
        searchable_content) AS SELECT id, {", ".join(c.format(r="chunks") for c in _VIEW_COLUMNS)}
    FROM chunks
    """,
    f"""
    CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
        title, section_path, tags, category, searchable_content,
        content='chunks_search', content_rowid='id',
        tokenize='{TOKENIZER}'
    )
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts({FTS_COLUMNS}) VALUES ({_fts_values("new")});
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, {FTS_COLUMNS})
        VALUES ('delete', {_fts_values("old")});
    END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS {UPDATE_TRIGGER} AFTER UPDATE OF {_INDEXED_COLS} ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, {FTS_COLUMNS})
        VALUES ('delete', {_fts_values("old")});
        INSERT INTO chunks_fts({FTS_COLUMNS}) VALUES ({_fts_values("new")});
    END
    """,
    """
    CREATE TABLE IF NOT EXISTS links (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source_path TEXT NOT NULL,
        target_path TEXT NOT NULL,
        relation_type TEXT NOT NULL DEFAULT 'related',
        raw_target TEXT,
        created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (source_path, target_path, relation_type)
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_links_source ON links(source_path)",
    "CREATE INDEX IF NOT EXISTS idx_links_target ON links(target_path)",
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

# Migrations from version N to N+1, applied in order inside one transaction.
MIGRATIONS: dict[int, tuple[str, ...]] = {}

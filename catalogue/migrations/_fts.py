"""The SQLite FTS5 index of ``catalogue_food`` (external content, porter stemming), as
statements that (re)create it from scratch: its table, its triggers, and a rebuild.

Any migration that rebuilds ``catalogue_food`` on SQLite (adding or altering a field)
drops the triggers, so it ends by running ``SQLITE_WITH_ALIASES`` again; one that drops
a column the triggers name must run ``SQLITE_DROP`` first (SQLite refuses the drop).
"""

SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS catalogue_food_fts_au",
    "DROP TRIGGER IF EXISTS catalogue_food_fts_ad",
    "DROP TRIGGER IF EXISTS catalogue_food_fts_ai",
    "DROP TABLE IF EXISTS catalogue_food_fts",
]


def _create(columns: list[str]) -> list[str]:
    names = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    return [
        f"CREATE VIRTUAL TABLE catalogue_food_fts USING fts5({names}, content='catalogue_food', "
        "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
        "CREATE TRIGGER catalogue_food_fts_ai AFTER INSERT ON catalogue_food BEGIN "
        f"INSERT INTO catalogue_food_fts(rowid, {names}) VALUES (new.id, {new}); END",
        "CREATE TRIGGER catalogue_food_fts_ad AFTER DELETE ON catalogue_food BEGIN "
        f"INSERT INTO catalogue_food_fts(catalogue_food_fts, rowid, {names}) "
        f"VALUES ('delete', old.id, {old}); END",
        f"CREATE TRIGGER catalogue_food_fts_au AFTER UPDATE OF {names} ON catalogue_food BEGIN "
        f"INSERT INTO catalogue_food_fts(catalogue_food_fts, rowid, {names}) "
        f"VALUES ('delete', old.id, {old}); "
        f"INSERT INTO catalogue_food_fts(rowid, {names}) VALUES (new.id, {new}); END",
        "INSERT INTO catalogue_food_fts(catalogue_food_fts) VALUES ('rebuild')",
    ]


SQLITE_WITH_ALIASES = SQLITE_DROP + _create(["search_name", "search_aliases"])
SQLITE_NAME_ONLY = SQLITE_DROP + _create(["search_name"])

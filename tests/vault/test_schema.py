"""The index's schema: what the tables, columns, indexes and header hold, against a record.

``tests/golden/schema/index.txt`` was written from the schema as sqlite-utils made it (schema
version 10); the plain DDL that makes it now must give the same tables, columns (types, NOT
NULL, keys), indexes (names, uniqueness, columns, collations), full-text table and header.
Run this file as a script to write the record again after a deliberate schema change (which
also bumps ``SCHEMA_VERSION``).
"""

from __future__ import annotations

import re
import shlex
import sqlite3
import sys
from pathlib import Path

from anthology.paths import entries_dir
from anthology.vault.index import VaultIndex
from anthology.vault.schema import SCHEMA_VERSION, create_schema

ROOT = Path(__file__).resolve().parent.parent.parent
GOLDEN = ROOT / "tests" / "golden" / "schema" / "index.txt"


def schema_of(conn: sqlite3.Connection) -> str:
    """Everything the schema decides, one line per fact, as SQLite reports it (the DDL's
    own spelling, quotes and line breaks, is left out)."""
    one = conn.execute
    app = one("SELECT key, value FROM meta WHERE key = 'app'").fetchall()  # 'vault' varies
    lines = [
        f"user_version {one('PRAGMA user_version').fetchone()[0]}",
        f"application_id {one('PRAGMA application_id').fetchone()[0]}",
        f"meta {app}",
    ]
    tables = one("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
    for name, sql in tables.fetchall():
        if sql.upper().startswith("CREATE VIRTUAL TABLE"):
            lines.append(f"virtual {name}: {sql[sql.upper().index('USING') :]}")
            continue
        rowid = " WITHOUT ROWID" if sql.upper().rstrip().endswith("WITHOUT ROWID") else ""
        lines.append(f"table {name}{rowid}")
        for _cid, col, kind, notnull, default, pk, _hidden in one(f"PRAGMA table_xinfo('{name}')"):
            lines.append(f"  {col} {kind} notnull={notnull} default={default} pk={pk}")
        for _seq, index, unique, origin, partial in sorted(
            one(f"PRAGMA index_list('{name}')").fetchall(), key=lambda r: r[1]
        ):
            keys = [
                f"{col or 'rowid'}{' DESC' if desc else ''} {coll}"
                for _n, _cid, col, desc, coll, key in one(f"PRAGMA index_xinfo('{index}')")
                if key
            ]
            lines.append(f"  index {index} unique={unique} origin={origin} partial={partial}: "
                         f"{', '.join(keys)}")  # fmt: skip
    return "\n".join(lines) + "\n"


def test_a_new_index_has_the_recorded_schema(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = tmp_path / "index.sqlite"
    VaultIndex.open(vault, db).close()
    conn = sqlite3.connect(db)
    try:
        assert schema_of(conn) == GOLDEN.read_text(encoding="utf-8")
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert f"user_version {SCHEMA_VERSION}\n" in GOLDEN.read_text(encoding="utf-8")


def test_the_readmes_scripting_examples_fit_the_index(tmp_path: Path) -> None:
    """The README's sqlite-utils lines ask tables and columns the index has, and find rows
    in the bundled anthology (their SQL run here through sqlite3: sqlite-utils is the
    reader's tool, not a dependency); the tables it lists are the index's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"\(`pipx install sqlite-utils`\).*?```sh\n(.+?)```\n\n(.+?)\n\n", readme, re.S)
    assert m, "README has no sqlite-utils examples"
    db = tmp_path / "index.sqlite"
    VaultIndex.open(entries_dir(), db).close()
    conn = sqlite3.connect(db)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master "
                                                   "WHERE type = 'table'")}  # fmt: skip
        for line in m.group(1).splitlines():
            tool, command, where, *rest = shlex.split(line)
            assert (tool, where) == ("sqlite-utils", "INDEX")
            if command == "tables":
                assert rest == ["--counts"]
            elif command == "query":
                assert conn.execute(rest[0]).fetchall()
            else:
                assert command == "search", line
                table, words, _c, column = rest
                sql = f"SELECT {column} FROM {table} WHERE {table} MATCH ?"
                assert conn.execute(sql, (words,)).fetchall()
        named = set(re.findall(r"`(\w+)`", m.group(2)))
        assert named == {t for t in tables if not t.startswith("entries_fts_")} - {"meta"}
    finally:
        conn.close()


if __name__ == "__main__":  # write the record from the current code
    conn = sqlite3.connect(":memory:")
    with conn:
        create_schema(conn)
    GOLDEN.write_text(schema_of(conn), encoding="utf-8")
    sys.stdout.write(GOLDEN.read_text(encoding="utf-8"))

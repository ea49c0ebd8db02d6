"""The archive on SQLite: a file of hand logs pulled from tables, and the
SQL every archive runs (archive.postgres reuses it on PostgreSQL).

Tables:
  logs      one row per hand: the file as pulled, its chain head, its seal
            status, the ruleset CRC of its hand. Inserting the same log again
            changes nothing (idempotent); a copy pulled while the hand was in
            play is replaced by the whole log (same row); the same id with
            other bytes (a table re-flashed, ids restarting) is another row.
  rulesets  blobs by CRC, so a hand can be replayed under the rules it was
            played with.
  partial   bytes of a pull that was cut, per (table id, log id, total, crc),
            so the next pull resumes from there.
A hand's id (`mjtable replay HAND_ID`) is its row id, or TABLE:LOG.
"""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.parse

from mjtable import BadInput

SCHEMA = """
CREATE TABLE IF NOT EXISTS logs (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    log_id INTEGER NOT NULL,
    head TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    seal TEXT NOT NULL,
    rules_crc TEXT,
    pulled_at INTEGER NOT NULL,
    UNIQUE (table_id, log_id, head)
);
CREATE TABLE IF NOT EXISTS rulesets (
    crc TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    blob BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS partial (
    table_id TEXT NOT NULL,
    log_id INTEGER NOT NULL,
    total INTEGER NOT NULL,
    crc INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (table_id, log_id)
);
"""


_LOG_COLUMNS = {"id", "table_id", "log_id", "head", "size", "data", "seal", "rules_crc",
                "pulled_at"}


class Archive:
    """create=False: only read an archive that exists (opened read-only, so a
    command that reads never changes the file); else make it if need be.
    Either way a file that is not an mjtable archive (another program's
    SQLite, a text file) is refused as it is."""

    def __init__(self, path: str, create: bool = True):
        self.path = path
        if not create and not os.path.exists(self.path):
            raise BadInput("no archive at %s (pull logs first, or give --archive)" % self.path)
        try:
            if create:
                os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
                self.db = sqlite3.connect(self.path)
            else:
                uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(self.path))
                self.db = sqlite3.connect(uri, uri=True)
            ours = self._ours()
            if not create and not ours:
                raise BadInput("%s: an empty file, not an mjtable archive" % self.path)
            if create:
                self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise BadInput("%s: not a usable archive: %s" % (self.path, e)) from None

    def _ours(self) -> bool:
        """True if the file holds this archive's tables, False if it holds
        none; BadInput if it holds another program's."""
        names = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not names:
            return False
        cols = {r[1] for r in self.db.execute("PRAGMA table_info(logs)")}
        if not {"logs", "rulesets", "partial"} <= names or not _LOG_COLUMNS <= cols:
            self.db.close()
            raise BadInput("%s: not an mjtable archive (its tables: %s)"
                           % (self.path, ", ".join(sorted(names))))
        return True

    def close(self):
        self.db.close()

    # --- logs ---

    def add_log(self, table_id: str, log_id: int, head: bytes, data: bytes, seal: str,
                rules_crc: str | None) -> tuple[int, str]:
        """(row id, what happened): "new"; "same" (this copy, or a longer one,
        is archived); "grown": a copy pulled earlier while its hand was in
        play (a prefix of these bytes: a log only grows) is replaced by this
        one, under the same row id, so each hand is one row; "reused": the
        archive holds another log under this table and log id (a new row)."""
        with self.db:
            self._lock_hand(table_id, log_id)
            status = "new"
            for row, old in self.db.execute(
                    "SELECT id, data FROM logs WHERE table_id=? AND log_id=? ORDER BY id",
                    (table_id, log_id)).fetchall():
                if bytes(old).startswith(data):
                    status = "same"
                    break
                if data.startswith(bytes(old)):
                    self.db.execute(
                        "UPDATE logs SET head=?, size=?, data=?, seal=?, rules_crc=?,"
                        " pulled_at=? WHERE id=?", (head.hex(), len(data), data, seal,
                                                   rules_crc, int(time.time()), row))
                    status = "grown"
                    break
                status = "reused"
            else:
                cur = self.db.execute(
                    "INSERT INTO logs (table_id, log_id, head, size, data, seal,"
                    " rules_crc, pulled_at) VALUES (?,?,?,?,?,?,?,?) RETURNING id",
                    (table_id, log_id, head.hex(), len(data), data, seal, rules_crc,
                     int(time.time())))
                row = cur.fetchone()[0]
            self.db.execute("DELETE FROM partial WHERE table_id=? AND log_id=?",
                            (table_id, log_id))
        return row, status

    def _lock_hand(self, table_id: str, log_id: int) -> None:
        """Inside add_log's transaction: no other writer adds this hand
        meanwhile. SQLite has one writer at a time; PgArchive takes a lock."""

    def has_log(self, table_id: str, log_id: int, head: bytes | None = None) -> bool:
        if head is None:
            q = self.db.execute("SELECT 1 FROM logs WHERE table_id=? AND log_id=?",
                                (table_id, log_id))
        else:
            q = self.db.execute("SELECT 1 FROM logs WHERE table_id=? AND log_id=? AND head=?",
                                (table_id, log_id, head.hex()))
        return q.fetchone() is not None

    def logs(self, table_id: str | None = None) -> list:
        """Rows (id, table_id, log_id, head, size, seal, rules_crc, pulled_at)."""
        q = ("SELECT id, table_id, log_id, head, size, seal, rules_crc, pulled_at FROM logs"
             + (" WHERE table_id=?" if table_id else "") + " ORDER BY table_id, log_id, id")
        return self.db.execute(q, (table_id,) if table_id else ()).fetchall()

    def log_data(self, row_id: int) -> tuple:
        """(table_id, log_id, data, seal, rules_crc) of one archived log."""
        r = self.db.execute("SELECT table_id, log_id, data, seal, rules_crc FROM logs WHERE id=?",
                            (row_id,)).fetchone()
        if r is None:
            raise BadInput("no hand %d in %s" % (row_id, self.path))
        return r

    def find_hand(self, spec: str) -> int:
        """Row id of a HAND_ID: a row id, or TABLE:LOG (table id hex or its prefix)."""
        if ":" in spec:
            t, _, lid = spec.partition(":")
            if not lid.isdigit() or len(lid) > 10:  # log ids are u32
                raise BadInput("hand id %r: expected TABLE:LOG or a number" % spec)
            rows = self.db.execute(
                "SELECT id FROM logs WHERE table_id LIKE ? AND log_id=? ORDER BY id",
                (t + "%", int(lid))).fetchall()
            if not rows:
                raise BadInput("no hand %s in %s" % (spec, self.path))
            return rows[-1][0]
        if not spec.isdigit() or len(spec) > 18:  # SQLite's integers are 64-bit
            raise BadInput("hand id %r: expected TABLE:LOG or a number" % spec)
        self.log_data(int(spec))
        return int(spec)

    # --- rulesets ---

    def add_ruleset(self, crc: str, name: str, blob: bytes) -> None:
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO rulesets (crc, name, blob) VALUES (?,?,?)",
                            (crc, name, blob))

    def ruleset_blob(self, crc: str):
        r = self.db.execute("SELECT blob FROM rulesets WHERE crc=?", (crc,)).fetchone()
        return r[0] if r else None

    # --- partial pulls ---

    def partial(self, table_id: str, log_id: int, total: int | None = None,
                crc: int | None = None) -> bytes:
        r = self.db.execute("SELECT total, crc, data FROM partial WHERE table_id=? AND log_id=?",
                            (table_id, log_id)).fetchone()
        if r is None or (total is not None and (r[0], r[1]) != (total, crc)):
            return b""
        return r[2]

    def partial_meta(self, table_id: str, log_id: int):
        return self.db.execute("SELECT total, crc, length(data) FROM partial"
                               " WHERE table_id=? AND log_id=?", (table_id, log_id)).fetchone()

    def save_partial(self, table_id: str, log_id: int, total: int, crc: int,
                     data: bytes) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO partial VALUES (?,?,?,?,?)",
                            (table_id, log_id, total, crc, data))

"""The archive on SQLite: a file of hand logs pulled from tables, and the
SQL every archive runs (archive.postgres reuses it on PostgreSQL).

Tables:
  logs      one row per hand: the file as pulled, its chain head, its seal
            status, the ruleset CRC of its hand. Inserting the same log again
            changes nothing (idempotent); a copy pulled while the hand was in
            play is replaced by the whole log (same row); the same id with
            other bytes is not stored (the first copy stands: archive.admit).
  accepted  the logs a referee took by name although unsealed or unchecked
            (archive.admit): who, why, by which way in, when; append-only.
  rulesets  blobs by CRC, so a hand can be replayed under the rules it was
            played with.
  partial   bytes of a pull that was cut, per (table id, log id, total, crc),
            so the next pull resumes from there.
A hand's id (`mjtable replay HAND_ID`) is its row id, or TABLE:LOG.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import urllib.parse

from mjtable import ArchiveTrouble, BadInput

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
CREATE TABLE IF NOT EXISTS accepted (
    table_id TEXT NOT NULL,
    log_id INTEGER NOT NULL,
    head TEXT NOT NULL,
    referee TEXT NOT NULL,
    reason TEXT NOT NULL,
    way TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (table_id, log_id, head)
);
"""


_GONE = ("locked", "disk i/o", "unable to open", "readonly", "malformed", "not a database",
         "full", "no such table")


def trouble(e: Exception, path: str = "the archive"):
    """The one line (ArchiveTrouble) for a SQLite error that is the file's
    state, not a bug: locked by another writer, the disk, a damaged or
    foreign file; None for any other error."""
    if not isinstance(e, sqlite3.DatabaseError) or not any(
            w in str(e).lower() for w in _GONE):
        return None
    return ArchiveTrouble("%s failed: %s. Nothing was lost: a transaction that did not finish "
                          "changed nothing, and what was not archived stays where it was (on "
                          "the table, in its folder); run the command again (another program "
                          "writing the archive: once it has finished)" % (path, e))


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
                # in one transaction: another process opening the file meanwhile
                # sees no tables or all of them, never a foreign-looking half
                self.db.executescript("BEGIN IMMEDIATE;" + SCHEMA + "COMMIT;")
        except sqlite3.DatabaseError as e:
            if "locked" in str(e) or "disk i/o" in str(e).lower():
                raise trouble(e, self.path) from None
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

    @contextlib.contextmanager
    def transaction(self):
        """One transaction that takes the write lock before it reads (BEGIN
        IMMEDIATE: no other writer slips in between a check and its insert);
        inside another, part of it (one commit)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.rollback()
            raise
        self.db.commit()

    # --- logs ---

    def add_log(self, table_id: str, log_id: int, head: bytes, data: bytes, seal: str,
                rules_crc: str | None, accepted=None) -> tuple[int, str]:
        """Store one log as the caller (archive.admit, which checked it) says;
        (row id, what happened): "new"; "same" (this copy, or a longer one,
        is archived); "grown": a copy pulled earlier while its hand was in
        play (a prefix of these bytes: a log only grows) is replaced by this
        one, under the same row id, so each hand is one row; "other": the
        archive holds another log under this table and log id, which stands
        (nothing stored; row is that log's). accepted: (referee, reason, way)
        of a referee who took the log by name, kept in the same transaction."""
        (row, status), = self.add_logs(table_id, [(log_id, head, data, seal, rules_crc,
                                                   accepted)])
        return row, status

    def add_logs(self, table_id: str, rows) -> list:
        """add_log for many logs of one table in one transaction: rows of
        (log id, head, data, seal, rules crc, accepted or None); returns
        [(row id, status)] in their order."""
        now = int(time.time())
        out = []
        with self.transaction():
            self._lock_hands(table_id, sorted({r[0] for r in rows}))
            have = self._copies(table_id, [r[0] for r in rows])
            fresh = []
            for lid, head, data, seal, crc, acc in rows:
                row, status, kept = self._place(table_id, lid, head, data, seal, crc, have, now)
                if status == "new":
                    fresh.append((table_id, lid, head.hex(), len(data), data, seal, crc, now))
                    have.setdefault(lid, []).append((None, head.hex(), data))
                if acc is not None and kept:  # the copy taken is the one archived
                    self.db.execute("INSERT OR IGNORE INTO accepted (table_id, log_id, head,"
                                    " referee, reason, way, at) VALUES (?,?,?,?,?,?,?)",
                                    (table_id, lid, head.hex()) + tuple(acc) + (now,))
                out.append([row, status, lid, head.hex()])
            if fresh:
                self.db.executemany("INSERT INTO logs (table_id, log_id, head, size, data, seal,"
                                    " rules_crc, pulled_at) VALUES (?,?,?,?,?,?,?,?)", fresh)
                ids = self._row_ids(table_id, [(f[1], f[2]) for f in fresh])
                for o in out:
                    if o[0] is None:
                        o[0] = ids[(o[2], o[3])]
            lids = sorted({r[0] for r in rows})
            for i in range(0, len(lids), 500):
                part = lids[i:i + 500]
                self.db.execute("DELETE FROM partial WHERE table_id=? AND log_id IN (%s)"
                                % ",".join("?" * len(part)), [table_id] + part)
        return [(o[0], o[1]) for o in out]

    def _copies(self, table_id: str, lids) -> dict:
        """{log id: [(row id, head hex, data or None)]} archived for these ids;
        data is read only where two copies must be compared (lazily: None)."""
        out: dict = {}
        lids = sorted(set(lids))
        for i in range(0, len(lids), 500):
            part = lids[i:i + 500]
            for row, lid, head in self.db.execute(
                    "SELECT id, log_id, head FROM logs WHERE table_id=? AND log_id IN (%s)"
                    " ORDER BY id" % ",".join("?" * len(part)), [table_id] + part):
                out.setdefault(lid, []).append((row, head, None))
        return out

    def _place(self, table_id, lid, head, data, seal, crc, have, now) -> tuple:
        """(row, status, whether these very bytes are the archived copy) of one
        log, given the copies archived (have, kept up to date)."""
        for k, (row, old_head, old) in enumerate(have.get(lid, [])):
            if old_head == head.hex():
                return row, "same", True
            if old is None:
                old = bytes(self.db.execute("SELECT data FROM logs WHERE id=?",
                                            (row,)).fetchone()[0])
                have[lid][k] = (row, old_head, old)
            if old.startswith(data):
                return row, "same", False
            if data.startswith(old):
                self.db.execute("UPDATE logs SET head=?, size=?, data=?, seal=?, rules_crc=?,"
                                " pulled_at=? WHERE id=?", (head.hex(), len(data), data, seal,
                                                           crc, now, row))
                have[lid][k] = (row, head.hex(), data)
                return row, "grown", True
            return row, "other", False
        return None, "new", True

    def _row_ids(self, table_id: str, keys) -> dict:
        """{(log id, head hex): row id} of these logs of one table."""
        out = {}
        lids = sorted({k[0] for k in keys})
        for i in range(0, len(lids), 500):
            part = lids[i:i + 500]
            for row, lid, head in self.db.execute(
                    "SELECT id, log_id, head FROM logs WHERE table_id=? AND log_id IN (%s)"
                    % ",".join("?" * len(part)), [table_id] + part):
                out[(lid, head)] = row
        return out

    def _lock_hands(self, table_id: str, log_ids) -> None:
        """Inside add_logs' transaction: no other writer adds these hands
        meanwhile (so two copies of one id cannot both be first). SQLite: the
        transaction took the write lock already; PgArchive takes advisory locks."""

    def accepted(self) -> dict:
        """{(table id, log id, head hex): (referee, reason, way, at)} of the logs
        taken by name (none in an archive made before that table existed)."""
        try:
            q = self.db.execute("SELECT table_id, log_id, head, referee, reason, way, at"
                                " FROM accepted")
        except Exception:  # a read-only archive from before: nothing was taken so
            return {}
        return {(r[0], r[1], r[2]): tuple(r[3:]) for r in q}

    def has_log(self, table_id: str, log_id: int, head: bytes | None = None) -> bool:
        if head is None:
            q = self.db.execute("SELECT 1 FROM logs WHERE table_id=? AND log_id=?",
                                (table_id, log_id))
        else:
            q = self.db.execute("SELECT 1 FROM logs WHERE table_id=? AND log_id=? AND head=?",
                                (table_id, log_id, head.hex()))
        return q.fetchone() is not None

    def heads(self, table_id: str, log_ids) -> dict:
        """{log id: {head hex, ...}} of these ids of one table in the archive."""
        out: dict = {}
        lids = sorted(set(log_ids))
        for i in range(0, len(lids), 500):
            part = lids[i:i + 500]
            for lid, head in self.db.execute(
                    "SELECT log_id, head FROM logs WHERE table_id=? AND log_id IN (%s)"
                    % ",".join("?" * len(part)), [table_id] + part):
                out.setdefault(lid, set()).add(head)
        return out

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

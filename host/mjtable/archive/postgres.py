"""The archive on PostgreSQL: `--archive postgresql://...` (psycopg 3).

An event with several referees' laptops keeps one archive: every laptop
pulls its tables into it and the standings are computed there. PgArchive
is archive.Archive with another connection: the same methods, the same SQL
(PgConn turns SQLite's `?` into psycopg's placeholders and INSERT OR IGNORE
into ON CONFLICT DO NOTHING), the same unique keys, so two laptops pulling
the same hand at once archive it once: the second INSERT waits for the
first's transaction and then does nothing (READ COMMITTED), and neither
loses it. Schema differences: ids are BIGSERIAL, blobs BYTEA, log ids BIGINT.
"""

from __future__ import annotations

import contextlib
import re
import zlib

from mjtable import ArchiveTrouble, BadInput
from mjtable.archive.sqlite import Archive

SCHEMA = """
CREATE TABLE IF NOT EXISTS logs (
    id BIGSERIAL PRIMARY KEY, table_id TEXT NOT NULL, log_id BIGINT NOT NULL,
    head TEXT NOT NULL, size BIGINT NOT NULL, data BYTEA NOT NULL, seal TEXT NOT NULL,
    rules_crc TEXT, pulled_at BIGINT NOT NULL, UNIQUE (table_id, log_id, head));
CREATE TABLE IF NOT EXISTS rulesets (crc TEXT PRIMARY KEY, name TEXT NOT NULL,
    blob BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS partial (table_id TEXT NOT NULL, log_id BIGINT NOT NULL,
    total BIGINT NOT NULL, crc BIGINT NOT NULL, data BYTEA NOT NULL,
    PRIMARY KEY (table_id, log_id));
CREATE TABLE IF NOT EXISTS accepted (table_id TEXT NOT NULL, log_id BIGINT NOT NULL,
    head TEXT NOT NULL, referee TEXT NOT NULL, reason TEXT NOT NULL, way TEXT NOT NULL,
    at BIGINT NOT NULL, PRIMARY KEY (table_id, log_id, head))
"""
_IGNORE = re.compile(r"^\s*INSERT OR IGNORE INTO", re.I)
_VALUES = re.compile(r"^(\s*INSERT (?:OR IGNORE )?INTO .*? VALUES )(\([?,]+\))(.*)$", re.I | re.S)


class _Count:
    """What executemany's callers read of a cursor: rowcount."""

    def __init__(self, n):
        self.rowcount = n


def _sql(q: str) -> str:
    q = q.replace("%", "%%").replace("?", "%s")
    if _IGNORE.match(q):
        q = _IGNORE.sub("INSERT INTO", q) + " ON CONFLICT DO NOTHING"
    return q


class PgConn:
    """The part of sqlite3.Connection the archive uses, on psycopg: execute,
    executemany, `with conn:` as one transaction (commit, or rollback on an
    exception), close. Outside a `with`, each statement commits by itself."""

    def __init__(self, url: str):
        import psycopg

        self._pg = psycopg
        self.where = _safe(url)
        try:
            self.conn = psycopg.connect(url, autocommit=True)
        except psycopg.Error as e:
            raise BadInput("%s: cannot connect: %s" % (_safe(url), str(e).strip())) from None
        self._tx: list = []

    def execute(self, q: str, params=()):
        try:
            return self.conn.execute(_sql(q), tuple(params))
        except (self._pg.OperationalError, self._pg.InterfaceError) as e:
            raise self._lost(e) from None

    def executemany(self, q: str, rows):
        """An INSERT of one VALUES row goes as one statement per 200 rows
        (a round trip each, not one a row); rowcount is their sum."""
        rows = [tuple(r) for r in rows]
        m = _VALUES.match(q)
        try:
            cur = self.conn.cursor()
            if m is None or not rows:
                cur.executemany(_sql(q), rows)
                return cur
            done = 0
            for i in range(0, len(rows), 200):
                part = rows[i:i + 200]
                sql = m.group(1) + ",".join([m.group(2)] * len(part)) + m.group(3)
                cur.execute(_sql(sql), [v for r in part for v in r])
                done += max(cur.rowcount, 0)
        except (self._pg.OperationalError, self._pg.InterfaceError) as e:
            raise self._lost(e) from None
        return _Count(done)

    def _lost(self, e) -> ArchiveTrouble:
        """The server gone mid-way (stopped, restarted, the network): one line."""
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        return ArchiveTrouble(
            "the archive's PostgreSQL database %s was lost mid-way (%s). Nothing was lost: the "
            "transaction under way changed nothing, what was archived before stays, and what "
            "was not stays where it was (on the table, in its folder); run the command again "
            "once the database answers" % (self.where, first))

    def __enter__(self):
        try:
            tx = self.conn.transaction()
            tx.__enter__()
        except (self._pg.OperationalError, self._pg.InterfaceError) as e:
            raise self._lost(e) from None
        self._tx.append(tx)
        return self

    def __exit__(self, *exc):
        try:
            return self._tx.pop().__exit__(*exc)
        except (self._pg.OperationalError, self._pg.InterfaceError) as e:
            if exc[0] is not None and issubclass(exc[0], ArchiveTrouble):
                return False  # the loss is being told already
            raise self._lost(e) from None

    def close(self):
        self.conn.close()


def _safe(url: str) -> str:
    """The address without its password, for messages."""
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class PgArchive(Archive):
    dialect = "pg"

    def __init__(self, path: str | None = None, create: bool = True):
        import psycopg

        self.path = _safe(path)
        self.db = PgConn(path)
        try:
            names = {r[0] for r in self.db.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema ="
                " current_schema()")}
            if not {"logs", "rulesets", "partial", "accepted"} <= names:
                if not create and not {"logs", "rulesets", "partial"} <= names:
                    raise BadInput("%s holds no mjtable archive (pull logs into it first)"
                                   % self.path)
            if create and not {"logs", "rulesets", "partial", "accepted"} <= names:
                with self.db:
                    # one laptop at a time makes the tables (the others wait here)
                    self.db.execute("SELECT pg_advisory_xact_lock(7264)")
                    for stmt in SCHEMA.split(";"):
                        self.db.execute(stmt)
        except psycopg.Error as e:
            raise BadInput("%s: not a usable archive: %s" % (self.path, str(e).strip())) from None

    @contextlib.contextmanager
    def transaction(self):
        """One transaction (inside another: a savepoint of it)."""
        with self.db:
            yield

    def _lock_hands(self, table_id: str, log_ids) -> None:
        # two laptops archiving the same hand: the second waits for the first's
        # commit, then finds its row (no unique-key error, no second row, no
        # second copy of an id). Ascending ids: two batches never wait on each other
        t = zlib.crc32(table_id.encode()) & 0x7FFFFFFF
        ids = sorted({lid & 0x7FFFFFFF for lid in log_ids})
        for i in range(0, len(ids), 1000):
            part = ids[i:i + 1000]
            self.db.execute("SELECT pg_advisory_xact_lock(?::int, x) FROM unnest(?::int[]) AS x"
                            " ORDER BY x", (t, part))

    def save_partial(self, table_id: str, log_id: int, total: int, crc: int,
                     data: bytes) -> None:
        with self.db:
            self.db.execute("INSERT INTO partial VALUES (?,?,?,?,?) ON CONFLICT (table_id, log_id)"
                            " DO UPDATE SET total = EXCLUDED.total, crc = EXCLUDED.crc,"
                            " data = EXCLUDED.data", (table_id, log_id, total, crc, data))

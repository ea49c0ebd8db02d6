"""The event's tables, in the archive's own database (SQLite or PostgreSQL),
so the standings are computed where the hands are.

  ev_events       id, name, the event file's text, created_at
  ev_players      (event, pid): name 汉字, latin, club
  ev_seats        (event, round, table_no, seat) -> pid: the draw; a player
                  sits once a round (unique)
  ev_matches      one per (event, round, table_no): the physical table (its
                  id, hex) and after_log, the highest log id that table had
                  when the match started; the match's hands are the table's
                  logs above it, up to the next match's after_log there
  ev_corrections  referees' corrections: append-only (never updated or
                  deleted: a correction is undone by another one), beside
                  the table's signed record, which is never edited
  ev_changes      people changing between rounds (append-only, audited):
                  add (a late registration), drop, sub (a substitute for
                  another from a round on), name (a name corrected); the
                  event file is never edited: eventfile.apply replays these
  ev_paper        results a referee entered by hand for a table whose
                  hardware failed (append-only: the latest of a match stands)
  ev_hands        an index of archived logs (row id -> each seat's points
                  from the table's end-of-hand record, start and length in
                  ms of the table's clock), made once per log so standings
                  need not parse logs
Placeholders are `?`; archive.postgres's connection turns them into psycopg's.
"""

from __future__ import annotations

import os
import time

from mjtable import BadInput, archive
from mjtable.logs import logfmt

SCHEMA = """
CREATE TABLE IF NOT EXISTS ev_events (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL,
    created_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ev_players (
    event TEXT NOT NULL, pid TEXT NOT NULL, name TEXT NOT NULL, latin TEXT NOT NULL,
    club TEXT NOT NULL, PRIMARY KEY (event, pid));
CREATE TABLE IF NOT EXISTS ev_seats (
    event TEXT NOT NULL, round BIGINT NOT NULL, table_no BIGINT NOT NULL,
    seat BIGINT NOT NULL, pid TEXT NOT NULL,
    PRIMARY KEY (event, round, table_no, seat), UNIQUE (event, round, pid));
CREATE TABLE IF NOT EXISTS ev_matches (
    event TEXT NOT NULL, round BIGINT NOT NULL, table_no BIGINT NOT NULL,
    table_id TEXT NOT NULL, after_log BIGINT NOT NULL, hands BIGINT NOT NULL,
    seconds BIGINT NOT NULL, rules_crc TEXT NOT NULL, started_at BIGINT NOT NULL,
    PRIMARY KEY (event, round, table_no));
CREATE TABLE IF NOT EXISTS ev_corrections (
    id {serial}, event TEXT NOT NULL, round BIGINT NOT NULL, pid TEXT NOT NULL,
    kind TEXT NOT NULL, points {real} NOT NULL, reason TEXT NOT NULL,
    referee TEXT NOT NULL, at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ev_changes (
    id {serial}, event TEXT NOT NULL, kind TEXT NOT NULL, pid TEXT NOT NULL,
    round BIGINT NOT NULL, data TEXT NOT NULL, reason TEXT NOT NULL, referee TEXT NOT NULL,
    at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ev_paper (
    id {serial}, event TEXT NOT NULL, round BIGINT NOT NULL, table_no BIGINT NOT NULL,
    points TEXT NOT NULL, hands BIGINT NOT NULL, reason TEXT NOT NULL, referee TEXT NOT NULL,
    at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ev_hands (
    log_row BIGINT PRIMARY KEY, table_id TEXT NOT NULL, log_id BIGINT NOT NULL,
    size BIGINT NOT NULL, points TEXT NOT NULL, t0 BIGINT NOT NULL, dur BIGINT NOT NULL,
    seal TEXT NOT NULL, alerts BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS ev_hands_table ON ev_hands (table_id, log_id);
"""
_DIALECT = {"sqlite": {"serial": "INTEGER PRIMARY KEY", "real": "REAL"},
            "pg": {"serial": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"}}
KINDS = ("raw", "placement")  # a correction of raw points (placings change) or of placement points


def dialect(ar) -> str:
    return getattr(ar, "dialect", "sqlite")


def ensure(ar) -> None:
    """Create the event tables if need be (idempotent)."""
    sql = SCHEMA.format(**_DIALECT[dialect(ar)])
    with ar.db:
        if dialect(ar) == "pg":  # laptops starting at once: one makes the tables
            ar.db.execute("SELECT pg_advisory_xact_lock(7265)")
        for stmt in sql.split(";"):
            if stmt.strip():
                ar.db.execute(stmt)


# --- events and players ---

def add_event(ar, ev) -> bool:
    """Store an event and its players; False if it is there already with the
    same file; BadInput if it is there with another one (nothing changed)."""
    ensure(ar)
    row = ar.db.execute("SELECT source FROM ev_events WHERE id=?", (ev.eid,)).fetchone()
    if row is not None:
        if row[0] == ev.source:
            return False
        raise BadInput("event %s exists with another event file; give the new event another id"
                       % ev.eid)
    with ar.db:
        ar.db.execute("INSERT INTO ev_events (id, name, source, created_at) VALUES (?,?,?,?)",
                      (ev.eid, ev.name, ev.source, int(time.time())))
        for p in ev.players:
            ar.db.execute("INSERT INTO ev_players (event, pid, name, latin, club)"
                          " VALUES (?,?,?,?,?)", (ev.eid, p.pid, p.name, p.latin, p.club))
    return True


def load_event(ar, eid: str):
    """The Event as stored (its file parsed again, the people's changes
    applied); BadInput if unknown."""
    from mjtable.event import eventfile

    ensure_read(ar)
    row = ar.db.execute("SELECT source FROM ev_events WHERE id=?", (eid,)).fetchone()
    if row is None:
        known = [r[0] for r in ar.db.execute("SELECT id FROM ev_events ORDER BY id")]
        raise BadInput("no event %r in %s (events: %s)" % (eid, ar.path, ", ".join(known) or
                                                            "none; `mjtable event create FILE`"))
    ev = eventfile.parse(row[0], "event %s" % eid)
    eventfile.apply(ev, changes(ar, eid))
    return ev


# --- people's changes, results entered by hand ---

def add_change(ar, eid, kind, pid, rnd, data, reason, referee, seats=()) -> int:
    """Append a change (data: a dict, kept as JSON); seats: (round, old pid,
    new pid) to put in a drawn round's seats in the same transaction."""
    import json

    if not reason.strip() or not referee.strip():
        raise BadInput("a change needs --reason and --by (who made it)")
    with ar.db:
        for r, old, new in seats:
            ar.db.execute("UPDATE ev_seats SET pid=? WHERE event=? AND round=? AND pid=?",
                          (new, eid, r, old))
        row = ar.db.execute("INSERT INTO ev_changes (event, kind, pid, round, data, reason,"
                            " referee, at) VALUES (?,?,?,?,?,?,?,?) RETURNING id",
                            (eid, kind, pid, rnd, json.dumps(data, ensure_ascii=False,
                                                             sort_keys=True),
                             reason.strip(), referee.strip(), int(time.time()))).fetchone()
    return row[0]


def changes(ar, eid: str) -> list:
    """[(id, kind, pid, round, data dict, reason, referee, at)] in the order made."""
    import json

    return [r[:4] + (json.loads(r[4]),) + tuple(r[5:]) for r in ar.db.execute(
        "SELECT id, kind, pid, round, data, reason, referee, at FROM ev_changes WHERE event=?"
        " ORDER BY id", (eid,))]


def add_paper(ar, eid, rnd, table_no, points, hands, reason, referee) -> int:
    if not reason.strip() or not referee.strip():
        raise BadInput("a result entered by hand needs --reason and --by (who entered it)")
    with ar.db:
        row = ar.db.execute("INSERT INTO ev_paper (event, round, table_no, points, hands, reason,"
                            " referee, at) VALUES (?,?,?,?,?,?,?,?) RETURNING id",
                            (eid, rnd, table_no, ",".join(str(v) for v in points), hands,
                             reason.strip(), referee.strip(), int(time.time()))).fetchone()
    return row[0]


def papers(ar, eid: str) -> list:
    """[(id, round, table_no, [points per seat], hands, reason, referee, at)] in order."""
    return [(r[0], r[1], r[2], [int(v) for v in r[3].split(",")]) + tuple(r[4:])
            for r in ar.db.execute("SELECT id, round, table_no, points, hands, reason, referee,"
                                   " at FROM ev_paper WHERE event=? ORDER BY id", (eid,))]


def ensure_read(ar) -> None:
    """The event tables exist (made empty in an archive that has none)."""
    try:
        ensure(ar)
    except Exception as e:  # a read-only SQLite archive without them
        raise BadInput("%s has no event tables (%s)" % (ar.path, e)) from None


# --- seating ---

def seats(ar, eid: str, rnd: int) -> dict:
    """{table_no: [pid per seat]} of a round's draw ({} if not drawn)."""
    out: dict = {}
    for t, _s, pid in ar.db.execute("SELECT table_no, seat, pid FROM ev_seats WHERE event=? AND"
                                   " round=? ORDER BY table_no, seat", (eid, rnd)):
        out.setdefault(t, []).append(pid)
    return out


def all_seats(ar, eid: str) -> dict:
    """{round: {table_no: [pid per seat]}}."""
    out: dict = {}
    for r, t, _s, pid in ar.db.execute("SELECT round, table_no, seat, pid FROM ev_seats"
                                      " WHERE event=? ORDER BY round, table_no, seat", (eid,)):
        out.setdefault(r, {}).setdefault(t, []).append(pid)
    return out


def save_seats(ar, eid: str, rnd: int, tables: dict) -> None:
    """Store a round's draw; BadInput if it is drawn already."""
    with ar.db:
        if ar.db.execute("SELECT 1 FROM ev_seats WHERE event=? AND round=?",
                         (eid, rnd)).fetchone():
            raise BadInput("round %d of %s is drawn already" % (rnd, eid))
        for t, pids in tables.items():
            for s, pid in enumerate(pids):
                ar.db.execute("INSERT INTO ev_seats (event, round, table_no, seat, pid)"
                              " VALUES (?,?,?,?,?)", (eid, rnd, t, s, pid))


# --- matches ---

def start_match(ar, eid, rnd, table_no, table_id, after_log, hands, seconds, rules_crc,
                again=False) -> None:
    """Tie a physical table to (round, table_no); BadInput if that match was
    started already (again=True starts it over: a table swapped for another)."""
    with ar.db:
        old = ar.db.execute("SELECT table_id FROM ev_matches WHERE event=? AND round=? AND"
                            " table_no=?", (eid, rnd, table_no)).fetchone()
        if old is not None:
            if not again:
                raise BadInput("round %d table %d of %s was started already (on table %s); "
                               "--again starts it over" % (rnd, table_no, eid, old[0]))
            ar.db.execute("DELETE FROM ev_matches WHERE event=? AND round=? AND table_no=?",
                          (eid, rnd, table_no))
        ar.db.execute("INSERT INTO ev_matches (event, round, table_no, table_id, after_log,"
                      " hands, seconds, rules_crc, started_at) VALUES (?,?,?,?,?,?,?,?,?)",
                      (eid, rnd, table_no, table_id, after_log, hands, seconds, rules_crc,
                       int(time.time())))


def matches(ar, eid: str) -> list:
    """[(round, table_no, table_id, after_log, hands, seconds, rules_crc, started_at)]."""
    return ar.db.execute("SELECT round, table_no, table_id, after_log, hands, seconds, rules_crc,"
                         " started_at FROM ev_matches WHERE event=? ORDER BY round, table_no",
                         (eid,)).fetchall()


def match_tables(ar) -> set:
    """The physical tables (hex ids) any event's match was started on."""
    return {r[0] for r in ar.db.execute("SELECT DISTINCT table_id FROM ev_matches")}


def last_log_id(ar, table_id: str) -> int:
    r = ar.db.execute("SELECT MAX(log_id) FROM logs WHERE table_id=?", (table_id,)).fetchone()
    return r[0] if r and r[0] is not None else 0


def bounds(ar) -> dict:
    """{table_id: sorted after_log values of every match on it (all events)}:
    a match's hands end where the next match on that table begins."""
    out: dict = {}
    for tid, a in ar.db.execute("SELECT table_id, after_log FROM ev_matches"):
        out.setdefault(tid, []).append(a)
    for v in out.values():
        v.sort()
    return out


# --- corrections ---

def add_correction(ar, eid, rnd, pid, kind, points, reason, referee) -> int:
    if kind not in KINDS:
        raise BadInput("correction kind %r: expected %s" % (kind, " or ".join(KINDS)))
    if not reason.strip() or not referee.strip():
        raise BadInput("a correction needs --reason and --by (who made it)")
    with ar.db:  # RETURNING: two referees correcting at once each get their own id
        r = ar.db.execute("INSERT INTO ev_corrections (event, round, pid, kind, points, reason,"
                          " referee, at) VALUES (?,?,?,?,?,?,?,?) RETURNING id",
                          (eid, rnd, pid, kind, points, reason.strip(), referee.strip(),
                           int(time.time()))).fetchone()
    return r[0]


def corrections(ar, eid: str) -> list:
    """[(id, round, pid, kind, points, reason, referee, at)] in the order made."""
    return ar.db.execute("SELECT id, round, pid, kind, points, reason, referee, at FROM"
                         " ev_corrections WHERE event=? ORDER BY id", (eid,)).fetchall()


# --- the hand index ---

def hand_facts(log):
    """(points text, t0 ms, length ms, alerts) of one parsed log file
    (logfmt.HandLogFile): the points of its end-of-hand record as "a,b,c,d"
    ("" if none: in play or cut short), the hand's start on the table's ms
    clock and its length to the last action."""
    from sichuan import handlog

    pts = log.end_points()
    hl = log.handlog()
    t0 = dur = 0
    try:
        header, recs = handlog.decode(hl)
        t0 = header[4]
        acts = [r[1] for r in recs if r[0] == handlog.REC_ACTION]
        if acts:
            dur = max(0, acts[-1][3] - t0)
    except ValueError:
        pass
    nalerts = sum(1 for t, _ in log.records if t == logfmt.T_ALERT)
    return ("" if pts is None else ",".join(str(v) for v in pts)), t0, dur, nalerts


def index(ar) -> int:
    """Index the archived logs not indexed yet, and again those that grew (a
    hand pulled in play, then whole: the same row); returns how many."""
    rows = ar.db.execute("SELECT l.id FROM logs l LEFT JOIN ev_hands h ON h.log_row = l.id"
                         " WHERE h.log_row IS NULL OR h.size <> l.size ORDER BY l.id").fetchall()
    stale = [r[0] for r in rows]
    if stale:
        with ar.db:
            for i in range(0, len(stale), 500):
                part = stale[i:i + 500]
                ar.db.execute("DELETE FROM ev_hands WHERE log_row IN (%s)"
                              % ",".join("?" * len(part)), part)
    n = 0
    batch: list = []
    for (row,) in rows:
        tid, lid, data, seal, _crc = ar.log_data(row)
        try:
            pts, t0, dur, na = hand_facts(logfmt.parse(bytes(data)))
        except logfmt.LogDamaged:
            pts, t0, dur, na, seal = "", 0, 0, 0, "damaged"
        batch.append((row, tid, lid, len(data), pts, t0, dur, seal, na))
        if len(batch) >= 500:
            n += put_index(ar, batch)
            batch = []
    return n + put_index(ar, batch)


def put_index(ar, batch, tx=True) -> int:
    """batch: [(log row, table, log id, size, points, t0, dur, seal, alerts)]."""
    if not batch:
        return 0
    if not tx:
        ar.db.executemany("INSERT OR IGNORE INTO ev_hands (log_row, table_id, log_id, size,"
                          " points, t0, dur, seal, alerts) VALUES (?,?,?,?,?,?,?,?,?)", batch)
        return len(batch)
    with ar.db:
        ar.db.executemany("INSERT OR IGNORE INTO ev_hands (log_row, table_id, log_id, size,"
                          " points, t0, dur, seal, alerts) VALUES (?,?,?,?,?,?,?,?,?)", batch)
    return len(batch)


def hands_of(ar, table_ids) -> list:
    """[(log_row, table_id, log_id, size, points, t0, dur, seal, alerts,
    accepted_by, reason)] of these tables; accepted_by: the referee who took
    the log by name (archive.admit), else None."""
    out: list = []
    ids = sorted(set(table_ids))
    for i in range(0, len(ids), 200):
        part = ids[i:i + 200]
        out += ar.db.execute(
            "SELECT h.log_row, h.table_id, h.log_id, h.size, h.points, h.t0, h.dur, h.seal,"
            " h.alerts, a.referee, a.reason FROM ev_hands h JOIN logs l ON l.id = h.log_row"
            " LEFT JOIN accepted a ON a.table_id = l.table_id AND a.log_id = l.log_id"
            " AND a.head = l.head WHERE h.table_id IN (%s)" % ",".join("?" * len(part)),
            part).fetchall()
    return out


def open_archive(spec, create=False):
    """The archive (SQLite or PostgreSQL) with the event tables; unless
    create, a SQLite file that is not there yet is refused."""
    path = spec or archive.default_path()
    if not create and not archive.is_url(path) and not os.path.exists(path):
        raise BadInput("no archive at %s (give --archive, or `mjtable event create FILE`)" % path)
    ar = archive.open_archive(path, create=True)
    ensure(ar)
    return ar


def event_of(ar, eid):
    """The event eid of archive ar (None: its only event)."""
    if eid is None:
        ids = [r[0] for r in ar.db.execute("SELECT id FROM ev_events ORDER BY id")]
        if len(ids) != 1:
            raise BadInput("give --event (events in %s: %s)" % (ar.path, ", ".join(ids) or "none"))
        eid = ids[0]
    return load_event(ar, eid)


def check_round(ev, rnd):
    if not 1 <= rnd <= ev.rounds:
        raise BadInput("round %d: event %s has rounds 1..%d" % (rnd, ev.eid, ev.rounds))

"""`mjtable event sync FROM.sqlite --archive postgresql://...`: an offline
laptop's archive into the event's.

Logs come in by the policy of every way into an archive (mjtable.archive.
admit), judged again from their bytes with the table key: the source's seal
column and its acceptances are that file's word, which anyone can edit, so a
log the source took by name is refused here until a referee accepts it here.
Each table's logs in one transaction (a hand the target has already is not
copied again, so a sync run twice, or of a laptop that also pulled online,
duplicates nothing). Then, in one transaction (cut short: none of it),
everything else the target lacks: rulesets, events with their players,
draws, matches, and the append-only tables (corrections: one with the same
event, round, player, points, reason, referee and time is already there).
Where the two disagree (another draw of a round, a match on another table)
the target's stands and the sync says so; nothing of the source is changed.
"""

from __future__ import annotations

from mjtable import BadInput
from mjtable.archive import admit
from mjtable.event import importer, store
from mjtable.tableops.logs import rules_crc

_BATCH = 500
WAY = "event sync"


def sync(src, dst, key, accept=admit.NOBODY) -> dict:
    store.ensure(dst)
    st = {"logs": 0, "had": 0, "bad": [], "taken": [], "chain": [], "rulesets": 0, "events": 0,
          "seats": 0, "matches": 0, "corrections": 0, "conflicts": []}
    _logs(src, dst, key, accept, st)
    with dst.db:
        for crc, name, blob in src.db.execute("SELECT crc, name, blob FROM rulesets"):
            cur = dst.db.execute("INSERT OR IGNORE INTO rulesets (crc, name, blob) VALUES (?,?,?)",
                                 (crc, name, bytes(blob)))
            st["rulesets"] += max(cur.rowcount, 0)
        if _has_events(src):
            _events(src, dst, st)
    st["indexed"] = store.index(dst)
    importer.after(dst, st)
    return st


def _has_events(ar) -> bool:
    try:
        ar.db.execute("SELECT 1 FROM ev_events LIMIT 1")
        return True
    except Exception:
        return False


def _logs(src, dst, key, accept, st) -> None:
    """Each source log judged again (admit), a table's logs at a time."""
    there = src.accepted()
    tables = [r[0] for r in src.db.execute("SELECT DISTINCT table_id FROM logs ORDER BY 1")]
    for tid in tables:
        q = src.db.execute("SELECT log_id, data FROM logs WHERE table_id=? ORDER BY log_id, id",
                           (tid,))
        while True:
            rows = q.fetchmany(_BATCH)
            if not rows:
                break
            items = [(lid, bytes(data)) for lid, data in rows]
            for v in admit.admit_many(dst, tid, items, key, accept, WAY, rules_crc=rules_crc):
                if v.refused:
                    took = [a for (t, lid, _h), a in there.items() if (t, lid) == (tid, v.lid)]
                    if took and v.acceptable:
                        v.why += " (accepted by name on the source by %s: that file's word)" \
                            % took[0][0]
                    st["bad"].append(v)
                elif v.status == "same":
                    st["had"] += 1
                else:
                    st["logs"] += 1
                    st["taken"].append((tid, v.lid, v.log))


def _events(src, dst, st) -> None:
    for eid, name, source, created in src.db.execute(
            "SELECT id, name, source, created_at FROM ev_events").fetchall():
        have = dst.db.execute("SELECT source FROM ev_events WHERE id=?", (eid,)).fetchone()
        if have is None:
            dst.db.execute("INSERT INTO ev_events (id, name, source, created_at) VALUES (?,?,?,?)",
                           (eid, name, source, created))
            dst.db.executemany("INSERT INTO ev_players (event, pid, name, latin, club)"
                               " VALUES (?,?,?,?,?)", src.db.execute(
                                   "SELECT event, pid, name, latin, club FROM ev_players"
                                   " WHERE event=?", (eid,)).fetchall())
            st["events"] += 1
        elif have[0] != source:
            raise BadInput("event %s has another event file in the target: nothing synced" % eid)
        _seats(src, dst, eid, st)
        _matches(src, dst, eid, st)
        _corrections(src, dst, eid, st)


def _seats(src, dst, eid, st) -> None:
    theirs = store.all_seats(src, eid)
    ours = store.all_seats(dst, eid)
    for rnd, tables in theirs.items():
        if rnd not in ours:
            for t, pids in tables.items():
                for s, pid in enumerate(pids):
                    dst.db.execute("INSERT INTO ev_seats (event, round, table_no, seat, pid)"
                                   " VALUES (?,?,?,?,?)", (eid, rnd, t, s, pid))
            st["seats"] += 1
        elif ours[rnd] != tables:
            st["conflicts"].append("%s round %d: drawn otherwise here; the target's draw stands"
                                   % (eid, rnd))


def _matches(src, dst, eid, st) -> None:
    ours = {(m[0], m[1]): m for m in store.matches(dst, eid)}
    for m in store.matches(src, eid):
        o = ours.get((m[0], m[1]))
        if o is None:
            dst.db.execute("INSERT INTO ev_matches (event, round, table_no, table_id, after_log,"
                           " hands, seconds, rules_crc, started_at) VALUES (?,?,?,?,?,?,?,?,?)",
                           (eid,) + tuple(m))
            st["matches"] += 1
        elif tuple(o[:4]) != tuple(m[:4]):
            st["conflicts"].append("%s round %d table %d: started on table %s here, %s there; "
                                   "the target's stands" % (eid, m[0], m[1], o[2], m[2]))


def _corrections(src, dst, eid, st) -> None:
    ours = {tuple(c[1:]) for c in store.corrections(dst, eid)}
    for c in store.corrections(src, eid):
        if tuple(c[1:]) in ours:
            continue
        dst.db.execute("INSERT INTO ev_corrections (event, round, pid, kind, points, reason,"
                       " referee, at) VALUES (?,?,?,?,?,?,?,?)", (eid,) + tuple(c[1:]))
        st["corrections"] += 1

"""What the pages take from the archive the referees pull into: the
standings and who sits at each table.

The interface (small on purpose, so the event room can fill it):
    standings(archive, label) -> {"title": str, "columns": [str], "rows": [[cell, ...]]}
    players(archive) -> {table id (hex): [the player at each seat]}
When the event room (mjtable.event, issue 23) offers
`mjtable.event.standings.for_live(archive)` gives that result for the
archive's newest event (players, placement points, tie-breaks); an archive
with no event shows the per-table-seat totals of `mjtable export`
(mjtable.logs.summary.standings), each table by its name (label(hex id):
the name it was given, or its id as text), not its hex id. players() names
the seats of the newest event's latest match started at each table (`match
start --event`). None and {} when there is no archive yet.
"""

from __future__ import annotations

import os


def _there(archive) -> bool:
    return bool(archive) and (archive.startswith("postgresql:") or os.path.exists(archive))


def standings(archive, label=None):
    if not _there(archive):
        return None
    from mjtable.event.standings import for_live

    ev = for_live(archive)
    if ev is not None:
        return ev
    from mjtable.logs import summary
    from mjtable.logs.logfmt import table_name

    label = label or (lambda hex_id: hex_id)
    hs = summary.collect([archive])
    ids = {table_name(h["table"]): h["table"] for h in hs}  # summary names a table by its id
    rows = []
    for place, who, points, n in summary.standings(hs):
        table, _, seat = who.partition("/")
        rows.append([place, "%s/%s" % (label(ids.get(table, table)), seat), points, n])
    return {"title": "Standings (table seats, archived hands)",
            "columns": ["place", "table seat", "points", "hands"], "rows": rows}


def players(archive) -> dict:
    if not _there(archive):
        return {}
    from mjtable import archive as archives
    from mjtable.event import store

    ar = archives.open_archive(archive, create=True)  # as for_live: the event tables made
    try:
        store.ensure(ar)
        row = ar.db.execute("SELECT id FROM ev_events ORDER BY created_at DESC, id LIMIT 1"
                            ).fetchone()
        if row is None:
            return {}
        ev = store.load_event(ar, row[0])
        latest: dict = {}  # table id -> (started at, round, table number)
        for rnd, table_no, tid, _after, _h, _s, _crc, started in store.matches(ar, ev.eid):
            if (started, rnd) >= latest.get(tid, (-1, -1, 0))[:2]:
                latest[tid] = (started, rnd, table_no)
        out = {}
        for tid, (_started, rnd, table_no) in latest.items():
            pids = store.seats(ar, ev.eid, rnd).get(table_no, [])
            out[tid] = [ev.player(pid).name for pid in pids]
        return out
    finally:
        ar.close()

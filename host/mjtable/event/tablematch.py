"""An event's match started at a table (`mjtable match start --event E
--round R --table N`): the table gets the event's ruleset and match length,
the archive who sits where, so the hands logged there from then on are that
match's."""

from __future__ import annotations

import struct

from mjtable import BadInput
from mjtable.event import store
from mjtable.link import client as L
from mjtable.link import protocol as P
from mjtable.tableops import logs as tlogs
from mjtable.tableops import rules


def check(archive_spec, eid, rnd: int, table: int, again: bool):
    """(archive, event, the table's seats: player ids East..North) of round
    rnd's table, before any table is asked; BadInput if it cannot start."""
    ar = store.open_archive(archive_spec)
    ev = store.event_of(ar, eid)
    store.check_round(ev, rnd)
    tables = store.seats(ar, ev.eid, rnd)
    if table not in tables:
        raise BadInput("round %d of %s has %s" % (rnd, ev.eid, "tables 1..%d" % len(tables)
                                                   if tables else "no draw yet"))
    started = {(m[0], m[1]): m for m in store.matches(ar, ev.eid)}
    if (rnd, table) in started and not again:
        raise BadInput("round %d table %d was started already (on table %s); --again starts it "
                       "over" % (rnd, table, started[(rnd, table)][2]))
    return ar, ev, tables[table]


def start(ar, ev, rnd: int, table: int, link: L.Link, again: bool) -> int:
    """Start the match at the table on `link`; the id of the last log before
    the match's first hand."""
    tid = link.table_id.hex()
    for (r, t), m in {(m[0], m[1]): m for m in store.matches(ar, ev.eid)}.items():
        if r == rnd and t != table and m[2] == tid:
            raise BadInput("table %s plays round %d table %d already" % (tid, r, t))
    rs = ev.rs
    crc = rs.crc()
    if link.info().get("rules_crc", "").lower() != "%08x" % crc:
        rules.push(link, rs)  # played from the match this starts
    ar.add_ruleset("%08x" % crc, rs.name, rs.to_blob())
    secs = ev.minutes * 60
    req = bytes((P.MATCH_START,)) + struct.pack("<HHI", ev.hands, secs, crc)
    try:
        reply = rules.retry_busy(lambda: link.request(P.CMD_MATCH, req, auth=True), 60.0)
    except L.LinkError as e:
        rules.refused(e, "match start", link)
    if len(reply) >= 4:  # the id the match's first hand logs under
        after = struct.unpack_from("<I", reply)[0] - 1
    else:  # a table without that answer: past every log known of it
        after = max([lid for lid, _ in tlogs.table_logs(link)] + [store.last_log_id(ar, tid)])
    store.start_match(ar, ev.eid, rnd, table, tid, after, ev.hands, secs, "%08x" % crc,
                      again=again)
    return after

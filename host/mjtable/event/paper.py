"""A match result entered by hand (`mjtable event result --round R --table N
--points A,B,C,D --reason TEXT --by REFEREE`): the table's hardware failed
and the referees kept the score on paper. Kept append-only beside the logs
(store.add_paper: the latest entry of a match stands, every one stays in
the audit); the match's result is those points, its logged hands are listed
and not counted, and every standing, sheet and export that the match
touches says the result was entered by hand and by whom.
"""

from __future__ import annotations

from mjtable import BadInput
from mjtable.event import store


def enter(ar, ev, rnd: int, table_no: int, points: str, hands, reason: str, by: str) -> int:
    store.check_round(ev, rnd)
    tables = store.seats(ar, ev.eid, rnd)
    if table_no not in tables:
        raise BadInput("round %d of %s has %s" % (rnd, ev.eid, "tables 1..%d" % len(tables)
                                                   if tables else "no draw yet"))
    try:
        pts = [int(v) for v in points.split(",")]
    except ValueError:
        raise BadInput("--points %r: one whole number per seat, East first, e.g. 12,-4,-8,0"
                       % points) from None
    if len(pts) != ev.seats:
        raise BadInput("--points: %d seats at a table, %d numbers given" % (ev.seats, len(pts)))
    if sum(pts) != 0:
        raise BadInput("--points %s add up to %d: a match's points add up to 0 (every payment "
                       "goes from one seat to another)" % (points, sum(pts)))
    if any(abs(v) > 1_000_000 for v in pts):
        raise BadInput("--points %s: more than a million points" % points)
    n = ev.hands if hands is None else hands
    if not 0 <= n <= 999:
        raise BadInput("--hands %d: 0..999" % n)
    return store.add_paper(ar, ev.eid, rnd, table_no, pts, n, reason, by)

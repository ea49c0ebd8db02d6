"""The round's clock for the hall (`mjtable event clock --round R [--follow]
[--html OUT]`): how long the round has left, in step with the tables' own.

Each table keeps its match's time itself: `match start` tells it the
event's minutes_per_match (as seconds) and it counts from that moment on
its own clock (docs/event.md "A match and its hands"). The archive holds,
for each match, when the laptop started it (UTC, the moment the table
acknowledged) and the seconds the table was told. So a table's time is up
at started_at + seconds, and the hall's clock shows the latest of those
among the round's tables: no player is told the time is up before their
table's own clock says so. Tables not started yet are listed; a round
whose matches have no time limit has no clock.
"""

from __future__ import annotations

import json
import time

from mjtable import BadInput
from mjtable.event import store


def round_clock(ar, ev, rnd: int, now: float) -> dict:
    """The round's clock at `now` (UTC seconds): {"round", "minutes",
    "tables": [{"table", "started_at", "ends", "left"}], "not_started",
    "ends", "left"} (left in seconds, 0 once up; ends None before any start)."""
    store.check_round(ev, rnd)
    drawn = store.seats(ar, ev.eid, rnd)
    if not drawn:
        raise BadInput("round %d of %s is not drawn yet" % (rnd, ev.eid))
    if not ev.minutes:
        raise BadInput("%s's matches have no time limit (hands_per_match %d only): no clock"
                       % (ev.eid, ev.hands))
    started = {m[1]: m for m in store.matches(ar, ev.eid) if m[0] == rnd}
    tables = []
    for t in sorted(drawn):
        m = started.get(t)
        if m is None:
            continue
        secs = m[5] or ev.minutes * 60  # what the table was told
        ends = m[7] + secs
        tables.append({"table": t, "started_at": m[7], "ends": ends,
                       "left": max(0, int(ends - now))})
    ends = max((x["ends"] for x in tables), default=None)
    return {"round": rnd, "event": ev.name, "minutes": ev.minutes, "tables": tables,
            "not_started": [t for t in sorted(drawn) if t not in started],
            "ends": ends, "left": max(0, int(ends - now)) if ends is not None else None}


def mmss(secs: int) -> str:
    return "%d:%02d" % divmod(int(secs), 60)


def text(d: dict) -> str:
    """The clock in one line, and the tables' own."""
    if d["ends"] is None:
        head = "round %d: no match started yet (%d minutes a match)" % (d["round"], d["minutes"])
    elif d["left"]:
        head = "round %d: %s left (ends %s UTC, the last table's clock)" % (
            d["round"], mmss(d["left"]), time.strftime("%H:%M:%S", time.gmtime(d["ends"])))
    else:
        head = "round %d: time up: the hands in play are the last" % d["round"]
    tables = ", ".join("table %d %s" % (x["table"], mmss(x["left"]) if x["left"] else "up")
                       for x in d["tables"])
    wait = ", ".join(str(t) for t in d["not_started"])
    return head + ("\n  " + tables if tables else "") + (
        "\n  not started: table%s %s" % ("s" if len(d["not_started"]) > 1 else "", wait)
        if wait else "")


def html(d: dict) -> str:
    """A page for the hall's screen: the clock in big figures, counting down
    by itself (to the end times the archive gave, on the screen's clock)."""
    from mjtable.event.sheets import render

    return render("clock.html.j2", d=d, data=json.dumps(
        {"ends": d["ends"], "tables": [[x["table"], x["ends"]] for x in d["tables"]]}))

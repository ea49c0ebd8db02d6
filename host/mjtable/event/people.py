"""People change during an event (`mjtable event player add|drop|sub|name`):
a late registration before round 1 is drawn, a player who drops out from a
round on, a substitute who plays from a round on instead of another (under
their own id, with their own results), a name corrected after `event
create`. Each is an append-only change in the archive (store.add_change;
the event file is never edited, eventfile.apply replays them) with its
referee, reason and time, listed by `event audit`.

A change names the round it applies from. If that round is drawn and the
player's match there has not started, the drawn seats change with it (the
substitute takes the seat; a dropped player's seat goes to a stand-in):
no draw again, no `draw --force`. A match that has started is not changed:
the change applies from the next round.
"""

from __future__ import annotations

from mjtable import BadInput
from mjtable.event import eventfile, store


def _seat_of(ar, ev, pid, rnd):
    """(table, started) of pid in drawn round rnd, or None if not seated; a
    match with a result entered by hand counts as started (it was played)."""
    for t, pids in store.seats(ar, ev.eid, rnd).items():
        if pid in pids:
            started = any(m[0] == rnd and m[1] == t for m in store.matches(ar, ev.eid)) or \
                any(p[1] == rnd and p[2] == t for p in store.papers(ar, ev.eid))
            return t, started
    return None


def _next_round(ar, ev, pid) -> int:
    """The first round in which pid's match has not started."""
    for rnd in range(1, ev.rounds + 1):
        at = _seat_of(ar, ev, pid, rnd)
        if at is None or not at[1]:
            return rnd
    raise BadInput("%s has played every round of %s" % (pid, ev.eid))


def _round(ar, ev, pid, rnd):
    """The round a change of pid applies from (default: the first not started
    for them), refused if pid's match in that round has started."""
    rnd = rnd or _next_round(ar, ev, pid)
    store.check_round(ev, rnd)
    at = _seat_of(ar, ev, pid, rnd)
    if at is not None and at[1]:
        raise BadInput("round %d table %d, where %s sits, has started (or has a result): the "
                       "change applies from round %d" % (rnd, at[0], pid, rnd + 1))
    return rnd, at


def _new_player(ev, pid, name, latin, club):
    eventfile.check_player_id(pid, "player id")
    if any(p.pid == pid for p in ev.players):
        raise BadInput("event %s has a player %s already" % (ev.eid, pid))
    if not (name or "").strip() or not (latin or "").strip():
        raise BadInput("a new player needs --name (汉字) and --latin")
    return {"name": name.strip(), "latin": latin.strip(), "club": (club or "").strip()}


def add(ar, ev, pid, name, latin, club, reason, by) -> int:
    """A late registration: before round 1 is drawn."""
    if store.seats(ar, ev.eid, 1):
        raise BadInput("round 1 of %s is drawn: a late registration is before the draw; from "
                       "then on a new player comes in as a substitute (`event player sub`)"
                       % ev.eid)
    data = _new_player(ev, pid, name, latin, club)
    eventfile.check_count(len(ev.active(1)) + 1, ev.seats, "event %s" % ev.eid)
    return store.add_change(ar, ev.eid, "add", pid, 1, data, reason, by)


def drop(ar, ev, pid, rnd, reason, by) -> tuple:
    """pid plays no round from rnd on; (change id, round)."""
    p = ev.player(pid)
    rnd, at = _round(ar, ev, pid, rnd)
    if not p.plays(rnd):
        raise BadInput("%s does not play round %d" % (pid, rnd))
    for r in range(rnd, ev.rounds + 1):
        eventfile.check_count(len(ev.active(r)) - 1, ev.seats, "event %s round %d" % (ev.eid, r))
    seats = []
    if at is not None:  # drawn, not started: a stand-in takes the seat
        tables = store.seats(ar, ev.eid, rnd)
        if any(eventfile.is_standin(q) for q in tables[at[0]]):
            raise BadInput("round %d table %d is short a player already: a substitute for %s "
                           "(`event player sub`) keeps it playable" % (rnd, at[0], pid))
        used = {q for ps in tables.values() for q in ps}
        k = 1
        while "%s%d" % (eventfile.STANDIN, k) in used:
            k += 1
        seats.append((rnd, pid, "%s%d" % (eventfile.STANDIN, k)))
    return store.add_change(ar, ev.eid, "drop", pid, rnd, {}, reason, by, seats), rnd


def sub(ar, ev, pid, for_pid, rnd, name, latin, club, reason, by) -> tuple:
    """pid plays instead of for_pid from round rnd on; (change id, round)."""
    old = ev.player(for_pid)
    data = _new_player(ev, pid, name, latin, club)
    rnd, at = _round(ar, ev, for_pid, rnd)
    if not old.plays(rnd):
        raise BadInput("%s does not play round %d" % (for_pid, rnd))
    data["for"] = for_pid
    seats = [(rnd, for_pid, pid)] if at is not None else []
    return store.add_change(ar, ev.eid, "sub", pid, rnd, data, reason, by, seats), rnd


def rename(ar, ev, pid, name, latin, club, reason, by) -> int:
    """A name (or latin, or club) corrected: every sheet shows the new one."""
    p = ev.player(pid)
    data = {k: v.strip() for k, v in (("name", name), ("latin", latin), ("club", club))
            if v is not None and v.strip() != getattr(p, k)}
    if not data:
        raise BadInput("give --name, --latin or --club: what %s is called now" % pid)
    if "name" in data and not data["name"] or "latin" in data and not data["latin"]:
        raise BadInput("a name cannot be empty")
    data["was"] = {k: getattr(p, k) for k in data}
    return store.add_change(ar, ev.eid, "name", pid, 1, data, reason, by)

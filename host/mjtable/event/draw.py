"""A round's draw as the head referee asks for it (`mjtable event draw
--round R [--method random|swiss] [--manual FILE] [--force]`):

  random  the players of the round in a random order from the event's seed
          (round 1 always; any later round on request): the same on every laptop
  swiss   later rounds by standing (seating.next_round: winds balanced, the
          fewest repeat meetings, then the standings); refused while a match
          of an earlier round has no result, unless --force
  manual  the seating as a file gives it, one table a line in seat order
          (East first), `-` for a stand-in's seat:
              1: P001 P007 P012 P016
              2: P002 P005 -    P011
Whoever plays the round (eventfile.Event.active: drops and substitutes
applied) is seated; when they do not fill the tables, stand-ins ("~1", ...)
take the last seats, at most one a table (a table short a player). Then
club-mates are kept apart where it can be done (seating.separate_clubs:
trades on the same seat, so the winds and the meetings stay as drawn), and
the draw says how many club pairs are left and whether fewer could be.
"""

from __future__ import annotations

import re

from mjtable import BadInput
from mjtable.event import eventfile, schedule, seating, store
from mjtable.event import standings as S

METHODS = ("random", "swiss")


def draw(ar, ev, rnd: int, method=None, manual=None, force=False) -> tuple:
    """(tables {table no: [pid per seat]}, a note on it for people); nothing stored."""
    store.check_round(ev, rnd)
    have = store.all_seats(ar, ev.eid)
    if rnd in have:
        raise BadInput("round %d of %s is drawn already" % (rnd, ev.eid))
    missing = [r for r in range(1, rnd) if r not in have]
    if missing:
        raise BadInput("draw round %d first" % missing[0])
    active = [p.pid for p in ev.active(rnd)]
    np = ev.seats
    club = {p.pid: p.club for p in ev.players}
    if manual is not None:
        tables = parse_manual(manual, ev, rnd, active)
    elif rnd == 1 or (method or "swiss") == "random":
        tables = seating.random_round(seating.padded(active, np), np, ev.seed, rnd)
    else:
        ranked = seating.padded([p for p in ranking(ar, ev, rnd, force) if p in set(active)], np)
        tables = schedule.next_round(ranked, have, np, ev.rounds, ev.seed)
        if tables is not None:  # the schedule's round: a trade would cost later rounds more
            return tables, note(ev, have, rnd, tables, club, active, "the schedule's round")
        tables = seating.next_round(ranked, have, np, ev.rounds, ev.seed)
    if manual is None:
        tables = seating.separate_clubs(seating.spread_standins(tables), club, meets(have))
    return tables, note(ev, have, rnd, tables, club, active,
                        "as given" if manual is not None else "")


def ranking(ar, ev, rnd: int, force: bool) -> list:
    """The player ids by standing after round rnd - 1; BadInput while a match
    of an earlier round has no result (unless force)."""
    store.index(ar)
    ms = S.build(ar, ev, rnd - 1)
    open_ = [m for m in ms.values() if not complete(ev, m)]
    if open_ and not force:
        m = open_[0]
        raise BadInput("round %d table %d has %d counted hand(s)%s: the standings are not "
                       "final (%d such match(es)); --force draws anyway, `event result` enters "
                       "a result by hand" % (m.rnd, m.table_no, len(m.counted),
                                             "" if m.table_id else ", not started", len(open_)))
    return [r.pid for r in S.table(ev, ms)]


def complete(ev, m) -> bool:
    """A match whose result stands: entered by hand, or hands counted, none
    in play, and as many as the match length asks (fewer in a timed match:
    the time ran out)."""
    if m.paper:
        return True
    n = len(m.counted)
    return n > 0 and not m.pending and (not ev.hands or n >= ev.hands or bool(ev.minutes))


def meets(history):
    met = seating.met_pairs(history)
    return lambda a, b: met.get((a, b) if a < b else (b, a), 0)


def note(ev, history, rnd, tables, club, active, kept="") -> str:
    """The repeat meetings of the round drawn and of the rounds so far (and
    whether no draw could have fewer), the winds, the club-mates, the
    stand-ins."""
    rep = seating.repeats(list(tables.values()), meets(history))
    after = dict(history)
    after[rnd] = tables
    total = seating.extra_meetings(after)
    floor = seating.fewest_possible(len(active), ev.seats, len(after))
    winds = seating.wind_repeats(after, ev.seats)
    span = "round 1" if len(after) == 1 else "rounds 1-%d" % len(after)
    out = ["%d repeat meeting(s), %d in %s%s" % (
        rep, total, span, " (the fewest there can be)" if total and total == floor else ""),
        "winds balanced" if not winds else "%d wind(s) sat twice in a block" % winds]
    pairs = seating.club_pairs(tables, club)
    fewest, big = seating.fewest_club_pairs(active, club, len(tables))
    if not pairs:
        out.append("club-mates apart")
    elif pairs == fewest:
        out.append("%d club pair(s) at one table, the fewest there can be (%s)" % (
            pairs, ", ".join("%s: %d players for %d tables" % (c, k, len(tables))
                             for c, k in big)))
    elif kept:
        out.append("%d club pair(s) at one table (the fewest there can be: %d): %s" % (
            pairs, fewest, kept))
    else:
        out.append("%d club pair(s) at one table (the fewest there can be: %d): not kept "
                   "apart where that meant a repeat meeting or a wind sat twice" % (pairs, fewest))
    short = [t for t, ps in sorted(tables.items()) if any(eventfile.is_standin(p) for p in ps)]
    if short:
        out.append("short a player (a stand-in plays the seat): table%s %s" % (
            "s" if len(short) > 1 else "", ", ".join(str(t) for t in short)))
    return "; ".join(out)


_LINE = re.compile(r"^\s*(?:(\d+)\s*[:.]\s*)?(.*?)\s*$")


def parse_manual(text: str, ev, rnd: int, active: list) -> dict:
    """The tables of a manual seating file (this module's docstring);
    BadInput naming the line."""
    tables: dict = {}
    seen: dict = {}
    k = 0
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        m = _LINE.match(line)
        if not m.group(2):
            continue
        k += 1
        t = int(m.group(1)) if m.group(1) else k
        pids = m.group(2).replace(",", " ").split()
        where = "seating file line %d" % n
        if t != k:
            raise BadInput("%s: table %d, expected table %d (tables 1, 2, ... in order)"
                           % (where, t, k))
        if len(pids) != ev.seats:
            raise BadInput("%s: %d seats given, a table has %d" % (where, len(pids), ev.seats))
        if pids.count("-") > 1:
            raise BadInput("%s: a table may be short one player, not %d" % (where,
                                                                            pids.count("-")))
        row = []
        for pid in pids:
            if pid == "-":
                row.append("%s%d" % (eventfile.STANDIN, sum(
                    1 for ps in tables.values() for p in ps if eventfile.is_standin(p)) + 1))
                continue
            if pid not in active:
                raise BadInput("%s: %s does not play round %d of %s" % (where, pid, rnd, ev.eid))
            if pid in seen:
                raise BadInput("%s: %s is seated on line %d already" % (where, pid, seen[pid]))
            seen[pid] = n
            row.append(pid)
        tables[t] = row
    left = [p for p in active if p not in seen]
    if left:
        raise BadInput("seating file: %d player(s) of round %d have no seat: %s"
                       % (len(left), rnd, ", ".join(left[:8])))
    if len(tables) != eventfile.tables_for(len(active), ev.seats):
        raise BadInput("seating file: %d tables for %d players (tables of %d, a table short "
                       "one player at most)" % (len(tables), len(active), ev.seats))
    return tables

"""Standings: per match, per round and over the event, from the archive.

A match's hands are its table's logs with ids above the match's after_log,
up to the next match's on that table (store.bounds). A log pulled twice (in
play, then whole) is one hand: the copy with an end-of-hand record, the
longest, counts. Only hands with the table's end-of-hand record count
(a hand in play or cut short has no result), and only those that stand by
the archive's policy (mjtable.archive.admit): sealed with the table key, or
accepted by name by a referee (HandRow.accepted: marked wherever it
counts); hands past the match length are listed and not counted.

Match: raw points = the sum of a seat's hand results (table points, the
T_END record), or the result a referee entered by hand for a table whose
hardware failed (then its logged hands are not counted), plus the
referees' raw corrections (a correction alone plays no match: one entered
before the match has started applies once it is played); placing by raw points;
tied seats share their placements' points ("split") or the seat order
decides ("seat"). Event: placement points (plus placement corrections),
then the event's tie-breaks (eventfile), then the player id.
Numbers: raw points are ints; placement points may be fractions when
split, kept as floats rounded to 1e-9 and printed with up to 2 decimals.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from mjtable.event import store


@dataclass
class HandRow:
    row: int  # the archive's hand id
    table_id: str
    log_id: int
    points: list  # each seat's result (table points)
    t0: int  # ms on the table's clock
    dur: int  # ms
    seal: str
    counted: bool = True
    accepted: str = ""  # the referee who took it by name (unsealed or unchecked), else ""
    reason: str = ""


@dataclass
class Match:
    rnd: int
    table_no: int
    table_id: str
    pids: list  # per seat
    hands: list = field(default_factory=list)  # HandRow, counted or not
    pending: int = 0  # logs without a result (in play, cut short)
    started_at: int = 0
    raw_table: list = field(default_factory=list)  # per seat, as the table recorded
    raw: list = field(default_factory=list)  # per seat, corrected
    place: list = field(default_factory=list)  # 1-based, per seat
    pp: list = field(default_factory=list)  # placement points per seat
    corrections: list = field(default_factory=list)
    paper: tuple = ()  # the result entered by hand (store.papers' row), if any

    @property
    def counted(self) -> list:
        return [h for h in self.hands if h.counted]

    @property
    def accepted(self) -> list:
        """The counted hands a referee took by name."""
        return [h for h in self.counted if h.accepted]


def _round(x: float) -> float:
    return round(x + 0.0, 9)


def build(ar, ev, upto: int | None = None) -> dict:
    """{(round, table_no): Match} of every round drawn (up to `upto`)."""
    seats = store.all_seats(ar, ev.eid)
    ms = {(m[0], m[1]): m for m in store.matches(ar, ev.eid)}
    bounds = store.bounds(ar)
    rows = store.hands_of(ar, [m[2] for m in ms.values()])
    by_table: dict = {}
    for r in rows:
        by_table.setdefault(r[1], []).append(r)
    corr = store.corrections(ar, ev.eid)
    paper = {(p[1], p[2]): p for p in store.papers(ar, ev.eid)}  # the latest of each stands
    out: dict = {}
    for rnd, tables in seats.items():
        if upto is not None and rnd > upto:
            continue
        for tno, pids in tables.items():
            m = ms.get((rnd, tno))
            mt = Match(rnd, tno, m[2] if m else "", pids, started_at=m[7] if m else 0)
            if m is not None:
                _hands(mt, by_table.get(m[2], []), m[3], bounds.get(m[2], []), m[4])  # its length
            mt.paper = paper.get((rnd, tno), ())
            for h in mt.hands if mt.paper else ():
                h.counted = False  # the result entered by hand stands for the whole match
            _result(mt, ev, [c for c in corr if c[1] == rnd and c[2] in pids])
            out[(rnd, tno)] = mt
    return out


def _hands(mt: Match, rows: list, after: int, bounds: list, limit: int) -> None:
    i = bisect.bisect_right(bounds, after)
    upper = bounds[i] if i < len(bounds) else None
    best: dict = {}
    for r in rows:
        lid = r[2]
        if lid <= after or upper is not None and lid > upper:
            continue
        key = (_stands(r), r[3])  # a copy with a result that stands first, then the longest
        if lid not in best or key > best[lid][0]:
            best[lid] = (key, r)
    for lid in sorted(best):
        r = best[lid][1]
        if not _stands(r):
            mt.pending += 1
            continue
        h = HandRow(r[0], r[1], r[2], [int(v) for v in r[4].split(",")], r[5], r[6], r[7],
                    accepted=r[9] or "", reason=r[10] or "")
        h.counted = not limit or len(mt.counted) < limit
        mt.hands.append(h)


def _stands(r) -> bool:
    """A hand row (store.hands_of) with a result that counts: the table's
    end-of-hand record, under its seal or taken by name."""
    return r[4] != "" and (r[7] == "valid" or r[9] is not None)


def _result(mt: Match, ev, corr: list) -> None:
    np = len(mt.pids)
    raw = list(mt.paper[3]) if mt.paper else [0] * np
    for h in mt.counted:
        for s in range(np):
            raw[s] += h.points[s] if s < len(h.points) else 0
    mt.raw_table = list(raw)
    pp_corr = [0.0] * np
    for c in corr:
        s = mt.pids.index(c[2])
        if c[3] == "raw":
            raw[s] += int(c[4])
        else:
            pp_corr[s] += c[4]
    mt.corrections = corr
    mt.raw = raw
    played = bool(mt.counted) or bool(mt.paper)  # a correction alone plays no match
    if not played:
        mt.place = [0] * np
        mt.pp = [_round(v) for v in pp_corr]
        return
    order = sorted(range(np), key=lambda s: (-raw[s], s))
    place = [0] * np
    pp = [0.0] * np
    i = 0
    while i < np:
        j = i + 1
        if ev.match_ties == "split":
            while j < np and raw[order[j]] == raw[order[i]]:
                j += 1
        share = sum(ev.placement_points[i:j]) / (j - i)
        for k in range(i, j):
            place[order[k]] = i + 1
            pp[order[k]] = share
        i = j
    mt.place = place
    mt.pp = [_round(pp[s] + pp_corr[s]) for s in range(np)]


@dataclass
class Row:
    pid: str
    pp: float = 0.0
    raw: int = 0
    firsts: int = 0
    best: int | None = None
    matches: int = 0
    rounds: dict = field(default_factory=dict)  # round -> Match
    seat: dict = field(default_factory=dict)  # round -> seat
    corrected: list = field(default_factory=list)  # corrections of this player
    rank: int = 0
    decided_by: str = ""  # what put the player above the next one


def table(ev, matches: dict) -> list:
    """The event's standings (Row, best first) from build()'s matches."""
    rows = {p.pid: Row(p.pid) for p in ev.players}
    for (rnd, _t), mt in sorted(matches.items()):
        for s, pid in enumerate(mt.pids):
            r = rows.get(pid)
            if r is None:  # a stand-in: plays the seat, in no standing
                continue
            r.rounds[rnd] = mt
            r.seat[rnd] = s
            r.pp = _round(r.pp + mt.pp[s])
            r.corrected += [c for c in mt.corrections if c[2] == pid]
            if mt.place[s]:
                r.raw += mt.raw[s]
                r.matches += 1
                r.firsts += mt.place[s] == 1
                r.best = mt.raw[s] if r.best is None else max(r.best, mt.raw[s])
    ranked = _rank(list(rows.values()), ev.tiebreaks)
    return ranked


def _h2h(group: list) -> dict:
    """Placings won minus lost against the others of the group, in shared matches."""
    ids = {r.pid for r in group}
    score = {r.pid: 0 for r in group}
    for r in group:
        for rnd, mt in r.rounds.items():
            me = mt.place[r.seat[rnd]]
            if not me:
                continue
            for s, q in enumerate(mt.pids):
                if q != r.pid and q in ids and mt.place[s]:
                    score[r.pid] += (me < mt.place[s]) - (me > mt.place[s])
    return score


_KEYS = {"raw_points": lambda r: r.raw, "firsts": lambda r: r.firsts,
         "best_match": lambda r: r.best if r.best is not None else -(10 ** 9)}


def _rank(rows: list, tiebreaks: list) -> list:
    """Order by placement points, each tie-break in turn, then player id;
    each row's decided_by names the criterion that separated it from the next."""
    groups = [(sorted(rows, key=lambda r: r.pid), "")]  # (members, what ends the group)
    for crit in ["placement_points"] + list(tiebreaks):
        nxt: list = []
        for g, end in groups:
            if len(g) == 1:
                nxt.append((g, end))
                continue
            if crit == "placement_points":
                val = {r.pid: r.pp for r in g}
            elif crit == "head_to_head":
                val = _h2h(g)
            else:
                val = {r.pid: _KEYS[crit](r) for r in g}
            g = sorted(g, key=lambda r: -val[r.pid])
            k = 0
            while k < len(g):
                j = k + 1
                while j < len(g) and val[g[j].pid] == val[g[k].pid]:
                    j += 1
                nxt.append((g[k:j], crit if j < len(g) else end))
                k = j
        groups = nxt
    out: list = []
    for g, end in groups:
        for k, r in enumerate(g):
            r.decided_by = "player id" if k < len(g) - 1 else end
            out.append(r)
    for i, r in enumerate(out):
        r.rank = i + 1
    return out


def document(ar, eid: str, upto: int | None = None) -> dict:
    """The standings of event `eid` after round `upto` (default: the last
    started) as the JSON document of `event standings --json`: the one call
    another view (the live page) needs. Indexes new hands first."""
    from mjtable.event import sheets

    ev = store.load_event(ar, eid)
    store.index(ar)
    if upto is None:
        upto = max((m[0] for m in store.matches(ar, ev.eid)), default=0)
    ms = build(ar, ev, upto)
    return sheets.standings_data(ev, upto, ms, table(ev, ms), store.corrections(ar, ev.eid))


def for_live(path) -> dict | None:
    """The event page's standings (mjtable.live.standings): the newest event
    in the archive at `path` as {"title", "columns", "rows"}, or None when it
    holds no event (the page then shows the table seats' totals)."""
    from mjtable import archive
    from mjtable.event import sheets

    ar = archive.open_archive(path, create=True)  # document() indexes new hands
    try:
        store.ensure(ar)
        row = ar.db.execute("SELECT id FROM ev_events ORDER BY created_at DESC, id LIMIT 1"
                            ).fetchone()
        if row is None:
            return None
        d = document(ar, row[0])
    finally:
        ar.close()
    rows = [[r["rank"], "%s %s" % (r["name"], r["latin"]), r["club"],
             sheets.num(r["placement_points"]), sheets.signed(r["raw_points"]),
             ("*" if r["corrections"] else "") + ("\u2020" if r["marks"] else "")]
            for r in d["standings"]]
    return {"title": "%s: standings after round %d" % (d["name"], d["after_round"]),
            "columns": ["rank", "player", "club", "placement points", "raw points",
                        "corrected (*) or not from sealed logs alone (\u2020)"],
            "rows": rows}

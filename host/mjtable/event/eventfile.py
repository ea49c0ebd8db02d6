"""The event file (TOML): what a head referee writes before the event.

    [event]
    id = "cd2026"                  # short id the commands take (--event)
    name = "2026 成都四川麻将竞技赛"
    dates = ["2026-12-05", "2026-12-06"]
    ruleset = "tfmj-2024"          # preset, or a rule file (relative to this file)
    hands_per_match = 8            # and/or minutes_per_match; at least one
    minutes_per_match = 50         # kept by the table: after it, the hand in play is the last
    rounds = 8
    seed = 20261205                # the first round's random draw
    placement_points = [4, 2, 1, 0]
    match_ties = "split"           # tied seats share their placements' points ("split")
                                   # or the seat order decides ("seat")
    tiebreaks = ["raw_points", "head_to_head", "firsts"]

    [[players]]
    id = "P001"
    name = "张伟"                  # 汉字
    latin = "Zhang Wei"            # pinyin or latin letters
    club = "成都一队"

Event standings rank by placement points, then by each tie-break in order:
raw_points (the sum of the player's match results, table points),
head_to_head (among the tied players: placements won minus lost against each
other in the matches where they met), firsts (matches won), best_match (the
player's best match result); last of all the player id, so a ranking is
always total and the same on every laptop.
Bad input is a BadInput naming the file and the key.
"""

from __future__ import annotations

import datetime
import os
import re
import tomllib
from dataclasses import dataclass, field

from sichuan import ruleset as R

from mjtable import BadInput
from mjtable.rules import rulefile

TIEBREAKS = ("raw_points", "head_to_head", "firsts", "best_match")
REQUIRED = ("id", "name", "ruleset", "rounds", "placement_points")  # [event] keys with no default
STANDIN = "~"  # a stand-in seat's id: "~1", "~2" (never a player's: ids are [A-Za-z0-9_.-])
_KIND = {int: "a whole number", str: "text", list: "a list", bool: "true or false"}
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
_EVENT_KEYS = {"id", "name", "dates", "ruleset", "hands_per_match", "minutes_per_match",
               "rounds", "seed", "placement_points", "match_ties", "tiebreaks"}
_PLAYER_KEYS = {"id", "name", "latin", "club"}


@dataclass
class Player:
    pid: str
    name: str  # 汉字
    latin: str  # pinyin / latin letters
    club: str = ""
    first: int = 1  # the first round the player plays (a substitute's, a late one's)
    stop: int = 0  # the first round the player no longer plays (0: none; a drop's, a sub's)
    sub_for: str = ""  # the player this one substitutes for

    def plays(self, rnd: int) -> bool:
        return self.first <= rnd and (not self.stop or rnd < self.stop)


def is_standin(pid: str) -> bool:
    return pid.startswith(STANDIN)


def standin(pid: str) -> Player:
    """The stand-in of a table short a player: plays the seat, in no standing."""
    return Player(pid, "替补", "stand-in", "")

@dataclass
class Event:
    eid: str
    name: str
    dates: list
    ruleset_spec: str
    rs: object  # sichuan Ruleset
    hands: int  # 0: no hand limit (time only)
    minutes: int  # 0: no time limit
    rounds: int
    seed: int
    placement_points: list
    match_ties: str
    tiebreaks: list
    players: list = field(default_factory=list)
    source: str = ""  # the file's text, kept in the database

    @property
    def seats(self) -> int:
        return self.rs[R.P_PLAYERS]

    @property
    def tables(self) -> int:
        """Round 1's tables (a table short a player has a stand-in)."""
        return tables_for(len(self.active(1)), self.seats)

    def active(self, rnd: int) -> list:
        """The players of round rnd (substitutes and drops applied)."""
        return [p for p in self.players if p.plays(rnd)]

    def player(self, pid: str) -> Player:
        if is_standin(pid):
            return standin(pid)
        for p in self.players:
            if p.pid == pid:
                return p
        raise BadInput("event %s has no player %r" % (self.eid, pid))


def check_player_id(pid: str, where: str) -> None:
    if not isinstance(pid, str) or not _ID.match(pid):
        raise BadInput("%s %r: letters, digits, '_.-', at most 32" % (where, pid))


def tables_for(n: int, np: int) -> int:
    return -(-n // np)


def check_count(n: int, np: int, where: str) -> None:
    """n players fill tables of np, a table short at most one player (a stand-in)."""
    t = tables_for(n, np)
    if n < np - 1 or t * np - n > t:
        raise BadInput("%s: %d player(s): tables of %d seat %d to %d of them (a table may be "
                       "short one player, who is played by a stand-in)"
                       % (where, n, np, np * t - t if n >= np else np - 1, np * t))


def load(path: str) -> Event:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    return parse(raw.decode("utf-8", "replace"), path)


def parse(text: str, where: str = "event file") -> Event:
    """The Event of an event file's text; BadInput names `where` and the key."""
    try:
        d = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput("%s: not valid TOML: %s" % (where, e)) from None
    unknown = set(d) - {"event", "players"}
    if unknown:
        raise BadInput("%s: unknown section(s) %s" % (where, ", ".join(sorted(unknown))))
    ev = d.get("event")
    if not isinstance(ev, dict):
        raise BadInput("%s: no [event] section" % where)
    bad = set(ev) - _EVENT_KEYS
    if bad:
        raise BadInput("%s: [event] unknown key(s) %s" % (where, ", ".join(sorted(bad))))

    def need(key, kind, default=None):
        v = ev.get(key, default)
        if v is None:
            raise BadInput("%s: [event] %s is missing" % (where, key))
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            raise BadInput("%s: [event] %s: %r is not %s" % (where, key, v, _KIND[kind]))
        return v

    eid = need("id", str)
    if not _ID.match(eid):
        raise BadInput("%s: [event] id %r: letters, digits, '_.-', at most 32" % (where, eid))
    spec = need("ruleset", str)
    if spec.endswith((".toml", ".bin")) and not os.path.isabs(spec) and os.path.isfile(where):
        spec = os.path.join(os.path.dirname(os.path.abspath(where)), spec)
    rs = rulefile.load(spec)
    hands = need("hands_per_match", int, 0)
    minutes = need("minutes_per_match", int, 0)
    if not 0 <= hands <= 999 or not 0 <= minutes <= 1000 or hands == minutes == 0:
        raise BadInput("%s: [event] give hands_per_match (1..999) and/or minutes_per_match "
                       "(1..1000)" % where)
    if hands > rs[R.P_HANDS]:  # the table ends a match at the ruleset's length
        raise BadInput("%s: [event] hands_per_match %d: the ruleset %s plays %d-hand matches "
                       "(a rule file with hands = %d)" % (where, hands, rs.name, rs[R.P_HANDS],
                                                          hands))
    rounds = need("rounds", int)
    if not 1 <= rounds <= 99:
        raise BadInput("%s: [event] rounds: %d, expected 1..99" % (where, rounds))
    np = rs[R.P_PLAYERS]
    pp = need("placement_points", list)
    if len(pp) != np or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                for v in pp):
        raise BadInput("%s: [event] placement_points: %d numbers, one per place (%r)"
                       % (where, np, pp))
    ties = need("match_ties", str, "split")
    if ties not in ("split", "seat"):
        raise BadInput("%s: [event] match_ties: %r, expected \"split\" or \"seat\"" % (where, ties))
    tb = need("tiebreaks", list, ["raw_points", "head_to_head"])
    for t in tb:
        if t not in TIEBREAKS:
            raise BadInput("%s: [event] tiebreaks: unknown %r (known: %s)"
                           % (where, t, ", ".join(TIEBREAKS)))
    dates = need("dates", list, [])
    for x in dates:
        if not isinstance(x, (str, datetime.date)):
            raise BadInput("%s: [event] dates: %r is not a date" % (where, x))
        try:
            datetime.date.fromisoformat(str(x))
        except ValueError:
            raise BadInput("%s: [event] dates: %r is not YYYY-MM-DD" % (where, x)) from None
    e = Event(eid, need("name", str), [str(x) for x in dates], spec, rs, hands, minutes,
              rounds, need("seed", int, 0), list(pp), ties, list(tb), source=text)
    e.players = _players(d.get("players", []), where, np)
    return e


def _players(rows, where: str, np: int) -> list:
    if not isinstance(rows, list):
        raise BadInput("%s: players must be [[players]] tables" % where)
    out: list = []
    seen: set = set()
    for i, p in enumerate(rows):
        at = "%s: player %d" % (where, i + 1)
        if not isinstance(p, dict):
            raise BadInput("%s: not a table" % at)
        bad = set(p) - _PLAYER_KEYS
        if bad:
            raise BadInput("%s: unknown key(s) %s" % (at, ", ".join(sorted(bad))))
        for k in ("id", "name", "latin"):
            if not isinstance(p.get(k), str) or not p[k].strip():
                raise BadInput("%s: %s is missing or empty" % (at, k))
        check_player_id(p["id"], "%s: id" % at)
        if p["id"] in seen:
            raise BadInput("%s: id %r given twice" % (at, p["id"]))
        seen.add(p["id"])
        club = p.get("club", "")
        if not isinstance(club, str):
            raise BadInput("%s: club is not text" % at)
        out.append(Player(p["id"], p["name"].strip(), p["latin"].strip(), club.strip()))
    check_count(len(out), np, where)
    return out


def apply(ev: Event, changes) -> None:
    """The people's changes (store.changes: (id, kind, pid, round, data, ...),
    in the order made) on the players of the event file: a late
    registration (add), a drop and a substitute from a round on, a name
    corrected. The file itself is never edited."""
    for _cid, kind, pid, rnd, data, *_ in changes:
        if kind == "add":
            ev.players.append(Player(pid, data["name"], data["latin"], data.get("club", ""),
                                     first=rnd))
        elif kind == "drop":
            ev.player(pid).stop = rnd
        elif kind == "sub":
            ev.player(data["for"]).stop = rnd
            ev.players.append(Player(pid, data["name"], data["latin"], data.get("club", ""),
                                     first=rnd, sub_for=data["for"]))
        elif kind == "name":
            p = ev.player(pid)
            for k in ("name", "latin", "club"):
                if k in data:
                    setattr(p, k, data[k])

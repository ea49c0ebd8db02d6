"""The hand as a broadcast shows it, rebuilt from the table's log records.

A HandModel takes the records the table writes (table/hostcmds.py: T_HEAD the
sichuan.handlog header, T_ACT one action and its payments, T_ALERT, T_END)
one by one, replays every action through the rules core (sichuan.game, the
table's own engine), and gives a snapshot: a JSON-ready dict the pages draw.
The same model serves the live link and an archived hand's replay.

Snapshot (faces are 0..26: suit f // 9 = 万 筒 条, rank f % 9 + 1):
    {"rules": "xuezhan", "phase": "discard", "turn": 1, "dealer": 0,
     "wall": 55, "records": 37, "actions": 35, "over": false, "np": 4,
     "seats": [{"seat": 0, "hand": [0, 0, 4, ...] | null, "count": 13,
                "drawn": 7 | -1, "melds": [{"kind": "peng", "face": 3}],
                "discards": [{"face": 3, "claimed": true}], "void": 0..2 | -1,
                "delta": -4, "total": -12, "won": false, "left": false,
                "prompt": ["hu", "peng"], "alerts": [{"code": 1, ...}],
                "wins": [{"fan": 3, "shown": 3, "flags": ["自摸"], "from": -1, "face": 5,
                          "patterns": [{"id": "qingyise", "name": "清一色", "fan": 2}]}],
                "waits": [{"face": 4, "left": 2, "fan": 1, "patterns": ["平胡"]}] | null}],
     "claim": {"face": 12, "from": 2, "rob": false, "may": {"1": ["peng"]}} | null,
     "pays": [{"key": "h7.12.0", "payer": 1, "payee": 0, "amount": 2,
               "why": "gang_an", "why_zh": "暗杠 下雨"}],
     "wins": [{"seat": 0, "fan": 3, "flags": ["自摸"], "from": -1, "face": 5}],
     "checks": [{"seat": 2, "status": "ready", "status_zh": "听牌", "fan": 2}],
     "last": {"kind": "discard", "seat": 1, "face": 13 | -1},
     "ticker": [["discard", 1, 13, -1], ["peng", 2, 13, 1], ...], "error": ""}
"hand" is null when the view hides concealed tiles (spectators); "count"
stays. "pays" and "wins" are those of the last action, each payment with a key
unique in the hand so a page animates it once; a seat's "wins" are every win
it has made this hand (血流成河: more than one), each with its fan as the
engine counts them (doublings: 0 is 平胡), as the ruleset shows them
("shown"), its flags and its patterns; "checks" is the 流局 verdict
(查花猪/查大叫) of each seat checked, once the wall is empty. A seat's
"waits" are its 下叫 (waits.py: each face, the copies still in the wall, the
fan shown a win on it by discard would score), null when it is not ready.
"ticker" is every action of the hand so far but the passes: [kind, seat,
face or -1, the seat whose tile was claimed or -1].
"""

from __future__ import annotations

import struct

from sichuan import game as G
from sichuan import handlog, meld
from sichuan.claims import C_FEI, C_GANG, C_HU, C_PENG, ST_LEFT, ST_WON
from sichuan.settle import EV_ACCEPTED, EV_CHECK, EV_PAY, EV_WIN

from mjtable.live import waits
from mjtable.logs import hands
from mjtable.logs.logfmt import T_ACT, T_ALERT, T_END, T_HEAD, T_SEAL
from mjtable.referee import winfmt
from mjtable.rules import names

ALERT_NAMES = ("none", "void-suit discard", "out of turn", "unknown tag", "tile in two places",
               "fifth copy", "wrong tile count", "claim refused", "flash full", "reader fault")
KEY_ALERTS = (2, 7)  # raised by a key press: they clear by themselves after 3 s
CLAIMS = ((C_HU, "hu"), (C_PENG, "peng"), (C_GANG, "gang"), (C_FEI, "fei"))


HIDDEN_FACES = ("draw", "deal", "exchange")  # actions whose tile a spectator does not see


class Mismatch(Exception):
    """The records do not replay (a record lost or doubled): the caller resyncs."""


class HandModel:
    """One hand, fed record by record. rules(crc) -> Ruleset or None."""

    def __init__(self, rules, hand_id=0, before=None):
        self.rules = rules
        self.hand_id = hand_id
        self.before = list(before or [])  # each seat's points before this hand
        self.head = b""
        self.game = None
        self.rs = None
        self.records = 0  # records fed (the page's version within the hand)
        self.actions = 0
        self.over = False
        self.end_points = None
        self.alerts: list = []  # (seat, code, reason, action index when raised)
        self.pays: list = []
        self.wins: list = []
        # Snapshots share these lists, and a delayed view sends a snapshot
        # seconds later: a list a snapshot holds is never changed after it is
        # taken (a new list replaces it), or the delayed view would carry
        # what the table did since (issue 43)
        self.seat_wins: list = []  # per seat, every win this hand
        self.checks: list = []
        self.ticker: list = []  # every action but the passes: [kind, seat, face, from]
        self.last = None  # the last action: {"kind", "seat", "face" (-1: none shown)}
        self.error = ""
        self.broken = False

    # --- feeding ---

    def feed(self, rtype: int, payload: bytes) -> None:
        """One record; Mismatch if it cannot follow the ones before. After a
        mismatch every record is refused (a later action may be legal in the
        stale state and draw a wrong picture): the caller reads the hand again."""
        if self.broken:
            raise Mismatch("waiting for the hand to be read again")
        try:
            self._feed(rtype, payload)
        except Mismatch as e:
            self.broken = True
            self.error = "out of step with the table (%s): reading the hand again" % e
            raise

    def _feed(self, rtype: int, payload: bytes) -> None:
        self.records += 1
        if rtype == T_HEAD:
            self._head(bytes(payload))
        elif self.game is None:
            return  # a hand under a ruleset we could not find: nothing to draw
        elif rtype == T_ACT:
            self._act(bytes(payload))
        elif rtype == T_ALERT and len(payload) >= 3:
            self.alerts.append((payload[0], payload[1], payload[2], self.actions))
        elif rtype == T_END:
            pts = list(struct.unpack("<%dh" % (len(payload) // 2), payload))
            self.end_points = pts
            self.over = True
            if pts[: self.game.np] != list(self.game.delta):
                raise Mismatch("the table's points %s, the replay's %s"
                               % (pts, list(self.game.delta)))

    def _head(self, data: bytes) -> None:
        head, _ = handlog.decode(data)
        self.head = data
        self.rs = self.rules(head[0])
        if self.rs is None:
            self.error = "ruleset CRC %08X is unknown here" % head[0]
            return
        self.game = G.Game(self.rs, head[2], head[3])
        if len(self.before) < self.game.np:
            self.before += [0] * (self.game.np - len(self.before))
        self.seat_wins = [[] for _ in range(self.game.np)]

    def _act(self, data: bytes) -> None:
        try:
            _, recs = handlog.decode(self.head + data)
        except ValueError as e:
            raise Mismatch(str(e)) from None
        self.pays = []
        self.wins = []
        g = self.game
        for r in recs:
            if r[0] != handlog.REC_ACTION:
                continue
            told = self._told(r[1])
            evs = g.apply(r[1])
            if evs[0][0] != EV_ACCEPTED:
                raise Mismatch("action %s refused by the replay" % hands.fmt_action(r[1]))
            self.actions += 1
            kind, seat, arg, _t = r[1]
            face = arg if isinstance(arg, int) and 0 <= arg < 27 else -1
            name = names.ACTION_NAMES[kind] if kind < len(names.ACTION_NAMES) else str(kind)
            self.last = {"kind": name, "seat": seat, "face": face}
            if kind != G.PASS:
                self.ticker = self.ticker + [[name, seat] + told]
            for i, e in enumerate(evs):
                if e[0] == EV_PAY:
                    why = names.PAY_NAMES[e[4]] if e[4] < len(names.PAY_NAMES) else str(e[4])
                    zh = names.PAY_ZH[e[4]] if e[4] < len(names.PAY_ZH) else why
                    self.pays.append({"key": "h%d.%d.%d" % (self.hand_id, self.actions, i),
                                      "payer": e[1], "payee": e[2], "amount": e[3],
                                      "why": why, "why_zh": zh})
                elif e[0] == EV_WIN:
                    w = self._win(e)
                    self.wins.append(dict(w, seat=e[1]))
                    self.seat_wins[e[1]] = self.seat_wins[e[1]] + [w]
                elif e[0] == EV_CHECK:
                    self.checks = self.checks + [{
                        "seat": e[1], "status": names.CHECK_NAMES[e[2]],
                        "status_zh": names.CHECK_ZH[e[2]], "fan": e[3]}]

    def _told(self, a) -> list:
        """[face, from] the ticker tells of action a, from the game before it:
        a claim's tile and whose it was, a 自摸's tile, else the action's face."""
        g = self.game
        kind, _seat, arg = a[0], a[1], a[2]
        if kind in (G.PENG, G.ZHIGANG, G.HU, G.FEI) and G.claim_open(g.phase) and g.pend >= 0:
            return [g.pend, g.pseat]
        if kind == G.HU:
            return [g.drawn, -1]
        return [arg if isinstance(arg, int) and 0 <= arg < 27 else -1, -1]

    def _win(self, e) -> dict:
        """A win (EV_WIN) as the seat keeps it: its fan as counted and as
        shown, how it was made, and the patterns it counts."""
        return {"fan": e[2], "shown": winfmt.shown(self.rs, e[2]),
                "flags": names.flags_of(e[3], zh=True), "from": e[4], "face": e[5],
                "patterns": self._patterns(e)}

    def _patterns(self, e) -> list:
        """[{"id", "name", "fan"}] of the patterns a win counts (the ruleset's own
        house patterns named as its file names them, a 根 counted as the waits
        count it: 根×2), [] if they cannot be told."""
        pats = winfmt.win_patterns(self.game, e) or {}
        return [{"id": p, "name": winfmt.pattern_label(p, v, self.rs), "fan": v}
                for p, v in pats.items()]

    # --- drawing ---

    def snapshot(self) -> dict:
        g = self.game
        if g is None:
            return {"rules": "", "phase": "none", "np": 0, "seats": [], "claim": None,
                    "pays": [], "wins": [], "checks": [], "ticker": [], "records": self.records,
                    "actions": 0,
                    "over": self.over,
                    "last": None, "error": self.error, "wall": 0, "turn": -1, "dealer": -1}
        seats = [self._seat(s) for s in range(g.np)]
        return {"rules": self.rs.name, "phase": names.PHASE_NAMES[g.phase], "turn": g.turn,
                "dealer": g.dealer, "wall": g.wall, "np": g.np, "seats": seats,
                "claim": self._claim(), "pays": self.pays, "wins": self.wins,
                "checks": self.checks, "ticker": self.ticker,
                "records": self.records, "actions": self.actions, "over": self.over,
                "last": self.last,
                "error": self.error}

    def _seat(self, s: int) -> dict:
        g = self.game
        tiles = [f for f in range(27) for _ in range(g.hand[s][f])]
        drawn = -1
        if s == g.turn and g.phase == G.PH_DISCARD and g.drawn >= 0 and g.drawn in tiles:
            drawn = g.drawn  # shown apart, as the tile just drawn lies on the tray
            tiles.remove(drawn)
        melds = [{"kind": names.KIND_NAMES[meld.kind(m)], "face": meld.face(m)}
                 for m in g.meld_list(s)]
        discards = [{"face": g.disc[i] & 0x7F, "claimed": bool(g.disc[i] & 0x80)}
                    for i in range(g.ndisc) if g.dseat[i] == s]
        mask = g.prompt_mask(s)
        alerts = [{"code": c, "name": ALERT_NAMES[c] if c < len(ALERT_NAMES) else str(c),
                   "reason": names.REASONS[r] if r < len(names.REASONS) else str(r),
                   "key": "h%d.a%d" % (self.hand_id, i), "by_key": c in KEY_ALERTS}
                  for i, (seat, c, r, at) in enumerate(self.alerts)
                  if seat == s and at == self.actions and not self.over]
        return {"seat": s, "name": hands.SEAT_NAMES[s], "hand": tiles, "count": len(tiles),
                "drawn": drawn, "melds": melds, "discards": discards,
                "void": g.void[s] if g.void[s] < 3 else -1, "delta": g.delta[s],
                "total": self.before[s] + g.delta[s], "won": bool(g.status[s] & ST_WON),
                "left": bool(g.status[s] & ST_LEFT),
                "prompt": [n for bit, n in CLAIMS if mask & bit], "alerts": alerts,
                "wins": self.seat_wins[s], "waits": waits.seat_waits(g, s)}

    def _claim(self):
        g = self.game
        if not G.claim_open(g.phase):
            return None
        may = {}
        for s in range(g.np):
            mask = g.prompt_mask(s)
            if mask:
                may[str(s)] = [n for bit, n in CLAIMS if mask & bit]
        return {"face": g.pend, "from": g.pseat, "rob": g.phase == G.PH_ROB, "may": may}


def hide_hands(snap: dict) -> dict:
    """The snapshot a spectator gets when the event hides concealed hands: the
    counts stay, the tiles go, and so does whatever tells them (the face of a
    draw, the claim prompts); a seat that has won shows its hand, and every
    hand is shown once the hand is over."""
    if snap.get("over"):
        return snap
    out = dict(snap)
    last = snap.get("last")
    if last and last["kind"] in HIDDEN_FACES:
        out["last"] = dict(last, face=-1)  # a drawn tile is not shown either
    if snap.get("claim"):  # who may claim what would tell what they hold
        out["claim"] = dict(snap["claim"], may={})
    out["ticker"] = [[k, s, -1 if k in HIDDEN_FACES else f, frm]
                     for k, s, f, frm in snap.get("ticker", ())]
    out["seats"] = []
    for seat in snap.get("seats", []):
        if seat["won"]:
            out["seats"].append(seat)
            continue
        seat = dict(seat)
        seat["hand"] = None
        seat["prompt"] = []
        seat["waits"] = None  # they would tell the hand
        seat["drawn"] = -1 if seat["drawn"] < 0 else -2  # a tile drawn, face down
        out["seats"].append(seat)
    return out


def replay_steps(rules, records, hand_id=0) -> list:
    """Snapshots of an archived hand's records: one after the head, then one
    after each action (alerts and the end fold into the step they follow)."""
    m = HandModel(rules, hand_id)
    steps = []
    for rtype, payload in records:
        if rtype == T_SEAL:
            continue
        try:
            m.feed(rtype, payload)
        except Mismatch as e:
            m.error = str(e)
            steps.append(m.snapshot())
            break
        if rtype in (T_HEAD, T_ACT) or not steps:
            steps.append(m.snapshot())
        else:
            steps[-1] = m.snapshot()
    return steps

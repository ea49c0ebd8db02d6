"""Observations -> engine actions: what the tiles on the racks and trays say
the players did.

The observer keeps, per physical tile, where the game has accepted it to be
(`acc`): a place 0..7 (seat * 2 + antenna, table.scan), _WALL (never seen),
OUT (discarded: on no antenna), GIVE (passed in 换三张, on its way), _FREE
(no longer tracked: a winner's tiles in 血战, a won tile; it may stay on its
winners' places or leave the table, `owner`, but seen anywhere else it is
out of place). The scanner says
where each tile is (`loc`). A tile whose loc differs from what acc expects is
a discrepancy; the set of discrepancies, read against the engine's phase,
is one action, a wait (tiles still moving) or a problem:

    deal        13 (dealer 14) new tiles on a rack               DEAL
    after deal  1 new tile on the dealer's tray: the 马 (叫马)     MA
                then the 本金 (宜宾)                              BENJIN
    换三张       3 tiles leave a rack (the engine checks the suit)  EXCHANGE
    draw        1 new tile on the rack of the seat to draw       DRAW
    discard     1 tile leaves the turn seat's rack, goes nowhere DISCARD
    暗杠         4 equal tiles move rack -> tray (turn seat)       ANGANG
    补杠         1 tile moves rack -> tray next to its 碰          BUGANG
    碰/直杠      after the button and the engine's adjudication,
                the claimer owes 2 (3) tiles rack -> tray plus
                the discarded tile onto the tray ("due")         (no action)
    飞 (宜宾)    as 碰, with one real copy and one wild tile      (no action)
    提 (宜宾)    the real tile rack -> tray onto its 飞 and the
                飞's wild tray -> rack, after a draw             TI

A problem is returned as (seat, alert code, settle): settle=True means the
table may still be moving and the controller raises it only once the table
has stayed so for a while. Buttons (胡 碰 杠 过 and the suit keys) are not
seen here: the controller maps them to actions directly.
"""

from micropython import const
from sichuan import fan
from sichuan import game as G
from sichuan import meld as M
from sichuan import ruleset as R
from sichuan.claims import ST_DEALT, ST_GAVE
from sichuan.settle import EV_EXCHANGED, EV_WIN
from table import alerts
from table.scan import NOWHERE, TILES

_WALL = const(255)  # == scan.NOWHERE: never seen this hand
OUT = const(254)
GIVE = const(253)
_FREE = const(252)


def rack(s):
    return s * 2


def tray(s):
    return s * 2 + 1


class Observer:
    def __init__(self, scanner, seats=4):
        self.sc = scanner
        self.seats = seats
        self.acc = bytearray(b"\xff" * TILES)
        self.dest = bytearray(b"\xff" * TILES)  # GIVE tiles: the rack they go to
        self.owner = bytearray(TILES)  # _FREE tiles: bit s = may lie at seat s (its winners)
        self.dt = bytearray(TILES)  # discrepant tiles of the last diff
        self.nd = 0
        self.gave = bytearray(b"\xff" * (3 * seats))
        self.last_draw = bytearray(b"\xff" * seats)
        self.aside = bytearray(b"\xff" * seats)  # 血流: the won tile a seat may lay aside
        self.last_discard = NOWHERE
        self.last_bugang = NOWHERE
        self.due_seat = -1
        self.due_face = 0
        self.due_need = 0
        self.due_tile = NOWHERE
        self.due_wild = -1  # 飞: the face of the wild tile owed to the tray, or -1
        self.problem_seat = -1
        self.problem_code = 0
        self.settle = False
        self.waiting = False
        self._nmeld = bytearray(seats)

    def reset(self):
        """A new hand: every tile back in the wall."""
        for t in range(TILES):
            self.acc[t] = _WALL
            self.dest[t] = NOWHERE
            self.owner[t] = 0
        for i in range(len(self.gave)):
            self.gave[i] = NOWHERE
        for s in range(self.seats):
            self.last_draw[s] = NOWHERE
            self.aside[s] = NOWHERE
        self.last_discard = NOWHERE
        self.last_bugang = NOWHERE
        self.due_seat = -1

    # --- discrepancies --------------------------------------------------

    def _aside_copy(self, t, a, lt):
        """True if t, gone from a rack, is another copy of the face its seat won
        on in 血流: copies of a face are alike, so the one laid aside need not
        be the tile drawn. Its accounting swaps with the tile left free."""
        if lt != NOWHERE or a & 1:
            return False
        y = self.aside[a >> 1]
        if y == NOWHERE or y >> 2 != t >> 2 or self.sc.loc[y] != a:
            return False
        self.acc[y] = a
        self.acc[t] = _FREE
        self.owner[t] = self.owner[y]
        self.aside[a >> 1] = t
        return True

    def diff(self):
        """Collect the tiles not where the game expects them into dt; returns
        their number. GIVE tiles that reached their rack are settled here."""
        loc = self.sc.loc
        acc = self.acc
        dt = self.dt
        n = 0
        for t in range(TILES):
            a = acc[t]
            lt = loc[t]
            if a == _FREE:
                if lt != NOWHERE and not self.owner[t] >> (lt >> 1) & 1:
                    dt[n] = t  # a won tile back in play: on a rack as a draw, say
                    n += 1
                continue
            if a == GIVE and self.dest[t] != NOWHERE and lt == self.dest[t]:
                acc[t] = lt
                self.dest[t] = NOWHERE
                continue
            if a < 8:
                if lt != a and not self._aside_copy(t, a, lt):
                    dt[n] = t
                    n += 1
            elif lt != NOWHERE:
                dt[n] = t
                n += 1
        self.nd = n
        return n

    def transit(self):
        """Tiles passed in 换三张 not yet on their new rack."""
        for t in range(TILES):
            if self.dest[t] != NOWHERE:
                return True
        return False

    def _problem(self, seat, code, settle):
        if self.problem_seat < 0:
            self.problem_seat = seat
            self.problem_code = code
            self.settle = settle

    def _seat_of_tile(self, t):
        lt = self.sc.loc[t]
        return (lt if lt != NOWHERE else self.acc[t]) >> 1

    # --- classification ---------------------------------------------------

    def classify(self, g):
        """The action the table shows, or None. Sets problem_seat/code/settle
        when something is wrong and waiting when tiles are still moving."""
        self.problem_seat = -1
        self.problem_code = 0
        self.settle = False
        self.waiting = False
        n = self.diff()
        if self.due_seat >= 0:
            self._fulfil_due(g)
            if self.due_seat >= 0:
                self.waiting = True
                self._stray_while_due(n)
                return None
            n = self.diff()
        if n == 0:
            if self.transit():
                self.waiting = g.phase != G.PH_DINGQUE
            return None
        ph = g.phase
        if ph == G.PH_DEAL:
            return self._deal(g)
        if ph == G.PH_EXCHANGE:
            return self._exchange(g)
        if ph == G.PH_DRAW:
            return self._draw(g)
        if ph == G.PH_DISCARD:
            return self._discard(g)
        # dingque, claim windows, end: tiles moving now are early or stray
        self.waiting = True
        for i in range(n):
            t = self.dt[i]
            if self.acc[t] == GIVE and self.dest[t] != NOWHERE and self.sc.loc[t] == NOWHERE:
                continue
            self._problem(self._seat_of_tile(t), alerts.COUNT, True)
        return None

    def _stray_while_due(self, n):
        """While a 碰/直杠's tiles are owed, any other tile out of place (the
        discard back on a rack, a tile grabbed from the wall) is a problem:
        else the table would wait for the claimer with no alert."""
        s = self.due_seat
        loc = self.sc.loc
        for i in range(n):
            t = self.dt[i]
            lt = loc[t]
            owed = t >> 2 == self.due_face or t >> 2 == self.due_wild or t == self.due_tile
            if owed and (lt == tray(s) or lt == rack(s)):
                continue  # on its way to the claimer's tray
            self._problem(self._seat_of_tile(t), alerts.COUNT, True)

    def _faces(self, place, kind_acc):
        """Faces of discrepant tiles now at `place` whose acc is kind_acc."""
        out = []
        for i in range(self.nd):
            t = self.dt[i]
            if self.sc.loc[t] == place and self.acc[t] == kind_acc:
                out.append(t >> 2)
        return out

    def _deal(self, g):
        loc = self.sc.loc
        want = g.rs[R.P_HAND_SIZE]
        n = 0
        for s in range(self.seats):
            n += g.status[s] & ST_DEALT
        if n == self.seats:
            return self._turned(g)
        for i in range(self.nd):
            t = self.dt[i]
            lt = loc[t]
            if self.acc[t] != _WALL or lt & 1 or g.status[lt >> 1] & ST_DEALT:
                self._problem(self._seat_of_tile(t), alerts.COUNT, True)
        for s in range(self.seats):
            if g.status[s] & ST_DEALT:
                continue
            faces = self._faces(rack(s), _WALL)
            w = want + (1 if s == g.dealer else 0)
            if len(faces) > w:
                self._problem(s, alerts.COUNT, True)
            elif len(faces) == w and self.problem_seat < 0:
                return (G.DEAL, s, faces)
        self.waiting = True
        return None

    def _turned(self, g):
        """After the deal, the tile the 马 takes (叫马) or the 本金 turned up
        (宜宾): one new tile, laid on the dealer's tray, where it stays until
        the hand ends. The 马 comes first when a ruleset has both."""
        d = tray(g.dealer)
        new = -1
        for i in range(self.nd):
            t = self.dt[i]
            if self.acc[t] != _WALL or self.sc.loc[t] != d or new >= 0:
                self._problem(self._seat_of_tile(t), alerts.COUNT, True)
            new = t
        if self.problem_seat >= 0 or new < 0:
            self.waiting = True
            return None
        kind = G.MA if g.rs[R.P_JIAOMA] and g.ma_face < 0 else G.BENJIN
        return (kind, g.dealer, new >> 2)

    def _exchange(self, g):
        loc = self.sc.loc
        acc = self.acc
        for s in range(self.seats):
            if g.status[s] & ST_GAVE:
                continue
            faces = []
            bad = False
            for i in range(self.nd):
                t = self.dt[i]
                if acc[t] == rack(s):
                    if loc[t] == NOWHERE or (loc[t] & 1 == 0 and loc[t] != rack(s)):
                        faces.append(t >> 2)  # gone, or already on the next rack
                    else:
                        bad = True
            if bad or len(faces) > 3:
                self._problem(s, alerts.COUNT, True)
            elif len(faces) == 3 and self.problem_seat < 0:
                return (G.EXCHANGE, s, faces)
        for i in range(self.nd):
            t = self.dt[i]
            if acc[t] == _WALL or acc[t] == OUT:
                self._problem(self._seat_of_tile(t), alerts.COUNT, True)
        self.waiting = True
        return None

    def _draw(self, g):
        s = g.turn
        loc = self.sc.loc
        acc = self.acc
        new = -1
        nnew = 0
        for i in range(self.nd):
            t = self.dt[i]
            lt = loc[t]
            a = acc[t]
            if a == GIVE and lt == NOWHERE:
                self.waiting = True
                continue
            ts = self._seat_of_tile(t)
            if ts != s:
                self._problem(ts, alerts.TURN, False)
            elif a == _WALL and lt == rack(s):
                new = t
                nnew += 1
            elif (a == OUT or a == _FREE) and lt == rack(s):
                self._problem(s, alerts.FIFTH, False)
            else:
                self._problem(s, alerts.COUNT, True)
        if nnew > 1:
            self._problem(s, alerts.COUNT, False)
        if self.problem_seat >= 0 or self.waiting or new < 0:
            return None
        return (G.DRAW, s, new >> 2)

    def _discard(self, g):
        s = g.turn
        loc = self.sc.loc
        acc = self.acc
        left = -1
        nleft = 0
        moved = 0
        mface = -1
        same = True
        back = 0
        for i in range(self.nd):
            t = self.dt[i]
            lt = loc[t]
            a = acc[t]
            if a == GIVE and lt == NOWHERE:
                self.waiting = True
                continue
            ts = self._seat_of_tile(t)
            if ts != s:
                self._problem(ts, alerts.TURN, False)
            elif a == rack(s) and lt == NOWHERE:
                left = t
                nleft += 1
            elif a == rack(s) and lt == tray(s):
                moved += 1
                if mface >= 0 and mface != t >> 2:
                    same = False
                mface = t >> 2
            elif a == tray(s) and lt == rack(s):
                back += 1  # 提: the wild of a 飞 comes back to the rack
            elif a == _WALL:
                self._problem(s, alerts.COUNT, False)  # a second draw
            elif a == OUT or a == _FREE:
                self._problem(s, alerts.FIFTH, False)
            else:
                self._problem(s, alerts.COUNT, True)
        if self.problem_seat >= 0 or self.waiting:
            return None
        if self.sc.leaving(rack(s), 1):
            self.waiting = True  # another tile is being missed: read the rack again first
            return None
        if nleft == 1 and not moved and not back:
            return (G.DISCARD, s, left >> 2)
        if not nleft and moved == 4 and same and not back:
            return (G.ANGANG, s, mface)
        fei = not nleft and moved == 1 and g.fei_wild(s, mface) >= 0
        if fei and back == 1:
            return (G.TI, s, mface)  # the real tile onto its 飞, the wild back
        if not nleft and moved == 1 and not back and not fei and _peng_at(g, s, mface) >= 0:
            return (G.BUGANG, s, mface)
        self.waiting = True
        self._problem(s, alerts.COUNT, True)
        return None

    def _fulfil_due(self, g):
        """The claimer of a 碰/直杠 owes its tiles on the tray: settle them
        once all of them are there."""
        s = self.due_seat
        f = self.due_face
        loc = self.sc.loc
        acc = self.acc
        n = 0
        for t in range(f * 4, f * 4 + 4):
            if acc[t] == rack(s) and loc[t] == tray(s):
                n += 1
        dtile = self.due_tile
        there = dtile == NOWHERE or loc[dtile] == tray(s)
        w = self.due_wild
        wt = NOWHERE
        if w >= 0:
            for t in range(w * 4, w * 4 + 4):
                if acc[t] == rack(s) and loc[t] == tray(s):
                    wt = t
        if n < self.due_need or not there or (w >= 0 and wt == NOWHERE):
            return
        k = 0
        for t in range(f * 4, f * 4 + 4):
            if k < self.due_need and acc[t] == rack(s) and loc[t] == tray(s):
                acc[t] = tray(s)
                k += 1
        if wt != NOWHERE:
            acc[wt] = tray(s)
        if dtile != NOWHERE:
            acc[dtile] = tray(s)
        self.due_seat = -1

    # --- bookkeeping of accepted actions -----------------------------------

    def before(self, g):
        """Call before applying an action (notes the melds, to see claims resolve)."""
        for s in range(self.seats):
            self._nmeld[s] = g.nmeld[s]

    def accepted(self, g, a, events):
        """Update acc after the engine accepted action a with `events`."""
        kind = a[0]
        s = a[1]
        loc = self.sc.loc
        acc = self.acc
        self.aside[s] = NOWHERE  # 血流: a copy is laid aside before the seat acts again
        if kind == G.DEAL:
            for t in range(TILES):
                if acc[t] == _WALL and loc[t] == rack(s):
                    acc[t] = rack(s)
        elif kind == G.MA or kind == G.BENJIN:
            for i in range(self.nd):
                t = self.dt[i]
                if acc[t] == _WALL and loc[t] == tray(g.dealer):
                    acc[t] = tray(g.dealer)
                    break
        elif kind == G.EXCHANGE:
            k = 3 * s
            for t in range(TILES):
                lt = loc[t]
                gone = lt == NOWHERE or (lt & 1 == 0 and lt != rack(s))
                if acc[t] == rack(s) and gone and k < 3 * s + 3:
                    acc[t] = GIVE
                    self.gave[k] = t
                    k += 1
        elif kind == G.DRAW:
            for i in range(self.nd):
                t = self.dt[i]
                if acc[t] == _WALL and loc[t] == rack(s):
                    acc[t] = rack(s)
                    self.last_draw[s] = t
                    break
        elif kind == G.DISCARD or kind == G.QINGHU:  # 请胡: its single is a discard
            for i in range(self.nd):
                t = self.dt[i]
                if acc[t] == rack(s) and loc[t] == NOWHERE:
                    acc[t] = OUT
                    self.last_discard = t
                    break
        elif kind == G.ANGANG or kind == G.BUGANG or kind == G.TI:
            for i in range(self.nd):
                t = self.dt[i]
                if acc[t] == rack(s) and loc[t] == tray(s):
                    acc[t] = tray(s)
                    if kind == G.BUGANG:
                        self.last_bugang = t
                elif kind == G.TI and acc[t] == tray(s) and loc[t] == rack(s):
                    acc[t] = rack(s)
        for e in events:
            if e[0] == EV_EXCHANGED:
                r = e[1]
                giver = e[3]
                for i in range(3):
                    t = self.gave[3 * giver + i]
                    if t != NOWHERE:
                        self.dest[t] = rack(r)
            elif e[0] == EV_WIN:
                self._won(g, e)
        for t in range(self.seats):
            if g.nmeld[t] > self._nmeld[t] and (kind == G.PENG or kind == G.ZHIGANG
                                                or kind == G.PASS or kind == G.HU
                                                or kind == G.FEI):
                i = 4 * t + g.nmeld[t] - 1
                m = g.melds[i]
                mk = M.kind(m)
                if mk == M.PENG or mk == M.ZHIGANG:
                    self.due_seat = t
                    self.due_face = M.face(m)
                    self.due_need = 2 if mk == M.PENG else 3
                    self.due_tile = self.last_discard
                    self.due_wild = g.fei[i] - 1  # 0 unless a 飞
                    if self.due_wild >= 0:
                        self.due_need = 1  # 飞: one real copy and the wild

    def _won(self, g, e):
        w = e[1]
        flags = e[3]
        frm = e[4]
        f = e[5]
        acc = self.acc
        if frm >= 0:
            t = self.last_bugang if flags & fan.QIANGGANG else self.last_discard
            if t != NOWHERE:
                acc[t] = _FREE
                # 一炮多响: any of its winners takes it; a robbed 补杠's tile may
                # also stay on the robbed seat's tray
                self.owner[t] |= 1 << w | (1 << frm if flags & fan.QIANGGANG else 0)
        if g.rs[R.P_MODE] == R.MODE_XUELIU:
            if frm < 0:
                t = self.last_draw[w]
                if t == NOWHERE or t >> 2 != f or acc[t] != rack(w):
                    t = NOWHERE
                    for c in range(f * 4, f * 4 + 4):
                        if acc[c] == rack(w):
                            t = c
                            break
                if t != NOWHERE:
                    acc[t] = _FREE
                    self.owner[t] = 1 << w
                    self.aside[w] = t
            return
        for t in range(TILES):  # 血战: the winner's tiles leave the game
            if acc[t] == rack(w) or acc[t] == tray(w):
                acc[t] = _FREE
                self.owner[t] = 1 << w


def _peng_at(g, s, f):
    """Index into g.melds of seat s's 碰 (or 飞) of face f, or -1."""
    if f >= 0:
        want = M.make(M.PENG, f)
        for i in range(4 * s, 4 * s + g.nmeld[s]):
            if g.melds[i] == want:
                return i
    return -1

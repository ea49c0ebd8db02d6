"""The game engine: one hand of Sichuan mahjong as a pure state machine.

    g = Game(rs, dealer=0, direction=DIR_NEXT)
    events = g.apply((DRAW, seat, face, t))   # list of event tuples
    g.check(action) -> 0 or a refusal reason (sichuan.claims; mjtable.names names it)
    g.legal_actions(seat) -> actions seat may take now

No I/O, no clock: `t` (milliseconds, any epoch) travels with each action into
the hand log only. The wall's order is not known: tiles come in with DEAL and
DRAW actions and the engine checks that no face exceeds four copies. State is
integer-encoded: per seat a bytearray(27) of concealed counts, melds as
meld ints in a bytearray, discards as a bytearray of faces (bit 7 set once
claimed). An illegal action is refused with a reason and changes nothing.

Actions are tuples (kind, seat, arg, t):
    DEAL      arg: the seat's tiles, a sequence of faces or counts[27]
    EXCHANGE  arg: three faces of one suit (换三张, direction fixed per hand)
    DINGQUE   arg: the void suit 0..2
    DRAW      arg: the face drawn (a kong's replacement too)
    DISCARD   arg: face;  ANGANG / BUGANG arg: face
    PENG, ZHIGANG, PASS  (claims on the pending discard; arg ignored)
    HU        on a discard, a robbed 补杠, or self-drawn (arg: the winning
              face for a 血流 天胡 only; otherwise ignored)
    MA        叫马 (rs jiaoma): the tile the 马 took from the end of the wall
              after the deal (arg: face; seat: whoever reports it, not used)
    BAOHU     报胡 (rs baohu): a ready seat before its first draw (arg ignored)
    QINGHU    请胡 (rs qinghu): after a draw, five pairs and a single: the
              single is discarded (arg: its face); unclaimed, it wins
    BENJIN    宜宾 本金 (rs tingyong): the tile turned after the deal (arg: face);
              the faces either side of it are 听用 wild tiles
    FEI       宜宾 飞: claim the discard with one real copy and one wild (a 碰)
    TI        宜宾 提: after drawing the real tile of one's 飞, swap it in and
              take the wild back (arg: the face)
Events are tuples; their kinds and the pay reasons are in sichuan.settle.
See docs/engine.md.
"""

from micropython import const

from . import claims, fan, meld, settle, shape
from . import ruleset as R
from .claims import cannot_win, void_held

# Action kinds.
DEAL = const(0)
EXCHANGE = const(1)
DINGQUE = const(2)
DRAW = const(3)
DISCARD = const(4)
PENG = const(5)
ZHIGANG = const(6)
BUGANG = const(7)
ANGANG = const(8)
HU = const(9)
PASS = const(10)
MA = const(11)
BAOHU = const(12)
QINGHU = const(13)
BENJIN = const(14)
FEI = const(15)
TI = const(17)  # 16 is the hand log's payment record tag

# Phases.
PH_DEAL = const(0)
PH_EXCHANGE = const(1)
PH_DINGQUE = const(2)
PH_DRAW = const(3)      # the turn seat must draw (or take a kong's replacement)
PH_DISCARD = const(4)   # the turn seat holds 3n+2: discard, kong or 自摸
PH_CLAIM = const(5)     # a discard awaits 胡/碰/杠/过 from prompted seats
PH_ROB = const(6)       # a 补杠 awaits 抢杠胡/过
PH_END = const(7)


def claim_open(ph):
    """True if phase ph is a claim window: a discard's (胡/碰/杠) or a 补杠's
    (抢杠胡). The one statement of it for the controller and the host; this
    module's own hot paths test the phases inline."""
    return ph == PH_CLAIM or ph == PH_ROB


# 换三张 directions (a seat gives to): play runs seat 0, 1, 2, 3, so seat+1
# is the next player (下家). rs hsz_dirs bits: 1 clockwise = to the previous
# seat (上家), 2 counter-clockwise = to the next seat (下家), 4 across (对家).
DIR_PREV = const(1)
DIR_NEXT = const(2)
DIR_ACROSS = const(4)

# Hand end reasons.
END_WALL = const(0)     # wall empty: 流局 checks done
END_WINNERS = const(1)  # 血战: enough winners, or one player left

# claim bit of an action kind
_BITS = (0, 0, 0, 0, 0, claims.C_PENG, claims.C_GANG, 0, 0, claims.C_HU, 0, 0, 0, 0, 0,
         claims.C_FEI)
_MAXD = const(96)    # discards in a hand (55 draws + claims leave room)
_tmp = bytearray(27)
_lim = bytearray(27)



class Game:
    """One hand. Read-only attributes for displays: phase, turn, wall, hand[s],
    void[s] (255 = none yet), delta[s] (points this hand), status[s]."""

    def __init__(self, rs, dealer=0, direction=DIR_NEXT):
        np = rs[R.P_PLAYERS]
        if not 0 <= dealer < np:
            raise ValueError("dealer %d is not a seat of %d" % (dealer, np))
        if rs[R.P_HUANSANZHANG]:
            if not direction & rs[R.P_HSZ_DIRS] or direction not in (1, 2, 4):
                raise ValueError("exchange direction %d not allowed" % direction)
            if direction == DIR_ACROSS and np != 4:
                raise ValueError("across exchange needs four players")
        self.rs = rs
        self.np = np
        self.dealer = dealer
        self.direction = direction
        self.hand = [bytearray(27) for _ in range(np)]
        self.melds = bytearray(4 * np)
        self.nmeld = bytearray(np)
        self.disc = bytearray(_MAXD)
        self.dseat = bytearray(_MAXD)
        self.ndisc = 0
        self.seen = bytearray(27)    # copies dealt or drawn so far
        self.shown = bytearray(27)   # copies face up: discards, melds, won tiles
        self.gone = bytearray(27)    # tiles out of every hand and pile (won 自摸 in 血流, robbed)
        self.total = R.tiles_in_play(rs)
        self.wall = self.total
        self.void = bytearray(b"\xff" * np)
        self.give = bytearray(3 * np)
        self.status = bytearray(np)
        self.wins = bytearray(np)
        self.ndraw = bytearray(np)
        self.phase = PH_DEAL
        self.turn = dealer
        self.drawn = -1       # face drawn this turn, -1 if none
        self.after_gang = 0   # the turn seat's tile is a kong replacement
        self.kong_giver = -1  # discarder of the 直杠 whose replacement is in hand
        self.repl = 0         # the pending draw is a replacement
        self.pend = -1        # face of the pending discard / 补杠
        self.pseat = -1
        self.late = 0         # the pending 补杠 is late
        self.prompt = bytearray(np)
        self.resp = bytearray(np)  # 0 none, else the action kind + 1
        self.gs_mask = [0] * np
        self.gs_fan = bytearray(b"\xff" * np)
        self.calls = 0        # claims and kongs so far (end 天胡/地胡)
        # 4 bytes an entry; at most 4 kongs a seat, each paid by np - 1 seats
        self.ledger = bytearray(16 * np * (np - 1))
        self.nled = 0
        self.chain_lo = 0
        self.last_lo = 0
        self.delta = [0] * np
        self._w = [-1] * np
        self.winners = bytearray(16)  # seats in order of their wins
        self.nwins = 0
        self.first_from = -1   # discarder of the first win (-1 self-drawn)
        self.first_multi = 0   # the first win was a multi-win
        self.end = -1
        # 叫马: the 马 shares ma_seat's result; ma_side[s] is what seat s paid
        # the 马 this hand (negative: received), ma_delta the 马's own result.
        self.ma_face = -1
        self.ma_seat = -1
        self.ma_delta = 0
        self.ma_side = [0] * np
        self.qing = 0  # the pending discard is a 请胡 (断卡根)
        # 宜宾: the 本金 face and its two 听用 wild faces (-1: none)
        self.benjin = -1
        self.w1 = -1
        self.w2 = -1
        self.gp_mask = [0] * np  # 过碰不碰: faces each seat passed a 碰 on since its draw
        self.after_peng = 0      # the turn seat has just made a 碰 (碰后不准立即杠牌)
        self.fei = bytearray(4 * np)  # per meld: 0, or 1 + the wild face inside a 飞

    # ----- queries -------------------------------------------------------

    def meld_list(self, s):
        """Seat s's melds as a bytes of meld ints (allocates; not hot)."""
        o = 4 * s
        return bytes(self.melds[o:o + self.nmeld[s]])

    def suits_held(self, s):
        """Bitmask of suits in seat s's concealed tiles and melds."""
        m = fan.suits_used(self.hand[s])
        o = 4 * s
        for i in range(self.nmeld[s]):
            m |= 1 << (meld.face(self.melds[o + i]) // 9)
        return m

    def waits(self, s):
        """Bitmask of faces that complete seat s's 3n+1 concealed tiles (cached)."""
        w = self._w[s]
        if w < 0:
            if cannot_win(self, s):
                w = 0
            else:
                w = self.waits_limited(s, None)
            self._w[s] = w
        return w

    def waits_limited(self, s, lim):
        """Waits bitmask of seat s (听用 wild tiles counted); lim: copies held
        outside the hand (melds), so a fifth copy is no wait. Not cached."""
        h = self.hand[s]
        v = self._vd(s)
        if self.w1 >= 0:
            return self.wild.waits_mask(h, self.w1, self.w2, v, lim)
        return shape.waits_mask(h, v, lim)

    def is_wild(self, f):
        return f == self.w1 or f == self.w2

    def wild_held(self, s):
        """Wild copies among seat s's concealed tiles."""
        if self.w1 < 0:
            return 0
        h = self.hand[s]
        return h[self.w1] + (h[self.w2] if self.w2 != self.w1 else 0)

    def hand_after_claim(self, s, f, real):
        """True if, after a 碰 (real 2) or 飞 (real 1 and a wild) of f, seat s
        still holds a tile it may discard (a hand of wilds alone cannot go on)."""
        if self.w1 < 0:
            return True  # no wilds: a hand that can 碰 keeps a tile
        h = self.hand[s]
        n = 0
        for x in range(27):
            if h[x] and not self.is_wild(x):
                n += h[x] - (real if x == f else 0)
        return n > 0

    def meld_wilds(self, s):
        """Wild copies inside seat s's 飞 melds."""
        n = 0
        for i in range(self.nmeld[s]):
            if self.fei[4 * s + i]:
                n += 1
        return n

    def score(self, s, h, flags, win=-1):
        """Fan (doublings, uncapped) of seat s's concealed tiles h as a win, -1 if
        none; with 听用 wilds, each stands for its best face (sichuan.wild)."""
        ms = self.meld_list(s)
        if self.w1 >= 0:
            return self.wild.score(self.rs, h, ms, self._vd(s), flags, None, self.w1,
                                   self.w2, self.benjin, self.meld_wilds(s))
        return fan.score(self.rs, h, ms, self._vd(s), flags, None, win)

    def wait_value(self, s, f, flags=0):
        """Fan of seat s winning face f on a discard (查叫), -1 if none."""
        h = self.hand[s]
        h[f] += 1
        v = self.score(s, h, flags | self.seat_flags(s), f)
        h[f] -= 1
        return v

    def _vd(self, s):
        v = self.void[s]
        return v if v < 3 else -1

    def can_selfwin(self, s):
        """True if seat s may declare 自摸 now: it drew this turn (or is the dealer
        before the first discard: 天胡) and its 3n+2 concealed tiles are a win.
        A hand completed by a 碰 is no win until a tile is drawn."""
        if self.drawn < 0 and not (s == self.dealer and self.ndisc == 0 and self.calls == 0):
            return False
        if cannot_win(self, s) or self.status[s] & claims.ST_NOHU:
            return False
        if self.w1 >= 0:
            return self.wild.is_win(self.hand[s], self.w1, self.w2, self._vd(s))
        return shape.is_win(self.hand[s], self._vd(s))

    def seat_flags(self, s):
        """fan flags of seat s's own state (报胡)."""
        return fan.BAOHU if self.status[s] & claims.ST_BAOHU else 0

    def discard_win_fan(self, s, f, flags):
        """Capped fan of seat s winning face f by discard, -1 if not a win."""
        v = self.wait_value(s, f, flags)
        return fan.capped(self.rs, v) if v >= 0 else -1

    def self_flags(self, s):
        """fan flags of a self-drawn win by seat s now (the turn seat)."""
        f = self.drawn
        flags = fan.ZIMO | self.seat_flags(s)
        if self.after_gang:
            flags |= fan.GANGSHANGHUA
        if self.wall == 0:
            flags |= fan.HAIDI
        if self.calls == 0 and not self.wins[s]:
            if s == self.dealer and self.ndraw[s] == 0 and self.ndisc == 0:
                flags |= fan.TIANHU
            elif s != self.dealer and self.ndraw[s] == 1 and not self._discarded(s):
                flags |= fan.DIHU
        if f >= 0 and self.shown[f] >= 3:
            h = self.hand[s]
            h[f] -= 1  # the waits before the draw
            if claims.dead_waits(self, f, self.waits_limited(s, None)):
                flags |= fan.JUEZHANG
            h[f] += 1
        if self.after_gang and self.kong_giver >= 0 and self.rs[R.P_DIANGANG_HUA] == 2:
            flags &= ~fan.ZIMO
        return flags

    def prompt_mask(self, seat):
        """Claim mask (claims.C_HU | C_PENG | C_GANG) still open to seat, 0 if none."""
        if self.phase in (PH_CLAIM, PH_ROB) and not self.resp[seat]:
            return self.prompt[seat]
        return 0

    def next_seat(self, s):
        """The next seat after s still in the hand."""
        for i in range(1, self.np + 1):
            t = (s + i) % self.np
            if not self.status[t] & claims.ST_LEFT:
                return t
        return s

    # ----- checking ------------------------------------------------------

    def check(self, a):
        """0 if action a is legal now, else a refusal reason (sichuan.claims)."""
        if not isinstance(a, (tuple, list)) or len(a) < 3:
            return claims.BAD_ACTION
        kind = a[0]
        s = a[1]
        arg = a[2]
        if not isinstance(s, int) or not 0 <= s < self.np:
            return claims.BAD_SEAT
        if self.phase == PH_END:
            return claims.HAND_OVER
        if kind == DEAL:
            return self._check_deal(s, arg)
        if kind == EXCHANGE:
            return self._check_exchange(s, arg)
        if kind == MA:
            return self._check_after_deal(self.rs[R.P_JIAOMA], self.ma_face >= 0, arg)
        if kind == BAOHU:
            return self._check_baohu(s)
        if kind == BENJIN:
            return self._check_after_deal(self.rs[R.P_TINGYONG], self.benjin >= 0, arg)
        if kind == DINGQUE:
            if self.phase != PH_DINGQUE:
                return claims.BAD_PHASE
            if self.status[s] & claims.ST_QUE:
                return claims.ALREADY_DONE
            if not isinstance(arg, int) or not 0 <= arg < 3 or not self.rs[R.P_SUITS] >> arg & 1:
                return claims.BAD_SUIT
            return 0
        if kind in (PENG, ZHIGANG, PASS, FEI) or (
                kind == HU and self.phase in (PH_CLAIM, PH_ROB)):
            return self._check_claim(kind, s)
        if kind in (DRAW, DISCARD, ANGANG, BUGANG, HU, QINGHU, TI):
            if self.phase not in (PH_DRAW, PH_DISCARD):
                return claims.BAD_PHASE
            if s != self.turn:
                return claims.NOT_YOUR_TURN
            if kind == DRAW:
                if self.phase != PH_DRAW:
                    return claims.BAD_PHASE
                if self.wall <= 0:
                    return claims.NO_TILES_LEFT
                return self._new_tile(arg)
            if self.phase != PH_DISCARD:
                return claims.BAD_PHASE
            if kind == HU:
                if not self.can_selfwin(s):
                    return claims.NOT_A_WIN
                # the scorer must agree (a ruleset it cannot score is no win)
                v = self.score(s, self.hand[s], self.self_flags(s), self.drawn)
                if v < 0:
                    return claims.NOT_A_WIN
                x = self.rs[R.P_XIAOHU]
                if v > 0 or x == 1:
                    return 0
                if x > 1:  # "小胡在有人报胡的情况下也能自摸，只有报胡家赔一番"
                    for p in range(self.np):
                        st = self.status[p] & (claims.ST_BAOHU | claims.ST_WON)
                        if p != s and st == claims.ST_BAOHU:
                            return 0
                return claims.XIAOHU
            r = self._face_ok(arg)
            if r:
                return r
            # "最后四张自动和": before 提 and 请胡 too, which would pass the win
            if claims.forced(self) and self.can_selfwin(s) and not self.check((HU, s, -1)):
                return claims.MUST_WIN
            if kind == QINGHU:
                return self._check_qinghu(s, arg)
            if kind == TI:  # 提: "若摸到的牌与飞中的牌相同，则可用摸到的牌进行“提”的操作 ...
                # （需自己摸牌后才能提）": the tile just drawn
                if self.drawn != arg or self._fei_index(s, arg) < 0:
                    return claims.NOT_HELD
                # the wild comes back: wilds alone could not be discarded ("听用牌不能打出")
                return 0 if self.hand_after_claim(s, arg, 1) else claims.WILD_TILE
            if kind == DISCARD:
                return self._check_discard(s, arg)
            return self._check_kong(kind, s, arg)
        return claims.BAD_ACTION

    def _all_have(self, bit):
        """True once every seat's status has bit (dealt, gave its three, 定缺)."""
        for i in range(self.np):
            if not self.status[i] & bit:
                return False
        return True

    def _face_ok(self, f):
        if not isinstance(f, int) or not 0 <= f < 27 or not self.rs[R.P_SUITS] >> (f // 9) & 1:
            return claims.BAD_TILE
        return 0

    def _faces(self, arg):
        """Counts of an arg that is a face sequence or counts[27], in _tmp; or a reason."""
        for f in range(27):
            _tmp[f] = 0
        try:
            n = len(arg)
        except TypeError:
            return claims.BAD_TILE
        if n == 27:
            for f in range(27):
                x = arg[f]
                if not isinstance(x, int) or x < 0 or x > 4:
                    return claims.BAD_COUNT
                if x and self._face_ok(f):
                    return claims.BAD_TILE
                _tmp[f] = x
            return 0
        for f in arg:
            if self._face_ok(f):
                return claims.BAD_TILE
            if _tmp[f] >= 4:
                return claims.FIFTH_COPY
            _tmp[f] += 1
        return 0

    def _check_deal(self, s, arg):
        if self.phase != PH_DEAL:
            return claims.BAD_PHASE
        if self.status[s] & claims.ST_DEALT:
            return claims.ALREADY_DONE
        r = self._faces(arg)
        if r:
            return r
        n = 0
        for f in range(27):
            n += _tmp[f]
            if _tmp[f] + self.seen[f] > 4:
                return claims.FIFTH_COPY
        want = self.rs[R.P_HAND_SIZE] + (1 if s == self.dealer else 0)
        return 0 if n == want else claims.BAD_COUNT

    def _check_after_deal(self, on, done, f):
        """叫马 (the 马 draws once the players hold their tiles) or 本金 ("庄家在
        尾家摸完牌后，翻开接下来的牌张"): on: the ruleset has it; done: already taken."""
        if not on:
            return claims.BAD_ACTION
        if self.phase != PH_DEAL:
            return claims.BAD_PHASE
        if done:
            return claims.ALREADY_DONE
        if not self._all_have(claims.ST_DEALT):
            return claims.BAD_PHASE
        return self._new_tile(f)

    def _new_tile(self, f):
        """0 if f may come out of the wall: a face in play, not a fifth copy."""
        r = self._face_ok(f)
        if r:
            return r
        return claims.FIFTH_COPY if self.seen[f] >= 4 else 0

    def _fei_index(self, s, f):
        i = self._meld_index(s, meld.make(meld.PENG, f))
        return i if i >= 0 and self.fei[4 * s + i] else -1

    def fei_wild(self, s, f):
        """The wild face (0..26) in seat s's 飞 of face f (宜宾), or -1 if it has none."""
        i = self._fei_index(s, f)
        return self.fei[4 * s + i] - 1 if i >= 0 else -1

    def _check_baohu(self, s):
        """报胡: "在配牌结束后，所有家检查手牌，如果听牌，可以在自家摸牌前宣布报胡"; the
        dealer (no draw before its first discard) declares before that discard."""
        if not self.rs[R.P_BAOHU]:
            return claims.BAD_ACTION
        if self.phase not in (PH_DRAW, PH_DISCARD):
            return claims.BAD_PHASE
        if self.status[s] & claims.ST_BAOHU:
            return claims.ALREADY_DONE
        if self.ndraw[s] or self.nmeld[s] or self.status[s] & claims.ST_WON or self._discarded(s):
            return claims.BAD_PHASE  # (the dealer is then the turn seat in PH_DISCARD)
        if s != self.dealer:  # its 3n+1 tiles as dealt
            return 0 if self._ready_without(s, 0, 0) else claims.NOT_READY
        h = self.hand[s]
        for f in range(27):  # the dealer's 3n+2 less one discard
            if h[f] and self._ready_without(s, f):
                return 0
        return claims.NOT_READY

    def _ready_without(self, s, f, n=1):
        """Truthy if seat s is ready once n copies of f leave its concealed
        tiles (n = 4: into a kong, so a wait on a fifth copy is none; n = 0: as
        they are). With rs baohu 2 (二合一, "允许请胡报胡时，在配牌有4对将时可以报胡")
        four pairs (a four is two) are ready too: drawing either single makes
        five pairs and a single, a 请胡. Never after a kong: 请胡 has no meld, nor
        while the seat holds its void suit: a 报胡 seat throws what it draws, so
        it could never shed the void (with 定缺 on, which 断卡根 has not)."""
        h = self.hand[s]
        lim = fan.meld_counts(self.meld_list(s), _lim)
        if n == 4:
            lim[f] += 4
        h[f] -= n
        w = self.waits_limited(s, lim) or (n < 4 and self.rs[R.P_BAOHU] > 1
                                           and self._pairs(s) > 3 and not void_held(self, s))
        h[f] += n
        return w

    def _pairs(self, s):
        """Pairs among seat s's concealed tiles (a four is two)."""
        n = 0
        for c in self.hand[s]:
            n += c >> 1
        return n

    def _check_qinghu(self, s, f):
        """请胡: "摸牌后当手上有五个小对子（五对将）时，可以打出单张牌，并宣报请胡"."""
        rs = self.rs
        if not rs[R.P_QINGHU]:
            return claims.BAD_ACTION
        h = self.hand[s]
        if not h[f]:
            return claims.NOT_HELD
        # a 报胡 seat may 请胡 only with rs baohu 2 (二合一): "大部分情况下请胡不能报胡，
        # 但是在“二合一”规矩下也允许请胡报胡" ((2 - baohu) << 6: ST_BAOHU at 1, none at 2)
        refuse = claims.ST_NOHU | (2 - rs[R.P_BAOHU]) << 6
        if self.drawn < 0 or self.nmeld[s] or self.status[s] & refuse:
            return claims.NOT_A_WIN
        h[f] -= 1
        v = fan.score(rs, h, (), self._vd(s), fan.ZIMO | fan.QINGHU)
        h[f] += 1
        return 0 if v >= 0 else claims.NOT_A_WIN

    def _check_exchange(self, s, arg):
        if self.phase != PH_EXCHANGE:
            return claims.BAD_PHASE
        if self.status[s] & claims.ST_GAVE:
            return claims.ALREADY_DONE
        r = self._faces(arg)
        if r:
            return r
        n = 0
        suits = 0
        h = self.hand[s]
        for f in range(27):
            if _tmp[f]:
                n += _tmp[f]
                suits |= 1 << (f // 9)
                if h[f] < _tmp[f]:
                    return claims.NOT_HELD
        if n != 3:
            return claims.BAD_COUNT
        return 0 if suits in (1, 2, 4) else claims.NOT_ONE_SUIT

    def _check_discard(self, s, f):
        h = self.hand[s]
        if not h[f]:
            return claims.NOT_HELD
        if self.is_wild(f):
            return claims.WILD_TILE  # "听用牌不能打出"
        if self.status[s] & claims.ST_BAOHU and self.drawn < 0:
            # the dealer's first discard after its 报胡 must leave it ready
            return 0 if self._ready_without(s, f) else claims.NOT_READY
        if self.status[s] & claims.ST_LOCKED and f != self.drawn:
            return claims.LOCKED
        v = self.void[s]
        if v < 3 and f // 9 != v and void_held(self, s):
            return claims.MUST_DISCARD_VOID
        return 0

    def _check_kong(self, kind, s, f):
        h = self.hand[s]
        if self.wall <= 0 and not self.rs[R.P_HAIDI_GANG]:
            return claims.NO_TILES_LEFT
        if self.is_wild(f):
            return claims.WILD_TILE  # 听用 "不能进行杠的操作"
        if self.after_peng and self.rs[R.P_PENG_NO_KONG]:
            return claims.BAD_PHASE  # "碰后不准立即杠牌"
        if f // 9 == self.void[s]:
            return claims.VOID_TILE
        if void_held(self, s):
            return claims.VOID_HELD_NO_CLAIM
        if kind == ANGANG:
            if h[f] < 4:
                return claims.NOT_HELD
            if self.status[s] & claims.ST_BAOHU:
                # "报胡后自家可以杠牌，但必须保证杠牌后要有叫"
                return 0 if self._ready_without(s, f, 4) else claims.NOT_READY
            if self.status[s] & claims.ST_LOCKED and not self._an_keeps_waits(s, f):
                return claims.LOCKED
            return 0
        if self._meld_index(s, meld.make(meld.PENG, f)) < 0 or not h[f]:
            return claims.NOT_HELD
        if self._fei_index(s, f) >= 0:
            return claims.WILD_TILE  # a 飞 holds a wild: 提 it first
        if self.status[s] & claims.ST_LOCKED:
            return claims.LOCKED
        if self.drawn != f and self.rs[R.P_BUGANG_WHEN] == 2:
            return claims.BUGANG_LATE
        return 0

    def _an_keeps_waits(self, s, f):
        """血流 lock: a 暗杠 is allowed only if the waits stay the same."""
        h = self.hand[s]
        d = self.drawn
        if d < 0:
            return False
        h[d] -= 1
        before = self.waits_limited(s, None)
        h[d] += 1
        h[f] -= 4
        after = self.waits_limited(s, None)
        h[f] += 4
        return before == after

    def _check_claim(self, kind, s):
        if self.phase not in (PH_CLAIM, PH_ROB):
            return claims.BAD_PHASE
        if self.resp[s]:
            return claims.ALREADY_DONE
        m = self.prompt[s]
        bit = _BITS[kind] if kind < len(_BITS) else 0
        if bit and not m & bit:
            if s == self.pseat:
                return claims.NO_CLAIM
            if self.phase == PH_ROB and bit != claims.C_HU:
                return claims.NO_CLAIM
            r = claims.claim_reason(self, s, bit, self.pend)
            return r if r else claims.NO_CLAIM
        if not m:
            return claims.NO_CLAIM
        if kind != HU and m & claims.C_HU and claims.forced(self):
            return claims.MUST_WIN
        if kind == HU and self.discard_win_fan(s, self.pend, 0) < 0:
            return claims.NOT_A_WIN
        return 0

    # ----- applying ------------------------------------------------------

    def apply(self, a):
        """Apply action a; returns its events. A refused action changes nothing."""
        r = self.check(a)
        if r:
            ok = isinstance(a, (tuple, list))
            s = a[1] if ok and len(a) > 1 else -1
            k = a[0] if ok and len(a) > 0 else -1
            return [(settle.EV_REFUSED, s, r, k)]
        kind = a[0]
        s = a[1]
        arg = a[2]
        ev = [(settle.EV_ACCEPTED, s, kind)]
        if kind == DEAL:
            self._do_deal(s, ev)
        elif kind == MA:
            self._do_ma(arg, ev)
        elif kind == BENJIN:
            self._do_benjin(arg, ev)
        elif kind == EXCHANGE:
            self._do_exchange(s, ev)
        elif kind == DINGQUE:
            self._do_dingque(s, arg, ev)
        elif kind == DRAW:
            self._do_draw(s, arg, ev)
        elif kind == DISCARD:
            self._do_discard(s, arg, ev)
        elif kind == ANGANG:
            self._do_angang(s, arg, ev)
        elif kind == BUGANG:
            self._do_bugang(s, arg, ev)
        elif kind == HU and self.phase == PH_DISCARD:
            self._win_self(s, arg, ev)
        elif kind == BAOHU:
            self.status[s] |= claims.ST_BAOHU | claims.ST_LOCKED
            self._w[s] = -1
        elif kind == QINGHU:
            self.qing = 1
            self._do_discard(s, arg, ev)
        elif kind == TI:
            self._do_ti(s, arg)
        else:
            self.resp[s] = kind + 1
            self._try_resolve(ev)
        return ev

    def _phase(self, ph, turn, ev):
        self.phase = ph
        self.turn = turn
        ev.append((settle.EV_PHASE, ph, turn))

    def _do_deal(self, s, ev):
        h = self.hand[s]
        for f in range(27):
            x = _tmp[f]
            h[f] += x
            self.seen[f] += x
            self.wall -= x
        self.status[s] |= claims.ST_DEALT
        self._w[s] = -1
        if self._all_have(claims.ST_DEALT):
            self._after_deal(ev)

    def _after_deal(self, ev):
        if self.rs[R.P_JIAOMA] and self.ma_face < 0:
            return  # the 马 tile comes next
        if self.rs[R.P_TINGYONG] and self.benjin < 0:
            return  # the 本金 is turned next
        if self.rs[R.P_HUANSANZHANG]:
            self._phase(PH_EXCHANGE, self.dealer, ev)
        else:
            self._to_dingque(ev)

    def _do_ma(self, f, ev):
        """叫马: the tile leaves the wall unseen; its rank counts seats from the
        dealer along the play order (1 = the dealer)."""
        self.ma_face = f
        self.seen[f] += 1
        self.gone[f] += 1
        self.wall -= 1
        self.ma_seat = ma_seat(self.dealer, self.np, f)
        self._after_deal(ev)

    def _do_ti(self, s, f):
        """提: the drawn real f goes into the 飞; its wild returns to the hand."""
        i = self._fei_index(s, f)
        w = self.fei[4 * s + i] - 1
        h = self.hand[s]
        h[f] -= 1
        h[w] += 1
        self.shown[f] += 1
        self.shown[w] -= 1
        self.fei[4 * s + i] = 0
        self.drawn = -1  # the tile in hand is no longer the one drawn
        self._w[s] = -1

    def _do_benjin(self, f, ev):
        """本金: turned face up out of the wall; its neighbours become wild."""
        # sichuan.wild is imported by the first 本金, and every wild call comes
        # after it: a table that never plays 宜宾 does not hold its functions
        # and names (in the table firmware: 2 KB of heap, 28 names)
        from . import wild

        self.wild = wild
        self.benjin = f
        self.seen[f] += 1
        self.shown[f] += 1
        self.gone[f] += 1
        self.wall -= 1
        self.w1, self.w2 = wild.wild_faces(f)
        for s in range(self.np):
            self._w[s] = -1
        self._after_deal(ev)

    def _to_dingque(self, ev):
        if self.rs[R.P_DINGQUE] == 1:
            self._phase(PH_DINGQUE, self.dealer, ev)
        else:
            self._start_play(ev)

    def _start_play(self, ev):
        self.drawn = -1
        self._phase(PH_DISCARD, self.dealer, ev)

    def _do_exchange(self, s, ev):
        h = self.hand[s]
        i = 3 * s
        for f in range(27):
            for _ in range(_tmp[f]):
                self.give[i] = f
                i += 1
                h[f] -= 1
        self.status[s] |= claims.ST_GAVE
        if not self._all_have(claims.ST_GAVE):
            return
        d = self.direction
        step = self.np - 1 if d == DIR_PREV else (1 if d == DIR_NEXT else 2)
        for g in range(self.np):
            r = (g + step) % self.np
            o = 3 * g
            got = (self.give[o], self.give[o + 1], self.give[o + 2])
            for f in got:
                self.hand[r][f] += 1
            self._w[r] = -1
            ev.append((settle.EV_EXCHANGED, r, got, g))
        self._to_dingque(ev)

    def _do_dingque(self, s, suit, ev):
        self.void[s] = suit
        self.status[s] |= claims.ST_QUE
        self._w[s] = -1
        if not self._all_have(claims.ST_QUE):
            return
        ev.append((settle.EV_VOIDS, bytes(self.void)))
        self._start_play(ev)

    def _do_draw(self, s, f, ev):
        self.hand[s][f] += 1
        self.seen[f] += 1
        self.wall -= 1
        self.ndraw[s] += 1
        self.gs_mask[s] = 0
        self.gs_fan[s] = 255
        self.after_gang = self.repl
        if not self.repl:
            self.chain_lo = self.nled
            self.kong_giver = -1
        self.repl = 0
        self.drawn = f
        self.gp_mask[s] = 0
        self.after_peng = 0
        self._w[s] = -1
        self._phase(PH_DISCARD, s, ev)

    def _do_discard(self, s, f, ev):
        if self.status[s] & claims.ST_BAOHU and not self.qing and (self.can_selfwin(s) or (
                self.rs[R.P_BAOHU] > 1 and self.drawn >= 0 and self._pairs(s) > 4)):
            # "报胡后如果自家自摸...没胡...不能再食和": a win or (二合一) a 请胡 passed
            self.status[s] |= claims.ST_NOHU
        self.hand[s][f] -= 1
        self._w[s] = -1
        i = self.ndisc
        self.disc[i] = f
        self.dseat[i] = s
        self.ndisc = i + 1
        self.shown[f] += 1
        self.drawn = -1
        if not self._offer(s, f, PH_CLAIM, ev):
            self._discard_passed(ev)

    def _offer(self, s, f, ph, ev):
        """Open the claim window (PH_CLAIM) on seat s's discard f, or the 抢杠
        window (PH_ROB) on its 补杠 of f; False if no seat may claim."""
        self.pend = f
        self.pseat = s
        any_claim = 0
        for k in range(1, self.np):
            t = (s + k) % self.np
            if ph == PH_ROB:
                m = claims.rob_mask(self, t, f)
            else:
                m = claims.discard_mask(self, t, f)
            self.prompt[t] = m
            self.resp[t] = 0
            if m:
                any_claim = 1
                ev.append((settle.EV_PROMPT, t, m, f))
        self.prompt[s] = 0
        self.resp[s] = 0
        if any_claim:
            self._phase(ph, s, ev)
        return any_claim

    def _discard_passed(self, ev):
        if self.qing:
            self._win_qinghu(ev)
            return
        self._no_kong()
        self._next_draw(self.next_seat(self.pseat), ev)

    def _no_kong(self):
        """The turn moves on by a discard, claim or win: no kong's 杠上 state
        (杠上花/杠上炮, 点杠花, 呼叫转移) carries over."""
        self.after_gang = 0
        self.kong_giver = -1
        self.chain_lo = self.last_lo = self.nled

    def _next_draw(self, s, ev):
        self.pend = -1
        if self.wall <= 0:
            settle.liuju(self, ev)
            self._end(END_WALL, ev)
        else:
            self._phase(PH_DRAW, s, ev)

    def _end(self, why, ev):
        self.end = why
        self.phase = PH_END
        ev.append((settle.EV_HAND_END, why, tuple(self.delta)))

    def _add_meld(self, s, m):
        self.melds[4 * s + self.nmeld[s]] = m
        self.nmeld[s] += 1

    def _meld_index(self, s, m):
        for i in range(self.nmeld[s]):
            if self.melds[4 * s + i] == m:
                return i
        return -1

    def _after_kong(self, s, ev):
        self.calls += 1
        self._w[s] = -1
        self.drawn = -1
        self.turn = s
        if self.wall > 0:
            self.repl = 1
            self._phase(PH_DRAW, s, ev)
        else:  # 海底杠: no replacement exists, the hand is over
            settle.liuju(self, ev)
            self._end(END_WALL, ev)

    def _do_angang(self, s, f, ev):
        if self.status[s] & claims.ST_BAOHU and self.can_selfwin(s):
            # "报胡后如果自家自摸...没胡...不能再食和": a kong instead
            self.status[s] |= claims.ST_NOHU
        self.hand[s][f] -= 4
        self.shown[f] += 4
        self._add_meld(s, meld.make(meld.ANGANG, f))
        self.last_lo = self.nled
        settle.gang(self, ev, s, meld.ANGANG, -1, 0)
        self.kong_giver = -1
        self._after_kong(s, ev)

    def _do_bugang(self, s, f, ev):
        self.hand[s][f] -= 1
        self.shown[f] += 1
        self._w[s] = -1
        self.late = 1 if self.drawn != f else 0
        if not self._offer(s, f, PH_ROB, ev):
            self._complete_bugang(ev)

    def _complete_bugang(self, ev):
        s = self.pseat
        f = self.pend
        i = self._meld_index(s, meld.make(meld.PENG, f))
        self.melds[4 * s + i] = meld.make(meld.BUGANG, f)
        self.last_lo = self.nled
        settle.gang(self, ev, s, meld.BUGANG, -1, self.late)
        self.kong_giver = -1
        self.pend = -1
        self._after_kong(s, ev)

    def _try_resolve(self, ev):
        """Resolve the claim window once no open prompt can change the outcome."""
        any_hu = 0
        open_hu = 0
        open_other = 0
        for t in range(self.np):
            m = self.prompt[t]
            if not m:
                continue
            r = self.resp[t]
            if r == HU + 1:
                any_hu = 1
            elif not r:
                if m & claims.C_HU:
                    open_hu = 1
                else:
                    open_other = 1
        if open_hu or (open_other and not any_hu):
            return
        self._record_passes()
        f = self.pend
        d = self.pseat
        if any_hu:
            self._win_discard(ev)
            return
        for t in range(self.np):
            r = self.resp[t]
            if r == ZHIGANG + 1:
                self._do_zhigang(t, d, f, ev)
                return
            if r == PENG + 1 or r == FEI + 1:
                self._do_peng(t, f, ev, r == FEI + 1)
                return
        self._clear_prompts()
        if self.phase == PH_ROB:
            self._complete_bugang(ev)
        else:
            self._discard_passed(ev)

    def _clear_prompts(self):
        for t in range(self.np):
            self.prompt[t] = 0
            self.resp[t] = 0

    def _record_passes(self):
        """Claims passed on the pending tile: 过碰不碰 (rs guopeng), a 报胡 seat's
        passed win, and 过手胡: a seat offered 胡 that did not take it is barred
        (per rs guoshou) until its next draw."""
        mode = self.rs[R.P_GUOSHOU]
        f = self.pend
        for t in range(self.np):
            m = self.prompt[t]
            r = self.resp[t]
            if (m & (claims.C_PENG | claims.C_FEI) and self.rs[R.P_GUOPENG]
                    and r not in (PENG + 1, ZHIGANG + 1, FEI + 1)):
                self.gp_mask[t] |= 1 << f  # "过碰不碰": 碰 or 飞 passed
            if not m & claims.C_HU or r == HU + 1:
                continue
            if self.status[t] & claims.ST_BAOHU:
                self.status[t] |= claims.ST_NOHU  # "报胡后如果...他家点炮没胡...不能再食和"
            if mode == 2:
                fl = claims.win_flags_discard(self, t, f, self.phase == PH_ROB)
                v = self.discard_win_fan(t, f, fl)
                if self.gs_fan[t] == 255 or v > self.gs_fan[t]:
                    self.gs_fan[t] = v
            elif mode:
                self.gs_mask[t] |= 1 << f

    def _claim_discard(self):
        """The pending discard leaves its pile (taken by a 碰/直杠)."""
        self.disc[self.ndisc - 1] |= 0x80
        self.shown[self.pend] -= 1

    def _do_peng(self, s, f, ev, fei):
        """碰 (two real copies), or 飞 (one real and one wild: the wild w1 if held)."""
        self._clear_prompts()
        self._claim_discard()
        h = self.hand[s]
        if fei:
            w = self.w1 if h[self.w1] else self.w2
            h[f] -= 1
            h[w] -= 1
            self.shown[f] += 2
            self.shown[w] += 1
            self.fei[4 * s + self.nmeld[s]] = 1 + w
        else:
            h[f] -= 2
            self.shown[f] += 3
        self._add_meld(s, meld.make(meld.PENG, f))
        self.calls += 1
        self._w[s] = -1
        self._no_kong()
        self.drawn = -1
        self.pend = -1
        self.after_peng = 1
        self._phase(PH_DISCARD, s, ev)

    def _do_zhigang(self, s, d, f, ev):
        self._clear_prompts()
        self._claim_discard()
        self.hand[s][f] -= 3
        self.shown[f] += 4
        self._add_meld(s, meld.make(meld.ZHIGANG, f))
        self.after_gang = 0
        self.chain_lo = self.last_lo = self.nled
        settle.gang(self, ev, s, meld.ZHIGANG, d, 0)
        self.kong_giver = d
        self.pend = -1
        self._after_kong(s, ev)

    def _win_discard(self, ev):
        f = self.pend
        d = self.pseat
        robbed = self.phase == PH_ROB
        if robbed:
            self.gone[f] += 1
        flags = 0
        if self.qing:
            flags = fan.QINGHUPAO  # "有其他家胡打出的请胡牌时，请胡失败，该家的胡牌番数+3"
            self.qing = 0
        winners = []
        for k in range(1, self.np):
            t = (d + k) % self.np
            if self.prompt[t] and self.resp[t] == HU + 1:
                winners.append(t)
        self._clear_prompts()
        for w in winners:
            h = self.hand[w]
            wf = flags | claims.win_flags_discard(self, w, f, robbed) | self.seat_flags(w)
            h[f] += 1
            v = self.score(w, h, wf, f)
            h[f] -= 1
            settle.win_discard(self, ev, w, d, v, robbed)
            ev.append((settle.EV_WIN, w, v, wf, d, f))
        if wf & fan.GANGSHANGPAO:  # the same for every winner: the discard's own
            settle.zhuanyi(self, ev, d, winners)
        if self.nwins == 0:
            self.first_from = d
            self.first_multi = 1 if len(winners) > 1 else 0
        for w in winners:
            self._mark_won(w)
        self._go_on(winners[-1], ev)

    def _go_on(self, s, ev):
        """After a win by s (the last of a multi-win): the hand ends or the
        next seat still in draws."""
        self._no_kong()
        if not self._over(ev):
            self._next_draw(self.next_seat(s), ev)

    def _win_self(self, s, arg, ev):
        rs = self.rs
        f = self.drawn
        h = self.hand[s]
        flags = self.self_flags(s)
        giver = self.kong_giver if self.after_gang else -1
        v = self.score(s, h, flags, f)
        settle.win_zimo(self, ev, s, v, giver)
        if f < 0:  # 天胡: the winning tile is the one named, else the highest held
            f = arg if isinstance(arg, int) and 0 <= arg < 27 and h[arg] else 26
            while not h[f]:
                f -= 1
        ev.append((settle.EV_WIN, s, v, flags, -1, f))
        if self.nwins == 0:
            self.first_from = -1
        if rs[R.P_MODE] == R.MODE_XUELIU:
            h[f] -= 1  # the winning tile goes face up; the 13 stay
            self.shown[f] += 1
            self.gone[f] += 1
            self._w[s] = -1
        self._mark_won(s)
        self.drawn = -1
        self._go_on(s, ev)

    def _win_qinghu(self, ev):
        """请胡达成: nobody won the single; the five pairs win as a self-draw."""
        s = self.pseat
        f = self.pend
        self.qing = 0
        self.pend = -1
        flags = fan.ZIMO | fan.QINGHU | (fan.HAIDI if self.wall == 0 else 0) | self.seat_flags(s)
        v = fan.score(self.rs, self.hand[s], (), self._vd(s), flags)
        settle.win_zimo(self, ev, s, v, -1)
        ev.append((settle.EV_WIN, s, v, flags, -1, f))
        if self.nwins == 0:
            self.first_from = -1
        self._mark_won(s)
        self._go_on(s, ev)

    def _discarded(self, s):
        for i in range(self.ndisc):
            if self.dseat[i] == s:
                return True
        return False

    def _mark_won(self, w):
        self.wins[w] += 1
        st = self.status[w] | claims.ST_WON
        if self.rs[R.P_MODE] == R.MODE_XUELIU:
            if self.rs[R.P_XUELIU_LOCK]:
                st |= claims.ST_LOCKED
        else:
            st |= claims.ST_LEFT
        self.status[w] = st
        if self.nwins < len(self.winners):
            self.winners[self.nwins] = w
        self.nwins += 1

    def _over(self, ev):
        """血战: the hand ends at rs max_winners winners or one player left."""
        if self.rs[R.P_MODE] == R.MODE_XUELIU:
            return False
        left = 0
        for s in range(self.np):
            if self.status[s] & claims.ST_LEFT:
                left += 1
        if left >= self.rs[R.P_MAX_WINNERS] or self.np - left <= 1:
            self._end(END_WINNERS, ev)
            return True
        return False

    # ----- what may a seat do -------------------------------------------

    def legal_actions(self, s, t=0):
        """Actions seat s may take now (DRAW with arg -1: the table supplies the face;
        DEAL and EXCHANGE are not enumerated). Host and tests only (bots)."""
        ph = self.phase
        turn = s == self.turn
        cand = []
        if ph == PH_DINGQUE:
            for su in range(3):
                cand.append((DINGQUE, s, su, t))
        elif ph == PH_DRAW and turn:
            cand.append((BAOHU, s, -1, t))
        elif ph == PH_DISCARD and turn:
            cand.append((HU, s, -1, t))
            cand.append((BAOHU, s, -1, t))
            h = self.hand[s]
            for f in range(27):
                if h[f]:
                    for k in (DISCARD, ANGANG, BUGANG, QINGHU, TI):
                        cand.append((k, s, f, t))
        elif ph in (PH_CLAIM, PH_ROB):
            for k in (HU, PENG, ZHIGANG, FEI, PASS):
                cand.append((k, s, -1, t))
        out = [(DRAW, s, -1, t)] if ph == PH_DRAW and turn else []  # always open
        for a in cand:
            if not self.check(a):
                out.append(a)
        return out


class Match:
    """A match of rs hands: running totals from rs start_points, the dealer of
    each hand (rs dealer_next) and the final ranking."""

    def __init__(self, rs, dealer=0):
        self.rs = rs
        self.np = rs[R.P_PLAYERS]
        self.totals = [rs[R.P_START_POINTS]] * self.np
        self.hand_no = 0
        self.dealer = dealer
        self.history = []  # each finished hand's deltas
        self.ma_total = 0  # 叫马: the 马's running result (it starts at 0)
        self.ma_history = []  # each hand's (bound seat, 马 delta)

    def exchange_direction(self):
        """换三张 direction of the next hand (hand_no, 0-based): the allowed
        directions (rs hsz_dirs) in turn, next seat first; DIR_NEXT when the
        ruleset has no 换三张."""
        rs = self.rs
        if not rs[R.P_HUANSANZHANG]:
            return DIR_NEXT
        dirs = []
        for d in (DIR_NEXT, DIR_PREV, DIR_ACROSS):
            if rs[R.P_HSZ_DIRS] & d and not (d == DIR_ACROSS and self.np != 4):
                dirs.append(d)
        return dirs[self.hand_no % len(dirs)] if dirs else DIR_NEXT

    def new_game(self, direction=DIR_NEXT, old=None):
        """The next hand's Game. old: the last hand's, built again in place:
        its attribute table (56 names, 1 KB on the 64-bit unix port) is kept,
        where a new game's grows step by step, each step a larger block than
        the last, which a long-running table's fragmented heap may not have."""
        if old is None:
            return Game(self.rs, self.dealer, direction)
        old.__init__(self.rs, self.dealer, direction)
        return old

    def finish(self, g, drawn_dealer=-1):
        """Book a finished hand; choose the next dealer. drawn_dealer: the seat
        the table drew when rs dealer_next is 4 (random each hand)."""
        if g.phase != PH_END:
            raise ValueError("the hand is not over")
        for s in range(self.np):
            self.totals[s] += g.delta[s] - g.ma_side[s]
        self.ma_total += g.ma_delta
        if g.ma_seat >= 0:
            self.ma_history.append((g.ma_seat, g.ma_delta))
        self.history.append(tuple(g.delta))
        self.hand_no += 1
        self.dealer = next_dealer(self.rs, g, drawn_dealer)

    def over(self):
        return self.hand_no >= self.rs[R.P_HANDS]

    def ranking(self):
        """Seats from first to last (higher total first; ties by seat)."""
        order = list(range(self.np))
        order.sort(key=lambda s: (-self.totals[s], s))
        return order


def ma_seat(dealer, np, f):
    """Seat a 叫马 tile of face f binds: its rank counted from the dealer (1)
    along the play order (seed 001: "根据牌上的点数从庄家起沿出牌方向数")."""
    return (dealer + f % 9) % np


def next_dealer(rs, g, drawn=-1):
    """Dealer of the next hand after game g, per rs dealer_next."""
    mode = rs[R.P_DEALER_NEXT]
    d = g.dealer
    if mode == 2:
        return (d + 1) % g.np
    if mode == 3 or g.nwins == 0:
        return drawn if mode == 4 and drawn >= 0 else d
    if mode == 4:
        return drawn if drawn >= 0 else d
    if mode == 1:
        return g.first_from if g.first_from >= 0 else d
    if g.first_multi:
        return g.first_from
    return g.winners[0]

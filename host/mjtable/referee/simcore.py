"""The self-play simulator: four simple bots play a match through sichuan.game.

Written in the MicroPython subset so that the SAME file runs in CPython
(`mjtable sim`) and in the MicroPython unix port (mp_sim.py, `--engine
micropython`): same seed, same wall, same bot choices, same results.

    m = Sim(rs, seed)
    for i in range(hands):
        r = m.play_hand(log=False)    # one hand's result (see play_hand)
    m.summary()                       # totals, ranking, per-seat counts

Randomness: xorshift32 (`Rng`), integer-only, identical on both interpreters.
A match Rng gives each hand its seed, the 换三张 direction and the drawn
dealer (rs dealer_next 4); each hand has its own Rng for the wall shuffle,
the bots' coin flips and the action times (ms, only logged).

The bots (deliberately simple, deterministic given the Rng):
- 换三张: three tiles of the shortest suit holding three, the most isolated;
- 定缺: the suit with the fewest tiles (ties: lowest suit);
- discard: the void suit first (the engine insists), else the tile whose
  removal leaves the hand closest to ready (ready beats not ready, then more
  waiting faces, then fewest missing groups; the Rng breaks ties);
- claims: 胡 with probability 7/8 (always when the engine forces it), 自摸
  likewise; 直杠 1/2; 碰 1/3 (only if the tile is not needed in a run);
  暗杠/补杠 1/2; otherwise 过.
No f-strings with format specs, no typing, no dataclasses: MicroPython subset.
"""

from sichuan import game as G
from sichuan import handlog, meld, shape
from sichuan import ruleset as R
from sichuan.claims import C_GANG, C_HU, C_PENG
from sichuan.settle import EV_ACCEPTED, EV_HAND_END, EV_WIN

END_NAMES = ("wall", "winners")


def _patterns(g, e):
    """[[id, doublings]] of the patterns the win event e counts, in calc's
    order (the host prints them; a list keeps the order on both engines)."""
    try:
        from mjtable.referee import patnames
    except ImportError:  # MicroPython: patnames.py sits beside this file
        import patnames
    from sichuan import fan

    out = bytearray(fan.NOUT)
    patnames.win_out(g, e, out)
    names = patnames.out_names(g.rs)
    return [[names[p], out[p] - 1] for p in range(len(names)) if out[p]]


class Rng:
    """xorshift32: the same sequence on CPython and MicroPython."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1

    def next(self):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def below(self, n):
        return self.next() % n


def shuffled_wall(rs, rng):
    """All tiles of the ruleset's suits as faces, Fisher-Yates shuffled."""
    w = []
    for f in range(27):
        if rs[R.P_SUITS] >> (f // 9) & 1:
            for _ in range(4):
                w.append(f)
    for i in range(len(w) - 1, 0, -1):
        j = rng.below(i + 1)
        w[i], w[j] = w[j], w[i]
    return w


# ----- hand evaluation (the "closest to ready" heuristic) -------------------


def _suit_blocks(h, o, seq_first):
    """(groups, partials, pairs) of one suit by a greedy pass; h is scratch."""
    c = [h[o + i] for i in range(9)]
    groups = 0
    for i in range(9):
        if seq_first:
            while i < 7 and c[i] and c[i + 1] and c[i + 2]:
                c[i] -= 1
                c[i + 1] -= 1
                c[i + 2] -= 1
                groups += 1
            if c[i] >= 3:
                c[i] -= 3
                groups += 1
        else:
            if c[i] >= 3:
                c[i] -= 3
                groups += 1
            while i < 7 and c[i] and c[i + 1] and c[i + 2]:
                c[i] -= 1
                c[i + 1] -= 1
                c[i + 2] -= 1
                groups += 1
    partials = 0
    pairs = 0
    for i in range(9):
        if c[i] >= 2:
            c[i] -= 2
            pairs += 1
        if c[i] and i < 8 and c[i + 1]:
            c[i] -= 1
            c[i + 1] -= 1
            partials += 1
        elif c[i] and i < 7 and c[i + 2]:
            c[i] -= 1
            c[i + 2] -= 1
            partials += 1
    return groups, partials, pairs


def distance(h, nmeld):
    """Approximate tiles missing to ready (0 = one tile from a win) of 3n+1
    concealed counts h with nmeld melds: min of the standard shape estimate
    (8 - 2 groups - partials, partials capped by the free slots) and 七对."""
    groups = nmeld
    partials = 0
    pairs = 0
    for o in (0, 9, 18):
        a = _suit_blocks(h, o, True)
        b = _suit_blocks(h, o, False)
        x = a if 2 * a[0] + a[1] + a[2] >= 2 * b[0] + b[1] + b[2] else b
        groups += x[0]
        partials += x[1]
        pairs += x[2]
    blocks = partials + pairs
    has_pair = 1 if pairs else 0
    if groups + blocks > 4 + has_pair:
        blocks = 4 + has_pair - groups
    std = 8 - 2 * groups - blocks
    if nmeld:
        return std
    allpairs = 0
    for f in range(27):
        allpairs += h[f] // 2
    qd = 6 - allpairs
    return qd if qd < std else std



class Bot:
    """The decisions of one seat (stateless between hands but for `drop`)."""

    def __init__(self, seat):
        self.seat = seat
        self.drop = -1  # rs dingque 2 (no declaration): the suit the bot gives up

    def _fewest(self, g, rs, least):
        """The suit in play (0..2) with the fewest tiles in hand, at least
        `least` of them; -1 if none has."""
        h = g.hand[self.seat]
        best = -1
        bn = 99
        for su in range(3):
            if not rs[R.P_SUITS] >> su & 1:
                continue
            n = 0
            for f in range(su * 9, su * 9 + 9):
                n += h[f]
            if least <= n < bn:
                best, bn = su, n
        return best

    def exchange(self, g, rs):
        h = g.hand[self.seat]
        best = self._fewest(g, rs, 3)
        # the three most isolated tiles of that suit (fewest neighbours)
        c = bytearray(h)
        give = []
        for _ in range(3):
            pick = -1
            ps = 99
            for f in range(best * 9, best * 9 + 9):
                if not c[f]:
                    continue
                r = f % 9
                sc = c[f] * 3
                if r > 0:
                    sc += c[f - 1] * 2
                if r < 8:
                    sc += c[f + 1] * 2
                if sc < ps:
                    pick, ps = f, sc
            c[pick] -= 1
            give.append(pick)
        return give

    def dingque(self, g, rs):
        return self._fewest(g, rs, 0)

    def turn(self, g, rng):
        """The action of the seat whose turn it is to discard."""
        s = self.seat
        acts = g.legal_actions(s)
        hu = None
        kongs = []
        discards = []
        for a in acts:
            k = a[0]
            if k == G.HU:
                hu = a
            elif k == G.DISCARD:
                discards.append(a)
            else:
                kongs.append(a)
        if hu is not None and (not discards or rng.below(8) < 7):
            return hu
        if kongs and rng.below(2):
            return kongs[rng.below(len(kongs))]
        if not discards:
            return acts[0]
        return self._best_discard(g, discards, rng)

    def _best_discard(self, g, discards, rng):
        s = self.seat
        h = g.hand[s]
        if self.drop >= 0:  # no declared void: shed the chosen suit first
            mine = [a for a in discards if a[2] // 9 == self.drop]
            if mine:
                discards = mine
        if len(discards) == 1:
            return discards[0]
        v = g.void[s]
        v = v if v < 3 else -1
        nm = g.nmeld[s]
        best = None
        bscore = 1 << 30
        for a in discards:
            f = a[2]
            h[f] -= 1
            w = shape.waits_mask(h, v)
            if w:
                sc = -bin(w).count("1")
            else:
                sc = 100 * (1 + distance(h, nm))
            h[f] += 1
            sc = sc * 4 + rng.below(4)
            if sc < bscore:
                best, bscore = a, sc
        return best

    def claim(self, g, rng):
        """The answer of this seat to an open claim prompt (胡/碰/杠/过)."""
        s = self.seat
        acts = g.legal_actions(s)
        by = {}
        for a in acts:
            by[a[0]] = a
        m = g.prompt_mask(s)
        if m & C_HU and G.HU in by:
            if G.PASS not in by or rng.below(8) < 7:
                return by[G.HU]
        if m & C_GANG and G.ZHIGANG in by and rng.below(2):
            return by[G.ZHIGANG]
        if m & C_PENG and G.PENG in by and rng.below(3) == 0 and not self._in_run(g, g.pend):
            return by[G.PENG]
        if G.PASS in by:
            return by[G.PASS]
        return acts[0]

    def _in_run(self, g, f):
        h = g.hand[self.seat]
        r = f % 9
        return (r > 0 and h[f - 1] > 0) and (r < 8 and h[f + 1] > 0)


# ----- the match ------------------------------------------------------------


class Sim:
    """A match of bot-played hands under ruleset rs, seeded."""

    def __init__(self, rs, seed):
        self.rs = rs
        self.np = rs[R.P_PLAYERS]
        self.mrng = Rng(seed)
        self.match = G.Match(rs, 0)
        self.hand_no = 0
        self.bots = [Bot(s) for s in range(self.np)]
        z = [0] * self.np
        self.wins = list(z)       # wins per seat
        self.zimo = list(z)       # of them self-drawn
        self.dealt_in = list(z)   # discards others won on (点炮)
        self.kongs = list(z)
        self.ends = [0, 0]        # hands ended by the wall / by winners
        self.actions = 0

    def _direction(self):
        rs = self.rs
        if not rs[R.P_HUANSANZHANG]:
            return G.DIR_NEXT
        dirs = [d for d in (G.DIR_PREV, G.DIR_NEXT, G.DIR_ACROSS)
                if rs[R.P_HSZ_DIRS] & d and (d != G.DIR_ACROSS or self.np == 4)]
        return dirs[self.mrng.below(len(dirs))]

    def play_hand(self, log=False):
        """Play the next hand. Returns a dict: hand (1-based), dealer,
        direction, end ("wall"/"winners"), wins (list of [seat, fan, flags,
        from seat or -1, face], and when the ruleset has house patterns the
        patterns counted, [[id, doublings], ...] as calc names them),
        deltas, totals, actions (accepted), wall (tiles left), and log
        (bytes of the handlog) when log is true."""
        self.hand_no += 1
        hseed = self.mrng.next()
        direction = self._direction()
        g = self.match.new_game(direction)
        rng = Rng(hseed)
        wall = shuffled_wall(self.rs, rng)
        wr = handlog.Writer(self.rs.crc(), self.np, g.dealer, direction, 0) if log else None
        res = {"wins": [], "n": 0, "end": -1}
        t = [0]

        def do(a):
            t[0] += 300 + rng.below(4000)
            a = (a[0], a[1], a[2], t[0])
            ev = g.apply(a)
            if ev[0][0] != EV_ACCEPTED:
                raise ValueError("bot action %r refused: reason %d" % (a, ev[0][2]))
            res["n"] += 1
            if wr is not None:
                wr.record(a, ev)
            for e in ev:
                if e[0] == EV_WIN:
                    w = [e[1], e[2], e[3], e[4], e[5]]
                    if self.rs.house_n:
                        w.append(_patterns(g, e))
                    res["wins"].append(w)
                elif e[0] == EV_HAND_END:
                    res["end"] = e[1]

        self._deal(g, wall, do)
        self._play(g, wall, rng, do)
        drawn = self.mrng.below(self.np) if self.rs[R.P_DEALER_NEXT] == 4 else -1
        dealer = g.dealer
        self.match.finish(g, drawn)
        for w in res["wins"]:
            self.wins[w[0]] += 1
            if w[3] < 0:
                self.zimo[w[0]] += 1
            else:
                self.dealt_in[w[3]] += 1
        for s in range(self.np):
            for m in g.meld_list(s):
                if meld.is_gang(m):
                    self.kongs[s] += 1
        self.ends[res["end"]] += 1
        self.actions += res["n"]
        out = {"hand": self.hand_no, "dealer": dealer, "direction": direction,
               "end": END_NAMES[res["end"]], "wins": res["wins"], "deltas": list(g.delta),
               "totals": list(self.match.totals), "actions": res["n"], "wall": g.wall}
        if self.rs[R.P_JIAOMA]:  # the 马's bound seat, result, and each seat's side payment
            out["ma"] = [g.ma_seat, g.ma_delta, list(g.ma_side)]
        if wr is not None:
            out["log"] = bytes(wr.buf)
        return out

    def _deal(self, g, wall, do):
        rs = self.rs
        n = rs[R.P_HAND_SIZE]
        for s in range(self.np):
            k = n + (1 if s == g.dealer else 0)
            do((G.DEAL, s, [wall.pop() for _ in range(k)]))
        if g.phase == G.PH_DEAL and rs[R.P_JIAOMA]:
            do((G.MA, g.dealer, wall.pop(0)))  # 叫马: a tile from the wall's far end
        if g.phase == G.PH_DEAL and rs[R.P_TINGYONG]:
            do((G.BENJIN, g.dealer, wall.pop()))  # 宜宾 本金: the next tile, turned
        if g.phase == G.PH_EXCHANGE:
            for s in range(self.np):
                do((G.EXCHANGE, s, self.bots[s].exchange(g, rs)))
        for s in range(self.np):
            self.bots[s].drop = -1
        if g.phase == G.PH_DINGQUE:
            for s in range(self.np):
                do((G.DINGQUE, s, self.bots[s].dingque(g, rs)))
        elif rs[R.P_DINGQUE] == 2:  # 缺一门 without a declaration
            for s in range(self.np):
                self.bots[s].drop = self.bots[s].dingque(g, rs)

    def _play(self, g, wall, rng, do):
        steps = 0
        while g.phase != G.PH_END:
            steps += 1
            if steps > 4000:
                raise ValueError("hand %d does not end" % self.hand_no)
            if g.phase == G.PH_DRAW:
                s = g.turn
                # 报胡 before the seat's first draw, half the time it may
                if self.rs[R.P_BAOHU] and not g.check((G.BAOHU, s, -1)) and rng.below(2):
                    do((G.BAOHU, s, -1))
                do((G.DRAW, s, wall.pop()))
            elif g.phase == G.PH_DISCARD:
                do(self.bots[g.turn].turn(g, rng))
            else:
                for k in range(1, self.np + 1):
                    s = (g.pseat + k) % self.np
                    if g.prompt_mask(s):
                        do(self.bots[s].claim(g, rng))
                        break

    def summary(self):
        """The match so far: totals, ranking (seats, first first), per-seat
        wins / self-drawn / dealt-in / kongs, hands by end reason, actions."""
        out = {"hands": self.hand_no, "totals": list(self.match.totals),
               "ranking": self.match.ranking(), "wins": list(self.wins),
               "zimo": list(self.zimo), "dealt_in": list(self.dealt_in),
               "kongs": list(self.kongs), "ends": {"wall": self.ends[0], "winners": self.ends[1]},
               "actions": self.actions}
        if self.rs[R.P_JIAOMA]:
            out["ma_total"] = self.match.ma_total  # the 马's own result
        return out

"""Helpers for the game engine tests (both interpreters): a seeded PRNG that
gives the same numbers on CPython and MicroPython, a shuffled wall, a
simple bot, and scripted hands from notation."""

from sichuan import game as G
from sichuan import meld, tiles, wild
from sichuan.claims import C_PENG, ST_GAVE
from sichuan.settle import EV_ACCEPTED, EV_PAY


class Rng:
    """xorshift32: identical sequences on both interpreters."""

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


def located(g):
    """Copies of each face found in game g's hands, melds, discards, won tiles
    and exchange transit: equals g.seen (tile conservation)."""
    c = bytearray(27)
    for s in range(g.np):
        h = g.hand[s]
        for f in range(27):
            c[f] += h[f]
        for i in range(g.nmeld[s]):
            m = g.melds[4 * s + i]
            c[meld.face(m)] += meld.size(m)
            w = g.fei[4 * s + i]
            if w:  # a 飞: one of the three is a wild
                c[meld.face(m)] -= 1
                c[w - 1] += 1
        if g.phase == G.PH_EXCHANGE and g.status[s] & ST_GAVE:
            for i in range(3):
                c[g.give[3 * s + i]] += 1
    for i in range(g.ndisc):
        if not g.disc[i] & 0x80:
            c[g.disc[i]] += 1
    for f in range(27):
        c[f] += g.gone[f]
    return c


def snapshot(g):
    """All of game g's state as a tuple of bytes and ints, attributes in name
    order (a refusal changes nothing; a replay ends the same). The waits cache
    (_w), the ruleset and the wild module (sichuan.wild, kept by a 宜宾 game
    from its 本金 on) are left out."""
    d = g.__dict__
    out = []
    for k in sorted(d):
        v = d[k]
        if k[0] == "_" or k == "rs" or k == "wild":
            continue
        if isinstance(v, list):
            v = tuple(bytes(x) if isinstance(x, bytearray) else x for x in v)
        elif isinstance(v, bytearray):
            v = bytes(v)
        out.append(v)
    return tuple(out)


def wall(rs, rng):
    """All tiles of the ruleset's suits as faces, shuffled."""
    from sichuan import ruleset as R

    w = []
    for f in range(27):
        if rs[R.P_SUITS] >> (f // 9) & 1:
            w.extend([f] * 4)
    for i in range(len(w) - 1, 0, -1):
        j = rng.below(i + 1)
        w[i], w[j] = w[j], w[i]
    return w


def ok(g, a):
    """Apply a, assert it was accepted; return its events."""
    ev = g.apply(a)
    assert ev[0][0] == EV_ACCEPTED, (a, ev[0])
    return ev


def faces(text):
    """Faces (with repeats) of a notation string."""
    c = tiles.parse(text)
    out = []
    for f in range(27):
        out.extend([f] * c[f])
    return out


def f_(text):
    return tiles.parse_tile(text)


def pays(events):
    """The PAY events of a list as (payer, payee, amount, reason)."""
    return [e[1:] for e in events if e[0] == EV_PAY]


def fewest_suit(h, rs=None):
    best = -1
    bn = 99
    for s in range(3):
        n = sum(h[s * 9:s * 9 + 9])
        if n < bn:
            best, bn = s, n
    return best


def bot_choice(g, s, rng):
    """A simple bot's action for seat s (None if it has none)."""
    acts = g.legal_actions(s)
    if not acts:
        return None
    kinds = [a[0] for a in acts]
    if G.HU in kinds and rng.below(10) < 8:
        return acts[kinds.index(G.HU)]
    if g.phase in (G.PH_CLAIM, G.PH_ROB):
        m = g.prompt_mask(s)
        if m & C_PENG and G.ZHIGANG in kinds and rng.below(2):
            return acts[kinds.index(G.ZHIGANG)]
        if m & C_PENG and G.PENG in kinds and rng.below(3) == 0:
            return acts[kinds.index(G.PENG)]
        if G.FEI in kinds and rng.below(2):
            return acts[kinds.index(G.FEI)]
        if G.PASS in kinds:
            return acts[kinds.index(G.PASS)]
        return acts[0]
    for k in (G.ANGANG, G.BUGANG, G.BAOHU, G.QINGHU, G.TI):
        if k in kinds and rng.below(2):
            return acts[kinds.index(k)]
    ds = [a for a in acts if a[0] == G.DISCARD]
    if not ds:
        return acts[0]
    # keep the hand close to ready: prefer isolated tiles
    h = g.hand[s]
    best = None
    bscore = 99
    for a in ds:
        f = a[2]
        sc = h[f] * 3
        r = f % 9
        if r > 0 and h[f - 1]:
            sc += 2
        if r < 8 and h[f + 1]:
            sc += 2
        sc += rng.below(3)
        if sc < bscore:
            best, bscore = a, sc
    return best


def play(rs, seed, dealer=0, direction=G.DIR_NEXT, log=None, probe=None, game=None):
    """Play one whole hand with bots; returns the finished Game.

    log: a handlog.Writer to record into; probe(g, rng, wall): called before
    every action (tests use it to try illegal actions); game: a new Game of
    rs, dealer and direction to play on (else one is made)."""
    rng = Rng(seed)
    w = wall(rs, rng)
    g = G.Game(rs, dealer, direction) if game is None else game
    t = [1000]

    def do(a):
        t[0] += 1 + rng.below(3000)
        a = (a[0], a[1], a[2], t[0])
        if probe:
            probe(g, rng, w)
        ev = g.apply(a)
        assert ev[0][0] == EV_ACCEPTED, (a, ev[0], g.phase)
        if log is not None:
            log.record(a, ev)
        return ev

    from sichuan import ruleset as R

    n = rs[R.P_HAND_SIZE]
    for s in range(g.np):
        k = n + (1 if s == dealer else 0)
        do((G.DEAL, s, [w.pop() for _ in range(k)]))
    if g.phase == G.PH_DEAL and rs[R.P_JIAOMA]:
        do((G.MA, dealer, w.pop(0)))  # 叫马: the tile at the wall's far end
    if g.phase == G.PH_DEAL and rs[R.P_TINGYONG]:
        do((G.BENJIN, dealer, w.pop()))  # 宜宾 本金: the next tile, turned
    if g.phase == G.PH_EXCHANGE:
        for s in range(g.np):
            h = g.hand[s]
            give = None
            for su in sorted(range(3), key=lambda x: (sum(h[x * 9:x * 9 + 9]), x)):
                if sum(h[su * 9:su * 9 + 9]) >= 3 and rs[R.P_SUITS] >> su & 1:
                    give = []
                    for f in range(su * 9, su * 9 + 9):
                        give.extend([f] * h[f])
                    give = give[:3]
                    break
            do((G.EXCHANGE, s, give))
    if g.phase == G.PH_DINGQUE:
        for s in range(g.np):
            h = g.hand[s]
            best = min((sum(h[x * 9:x * 9 + 9]), x) for x in range(3)
                       if rs[R.P_SUITS] >> x & 1)[1]
            do((G.DINGQUE, s, best))
    steps = 0
    while g.phase != G.PH_END:
        steps += 1
        assert steps < 2000
        if g.phase == G.PH_DRAW:
            if rs[R.P_BAOHU] and not g.check((G.BAOHU, g.turn, -1)) and rng.below(2):
                do((G.BAOHU, g.turn, -1))  # 报胡 before the first draw
            do((G.DRAW, g.turn, w.pop()))
        elif g.phase == G.PH_DISCARD:
            do(bot_choice(g, g.turn, rng))
        else:
            for s in range(g.np):
                if g.prompt_mask(s):
                    a = bot_choice(g, s, rng)
                    do(a)
                    break
    return g


def rules(name, **over):
    """A preset without 换三张 (rule tests start after the deal), with overrides
    by parameter name (`fan_gen=2` for fan.gen)."""
    from sichuan import presets
    from sichuan import ruleset as R

    rs = presets.get(name)
    rs.set(R.P_HUANSANZHANG, 0)
    for k, v in over.items():
        rs.set(R.param_id(k.replace("fan_", "fan.", 1) if k.startswith("fan_") else k), v)
    return rs


def table(rs, hands, voids=None, dealer=0):
    """A Game dealt the given hands (notation; the dealer's has 14) and 定缺 voids."""
    g = G.Game(rs, dealer, G.DIR_NEXT)
    for s in range(len(hands)):
        ok(g, (G.DEAL, s, tiles.parse(hands[s]), 0))
    if g.phase == G.PH_DINGQUE:
        for s in range(len(hands)):
            ok(g, (G.DINGQUE, s, voids[s], 0))
    assert g.phase == G.PH_DISCARD and g.turn == dealer
    return g


def wild_deal(nxt, rs, k):
    """A 宜宾 game (rs: a yibin ruleset) after 定缺 whose seat 3 holds k wild
    copies and two suits, the other seats random; nxt(n) -> 0..n-1 (check.lcg)."""
    left = bytearray([4] * 27)
    b = nxt(27)
    w1, w2 = wild.wild_faces(b)
    left[b] -= 1  # the 本金 turned
    v3 = nxt(3)
    hands = [bytearray(27) for _ in range(4)]
    for _ in range(k):
        w = w1 if left[w1] and (nxt(2) or not left[w2]) else w2
        hands[3][w] += 1
        left[w] -= 1
    for s, n in ((3, 13 - k), (0, 14), (1, 13), (2, 13)):
        while n:
            f = nxt(27)
            if left[f] and (s != 3 or (f // 9 != v3 and f != w1 and f != w2)):
                hands[s][f] += 1
                left[f] -= 1
                n -= 1
    g = G.Game(rs, 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, hands[s], 0))
    ok(g, (G.BENJIN, 0, b, 0))
    for s in range(4):
        ok(g, (G.DINGQUE, s, v3 if s == 3 else fewest_suit(hands[s]), 0))
    return g


def pass_all(g, evs=None):
    """Every open prompt answers 过; returns the events."""
    out = [] if evs is None else evs
    while g.phase in (G.PH_CLAIM, G.PH_ROB):
        for s in range(g.np):
            if g.prompt_mask(s):
                out.extend(ok(g, (G.PASS, s, -1, 0)))
                break
    return out


def discard(g, s, text, passing=True):
    """Seat s discards a tile; all prompts pass unless passing is False."""
    ev = ok(g, (G.DISCARD, s, f_(text), 0))
    if passing:
        pass_all(g, ev)
    return ev


def draw(g, s, text):
    return ok(g, (G.DRAW, s, f_(text), 0))


def cycle(g, s, text):
    """Seat s draws a tile and throws it; prompts pass."""
    ev = draw(g, s, text)
    ev.extend(discard(g, s, text))
    return ev


def act(g, kind, s, text=None):
    return ok(g, (kind, s, f_(text) if text else -1, 0))


def refused(g, a):
    """Apply a, assert it was refused without any change; return the reason."""
    before = snapshot(g)
    ev = g.apply(a if len(a) > 3 else (a[0], a[1], a[2], 0))
    assert ev[0][0] != EV_ACCEPTED, (a, ev)
    assert len(ev) == 1 and snapshot(g) == before
    return ev[0][2]

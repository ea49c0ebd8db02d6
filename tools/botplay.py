# Bots playing whole hands on the engine, one action per step, for the virtual
# table (tools/hostlink_peer.py) and the host link tests. Runs on MicroPython
# and CPython; the same seed gives the same hands on both.
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.claims import C_PENG
from sichuan.settle import EV_ACCEPTED


class Rng:
    """xorshift32: identical sequences on both interpreters."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1

    def below(self, n):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x % n


def _suit_count(h, s):
    n = 0
    for f in range(s * 9, s * 9 + 9):
        n += h[f]
    return n


def _choice(g, s, rng):
    acts = g.legal_actions(s)
    if not acts:
        return None
    kinds = [a[0] for a in acts]
    if G.HU in kinds and rng.below(10) < 8:
        return acts[kinds.index(G.HU)]
    if g.phase == G.PH_CLAIM or g.phase == G.PH_ROB:
        m = g.prompt_mask(s)
        if m & C_PENG and G.PENG in kinds and rng.below(3) == 0:
            return acts[kinds.index(G.PENG)]
        if G.PASS in kinds:
            return acts[kinds.index(G.PASS)]
        return acts[0]
    for k in (G.ANGANG, G.BUGANG):
        if k in kinds and rng.below(2):
            return acts[kinds.index(k)]
    best = None
    bscore = 99
    h = g.hand[s]
    for a in acts:
        if a[0] != G.DISCARD:
            continue
        f = a[2]
        sc = h[f] * 3 + rng.below(3)
        r = f % 9
        if r > 0 and h[f - 1]:
            sc += 2
        if r < 8 and h[f + 1]:
            sc += 2
        if sc < bscore:
            best, bscore = a, sc
    return best if best is not None else acts[0]


def actions(rs, rng, dealer):
    """Yield (direction) first, then each action (kind, seat, arg, None) of one
    bot hand; the caller applies it (it must be accepted) before the next."""
    dirs = [d for d in (1, 2, 4) if rs[R.P_HSZ_DIRS] & d and (d != 4 or rs[R.P_PLAYERS] == 4)]
    direction = dirs[rng.below(len(dirs))] if dirs else G.DIR_NEXT
    g = G.Game(rs, dealer, direction)
    yield g
    w = []
    for f in range(27):
        if rs[R.P_SUITS] >> (f // 9) & 1:
            w.extend([f] * 4)
    for i in range(len(w) - 1, 0, -1):
        j = rng.below(i + 1)
        w[i], w[j] = w[j], w[i]
    n = rs[R.P_HAND_SIZE]
    for s in range(g.np):
        k = n + (1 if s == dealer else 0)
        yield (G.DEAL, s, [w.pop() for _ in range(k)])
    if g.phase == G.PH_EXCHANGE:
        for s in range(g.np):
            h = g.hand[s]
            order = sorted(range(3), key=lambda x: (_suit_count(h, x), x))
            give = []
            for su in order:
                if _suit_count(h, su) >= 3 and rs[R.P_SUITS] >> su & 1:
                    for f in range(su * 9, su * 9 + 9):
                        give.extend([f] * h[f])
                    break
            yield (G.EXCHANGE, s, give[:3])
    if g.phase == G.PH_DINGQUE:
        for s in range(g.np):
            h = g.hand[s]
            best = min((_suit_count(h, x), x) for x in range(3) if rs[R.P_SUITS] >> x & 1)[1]
            yield (G.DINGQUE, s, best)
    steps = 0
    while g.phase != G.PH_END and steps < 2000:
        steps += 1
        if g.phase == G.PH_DRAW:
            yield (G.DRAW, g.turn, w.pop())
        elif g.phase == G.PH_DISCARD:
            yield _choice(g, g.turn, rng)
        else:
            for s in range(g.np):
                if g.prompt_mask(s):
                    yield _choice(g, s, rng)
                    break


def play_hand(rs, rng, dealer, t0, on_action=None):
    """Play one bot hand to its end; returns (game, hand-log bytes).
    on_action(action, events, new_log_bytes) is called after each action."""
    from sichuan import handlog

    it = actions(rs, rng, dealer)
    g = next(it)
    w = handlog.Writer(rs.crc(), g.np, dealer, g.direction, t0)
    t = t0
    for a in it:
        t += 1 + rng.below(3000)
        a = (a[0], a[1], a[2], t)
        mark = len(w.buf)
        ev = g.apply(a)
        if ev[0][0] != EV_ACCEPTED:
            raise RuntimeError("bot action refused: %r %r" % (a, ev[0]))
        w.record(a, ev)
        if on_action is not None:
            on_action(a, ev, w.buf[mark:])
    return g, bytes(w.buf)

"""Deterministic benchmark hands, identical under CPython and MicroPython.

A small linear congruential generator (glibc constants, 31-bit state) drives
everything, with integers only, so both interpreters build exactly the same
hands from the same seed. `digest(hands)` lets the orchestrator check that.

Hands are counts per face (bytearray(27), face = suit*9 + rank-1), concealed
tiles only, shaped like Sichuan play: mostly two suits (the third is 缺),
some with melds already down (so 10 or 7 concealed tiles), some seven pairs.

- `win_hands(n)`: 3k+2 tiles; about two thirds are wins built from groups and
  a pair (or seven pairs), the rest have one tile swapped (mostly not wins).
- `meld_faces(c)`: the 碰 a short hand has shown, for fan scoring.
- `wait_hands(n)`: 3k+1 tiles; a win minus one tile (ready, at least one
  wait), a third of them with one more tile swapped (near-ready, mostly
  no wait). These are the hands a 查叫 or a hint check sees.
"""

SEED = 20260601


class Lcg:
    """x' = (1103515245 x + 12345) mod 2^31; `below(n)` uses the high bits."""

    def __init__(self, seed=SEED):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (1103515245 * self.x + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


_SUIT_SETS = ((1, 2), (0, 2), (0, 1), (0, 1, 2))  # constant: generating makes no garbage


def _suits(rng):
    """Allowed suits as a tuple: 3 in 4 hands use two suits (one is void)."""
    if rng.below(4):
        return _SUIT_SETS[rng.below(3)]
    return _SUIT_SETS[3]


def _face(rng, suits):
    return suits[rng.below(len(suits))] * 9 + rng.below(9)


def _add_group(rng, c, suits):
    """Add a random run or triplet that respects four copies; False if none fit."""
    for _ in range(50):
        f = _face(rng, suits)
        if rng.below(3) == 0:
            if c[f] <= 1:
                c[f] += 3
                return True
        elif f % 9 <= 6 and c[f] < 4 and c[f + 1] < 4 and c[f + 2] < 4:
            c[f] += 1
            c[f + 1] += 1
            c[f + 2] += 1
            return True
    return False


def _add_pair(rng, c, suits):
    for _ in range(50):
        f = _face(rng, suits)
        if c[f] <= 2:
            c[f] += 2
            return True
    return False


def _qidui(rng, suits):
    """Seven pairs; a face may be drawn twice, giving a four (two pairs, a 根)."""
    while True:
        c = bytearray(27)
        ok = True
        for _ in range(7):
            if not _add_pair(rng, c, suits):
                ok = False
        if ok:
            return c


def _win(rng):
    """A winning concealed hand: (4 - melds) groups and a pair, or seven pairs."""
    suits = _suits(rng)
    r = rng.below(10)
    melds = 0 if r < 7 else (1 if r < 9 else 2)
    if melds == 0 and rng.below(8) == 0:
        return _qidui(rng, suits)
    while True:
        c = bytearray(27)
        ok = _add_pair(rng, c, suits)
        for _ in range(4 - melds):
            ok = ok and _add_group(rng, c, suits)
        if ok:
            return c


def _nth_tile(c, k):
    """Face of the k-th tile (0-based) in face order."""
    for f in range(27):
        if k < c[f]:
            return f
        k -= c[f]
    raise ValueError("k beyond the hand")


def _remove_one(rng, c):
    n = 0
    for x in c:
        n += x
    c[_nth_tile(c, rng.below(n))] -= 1


def _swap_one(rng, c):
    """Replace one tile by a random face of any suit (still at most four)."""
    _remove_one(rng, c)
    while True:
        f = rng.below(27)
        if c[f] < 4:
            c[f] += 1
            return


def win_hands(n, seed=SEED):
    rng = Lcg(seed)
    out = []
    for i in range(n):
        c = _win(rng)
        if i % 3 == 2:
            _swap_one(rng, c)
        out.append(c)
    return out


def wait_hands(n, seed=SEED + 1):
    rng = Lcg(seed)
    out = []
    for i in range(n):
        c = _win(rng)
        _remove_one(rng, c)
        if i % 3 == 2:
            _swap_one(rng, c)
        out.append(c)
    return out


def meld_faces(c):
    """Faces of the 碰 a hand of c's size has shown (13 - tiles) // 3 of them.

    Deterministic: the lowest faces absent from c in the suits c uses (so
    no fifth copy and no new suit); enough for fan scoring to see full hands.
    """
    k = (13 - sum(c)) // 3
    out = []
    for f in range(27):
        if len(out) == k:
            break
        o = f - f % 9
        if c[f] == 0 and sum(c[o:o + 9]):
            out.append(f)
    return out


def digest(hands):
    """A 24-bit checksum of a hand list, to check both interpreters saw the same."""
    h = 0
    for c in hands:
        for x in c:
            h = (h * 31 + x + 1) & 0xFFFFFF
    return h

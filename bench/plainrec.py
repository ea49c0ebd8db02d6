"""Plain recursive win check and waits: the honest baseline for the benchmark.

This is the textbook method, written carefully (counts mutated in place and
restored, no copies, no allocation), so that a speed ratio against it measures
the core's algorithm and not a strawman:

- win: the void suit must be empty; seven pairs (a four counts as two pairs,
  as in the core); else for each face with two or more tiles take it as the
  pair, then decompose the rest by always consuming the lowest remaining tile,
  as a triplet or as the start of a run, backtracking between the two.
- waits: try each of the 27 faces (skipping a fifth copy, counting `limit`
  copies held in melds), keep those that make a win.

Same signatures as sichuan.shape.is_win / waits; runs on both interpreters.
"""


def _groups(c, i):
    """True if faces i..26 of c split into runs and triplets (lowest tile first)."""
    while i < 27 and c[i] == 0:
        i += 1
    if i == 27:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _groups(c, i)
        c[i] += 3
        if ok:
            return True
    if i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _groups(c, i)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def is_win(c, void=-1):
    """True if the concealed tiles c (bytearray(27), 3n+2 tiles) are a win."""
    n = 0
    for f in range(27):
        n += c[f]
    if n % 3 != 2:
        return False
    if void >= 0:
        for f in range(void * 9, void * 9 + 9):
            if c[f]:
                return False
    if n == 14:
        odd = False
        for f in range(27):
            if c[f] & 1:
                odd = True
                break
        if not odd:
            return True
    for f in range(27):
        if c[f] >= 2:
            c[f] -= 2
            ok = _groups(c, 0)
            c[f] += 2
            if ok:
                return True
    return False


def waits(c, void=-1, limit=None):
    """Faces (in order) that complete the concealed tiles c (3n+1 tiles)."""
    out = []
    for f in range(27):
        if c[f] + (limit[f] if limit else 0) >= 4:
            continue
        c[f] += 1
        if is_win(c, void):
            out.append(f)
        c[f] -= 1
    return out

"""Whole events in which nobody meets anyone twice, for the table counts a
search finds them too slowly or not at all for (5 to 9 and 11 tables of 4): a list of rounds,
each a list of tables of points 0..n-1 (a resolvable design).

- 5, 8, 9 and 11 tables: the transversal design over the field of that
  order (Z5, GF(8), GF(9), Z11): point (row r, column c) is r * q + c; round j's table
  i holds (r, i + lam[r] * j) for lam = 0, 1, 2, 3; two points of other rows
  meet in the one round where their columns differ by (lam[r2] - lam[r1]) *
  j, two of one row never: q rounds, and for 8 tables a ninth, the rows
  cut in tables of 4.
- 6 tables (no field of order 6): 6 rounds found by the golfer's search
  (golfer.Golf, round 1 as history, seed 104 of a run of seeds, 3,000,000
  evaluations: too slow for a draw).
- 7 tables: the Hermitian unital of order 3 (the 28 points of x^4 + y^4 +
  z^4 = 0 in the projective plane over GF(9), its 63 lines of 4 points) in
  9 parallel classes (a resolution found by a depth-first search over its
  classes): 9 rounds.
"""

from __future__ import annotations

import functools

_LAM = (0, 1, 2, 3)

# 6 tables: 6 rounds, points 0-9 a-n
_G24 = (
    "0123 4567 89ab cdef ghij klmn 34fk 259c 6din 0bgm 7aeh 18jl 1chk 26al 04ei 379g "
    "bfjn 58dm 068k 49hn 7bdl 15fg 3aci 2ejm 05an 28fh 36be 4cgl 9djk 17im 35hl 2bik "
    "8egn 07cj 14ad 69fm")

# the unital's resolution: 9 rounds of 7 tables, points 0-9 a-r
_U28 = (
    "0123 4567 89ab cdef ghij klqr mnop 04jn 178e 2dgq 3blo 59ik 6cpr afhm "
    "05bc 19lm 26ho 3ejq 4agk 7fnr 8dip 069e 1fko 2bir 34hp 5anq 7djl 8cgm "
    "07go 1ajr 2ekp 358f 4cil 6bmq 9dhn 08hr 14bd 25jm 3ckn 6fgl 79pq aeio "
    "0alp 1chq 249f 37im 5dor 68jk begn 0dkm 16in 27ac 39gr 48oq 5ehl bfjp "
    "0fiq 15gp 28ln 36ad 4emr 7bhk 9cjo")


def _gf8_mul(a, b):
    """GF(8) = GF(2)[x]/(x^3 + x + 1), elements as 3-bit ints."""
    out = 0
    for _ in range(3):
        if b & 1:
            out ^= a
        b >>= 1
        a <<= 1
        if a & 8:
            a ^= 0b1011
    return out


def _gf9(a, b, op):
    """GF(9) = GF(3)[i]/(i^2 + 1), elements as a0 + 3 a1."""
    a0, a1, b0, b1 = a % 3, a // 3, b % 3, b // 3
    if op == "+":
        return (a0 + b0) % 3 + 3 * ((a1 + b1) % 3)
    return (a0 * b0 - a1 * b1) % 3 + 3 * ((a0 * b1 + a1 * b0) % 3)


_FIELDS = {
    5: (lambda a, b: (a + b) % 5, lambda a, b: a * b % 5),
    11: (lambda a, b: (a + b) % 11, lambda a, b: a * b % 11),
    8: (lambda a, b: a ^ b, _gf8_mul),
    9: (lambda a, b: _gf9(a, b, "+"), lambda a, b: _gf9(a, b, "*")),
}


def _transversal(q):
    add, mul = _FIELDS[q]
    out = [[[r * q + add(i, mul(lam, j)) for r, lam in enumerate(_LAM)] for i in range(q)]
           for j in range(q)]
    if q % 4 == 0:  # a round more: the rows, 4 to a table
        out.append([[r * q + c + i for i in range(4)] for r in range(4) for c in range(0, q, 4)])
    return out


def _listed(text, per):
    """Rounds of per tables from their points as digits 0-9 a-z."""
    tables = [[int(c, 36) for c in t] for t in text.split()]
    return [tables[i:i + per] for i in range(0, len(tables), per)]


@functools.lru_cache(maxsize=None)
def design(tables: int, np: int):
    """The rounds of a design for tables tables of np, or None (none known here)."""
    if np != 4:
        return None
    if tables in _FIELDS:
        return _transversal(tables)
    if tables in (6, 7):
        return _listed(_G24 if tables == 6 else _U28, tables)
    return None

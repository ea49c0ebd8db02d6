"""The draw of a round: which players sit at which table and seat.

Round 1: a random draw from the event's seed (random.Random(seed): the same
file gives the same draw on every laptop). Later rounds: by standing (the
leaders together, as a Swiss system does), with no two players meeting
again where it can be avoided: tables are filled from the top of the
standings, each taking the best-placed players who met none of its players
yet; then swaps between tables take out the repeats that are left, fewest
first. Seats: each table's players take the seat assignment (of the n!)
that sits each where they have sat least so far (wind balance: over 4k
rounds each player sits each wind k times as near as the tables allow), the
order of the standings breaking ties.
Everything here is pure: lists of player ids in, {table_no: [pid per seat]} out.
"""

from __future__ import annotations

import itertools
import random


def first_round(pids: list, np: int, seed: int) -> dict:
    order = sorted(pids)
    random.Random(seed).shuffle(order)
    counts: dict = {}
    return _seat_tables([order[i:i + np] for i in range(0, len(order), np)], counts, np)


def met_pairs(history: dict) -> dict:
    """{(a, b): times met} (a < b) of the rounds drawn: {round: {table: [pids]}}."""
    out: dict = {}
    for tables in history.values():
        for pids in tables.values():
            for a, b in itertools.combinations(sorted(pids), 2):
                out[(a, b)] = out.get((a, b), 0) + 1
    return out


def seat_counts(history: dict, np: int) -> dict:
    """{pid: [times at seat 0..np-1]}."""
    out: dict = {}
    for tables in history.values():
        for pids in tables.values():
            for s, p in enumerate(pids):
                out.setdefault(p, [0] * np)[s] += 1
    return out


def next_round(ranked: list, history: dict, np: int) -> dict:
    """The draw of the next round: ranked is the player ids by standing, best first."""
    met = met_pairs(history)

    def meets(a, b):
        return met.get((a, b) if a < b else (b, a), 0)

    left = list(ranked)
    tables: list = []
    while left:
        t = [left.pop(0)]
        while len(t) < np:
            # the best-placed player new to everyone at the table; else the one
            # who met them least (the last tables may have no clean choice)
            best = min(range(len(left)), key=lambda i: (sum(meets(left[i], p) for p in t), i))
            t.append(left.pop(best))
        tables.append(t)
    _swap_out_repeats(tables, meets)
    return _seat_tables(tables, seat_counts(history, np), np)


def repeats(tables: list, meets) -> int:
    return sum(meets(a, b) for t in tables for a, b in itertools.combinations(t, 2))


def _table_cost(t, meets) -> int:
    return sum(meets(a, b) for a, b in itertools.combinations(t, 2))


def _swap_out_repeats(tables: list, meets, rounds: int = 4) -> None:
    """Swap players between tables while that lowers the repeat meetings;
    nearer tables first, so the draw stays close to the standings."""
    n = len(tables)
    for _ in range(rounds):
        better = False
        for i in range(n):
            if not _table_cost(tables[i], meets):
                continue
            for d in range(1, n):
                for j in (i + d, i - d):
                    if not 0 <= j < n:
                        continue
                    if _try_swap(tables[i], tables[j], meets):
                        better = True
                    if not _table_cost(tables[i], meets):
                        break
                if not _table_cost(tables[i], meets):
                    break
        if not better:
            return


def _try_swap(a: list, b: list, meets) -> bool:
    base = _table_cost(a, meets) + _table_cost(b, meets)
    for x in range(len(a)):
        for y in range(len(b)):
            a[x], b[y] = b[y], a[x]
            if _table_cost(a, meets) + _table_cost(b, meets) < base:
                return True
            a[x], b[y] = b[y], a[x]
    return False


def _seat_tables(tables: list, counts: dict, np: int) -> dict:
    out = {}
    for k, t in enumerate(tables):
        out[k + 1] = _seat(t, counts, np)
    return out


def _seat(t: list, counts: dict, np: int) -> list:
    """The seat order of table t that sits each player where they sat least
    (sum of squares of the counts after this round: balanced over rounds)."""
    best = None
    for perm in itertools.permutations(range(len(t))):
        cost = 0
        for s, i in enumerate(perm):
            c = counts.get(t[i], [0] * np)[s] + 1
            cost += c * c
        if best is None or cost < best[0]:
            best = (cost, perm)
    return [t[i] for i in best[1]]

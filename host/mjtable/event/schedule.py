"""An event's rounds fixed from round 1: a schedule in which nobody meets
anyone twice, for the events where drawing round by round leaves repeats
(5 to 11 tables of 4).

The schedule is a function of round 1's seating, the number of rounds and
the seed only (not of standings): every draw of the event computes the same
one again and checks that the rounds drawn are its rounds. It comes from a
design (designs.design: 5 to 9 and 11 tables) or else from the social golfer
search (golfer.Golf) over rounds 2 to the last with round 1 as history.
Winds: a block's rounds (1-4, 5-8, ...) are coloured together (round 1's
seats, then golfer's winds or edge_colors), so that nobody sits a wind twice
in a block however its rounds are ordered. The standings choose which of
the block's rounds not drawn yet comes next (the one whose tables, by mean
rank, sit players nearest their rank's table) and the tables' order.
"""

from __future__ import annotations

import functools
import random

from mjtable.event import designs, golfer

# tables: below 5 (16 players: the round-by-round draw's depth-first search
# finds the affine plane; fewer tables than seats cannot meet nobody twice)
# and from 12 on, the round-by-round draw met nobody twice, nearer the standings
_TABLES = range(5, 12)
_EVALS = 400_000  # the golfer's evaluations (~0.7 s): 40 x 8 took 67,000-230,000 (40 seeds)


def next_round(ranked, history, np, rounds, seed):
    """The next round from the event's schedule, or None (no schedule for
    this event, or the rounds drawn are not its rounds)."""
    r, n = max(history, default=0) + 1, len(ranked)
    if r < 2 or n % np or sorted(history) != list(range(1, r)):
        return None
    first = tuple(tuple(history[1][t]) for t in sorted(history[1]))
    if any(len(t) != np for t in first) or sorted(p for t in first for p in t) != sorted(ranked):
        return None
    got = schedule(first, np, max(rounds, r), seed)
    if got is None:
        return None
    plan, keys = got
    used = {0}  # round 1
    for q in range(2, r):
        key = frozenset(tuple(t) for t in history[q].values())
        i = next((i for i in _block(q, np, plan) if i not in used and keys[i] == key), None)
        if i is None:
            return None
        used.add(i)
    free = [i for i in _block(r, np, plan) if i not in used]
    if not free:
        return None
    num = {p: i for i, p in enumerate(ranked)}
    tables = min((_ranked(plan[i], num) for i in free), key=lambda t: _dist(t, num, np))
    return {k + 1: list(t) for k, t in enumerate(tables)}


def _block(q, np, plan):
    """The schedule's rounds (indices: round 1 is 0) of event round q's block."""
    start = (q - 1) // np * np
    return range(start, min(len(plan), start + np))


def _ranked(tables, num):
    """Tables in their order on the sheet: the leader's first, the rest by
    their players' mean rank."""
    return sorted(tables, key=lambda t: (0 not in [num[p] for p in t], sum(num[p] for p in t)))


def _dist(tables, num, np):
    """How many tables each player sits from their rank's own (rank / np)."""
    return sum(abs(k - num[p] // np) for k, t in enumerate(tables) for p in t)


@functools.lru_cache(maxsize=4)
def schedule(first, np, rounds, seed):
    """(rounds, keys) of an event whose round 1 is first (tables of player
    ids in seat order): each round its tables in seat order, keys[i] round
    i's frozenset of tables (to find a round drawn); None when there is none
    here."""
    found = _from_design(first, np, rounds) or _from_search(first, np, rounds, seed)
    if found is None:
        return None
    plan, winds = found
    plan = [[tuple(sorted(t, key=winds[i].__getitem__)) for t in tables]
            for i, tables in enumerate(plan)]
    return plan, [frozenset(tables) for tables in plan]


def _from_design(first, np, rounds):
    """A design's rounds on the event's players: round 1's table i, seat s
    is the point of the design's round 0 table i that sits wind s there."""
    des = designs.design(len(first), np)
    if not des or rounds > len(des):
        return None
    winds = _design_winds(len(first), np)
    pid = {}
    for i, table in enumerate(first):
        for s, p in enumerate(table):
            pid[next(x for x in des[0][i] if winds[0][x] == s)] = p
    return ([[[pid[x] for x in t] for t in tables] for tables in des],
            [{pid[x]: w for x, w in enumerate(ws)} for ws in winds])


@functools.lru_cache(maxsize=None)
def _design_winds(tables, np):
    """[round] -> [wind per point] of a design, a block of np rounds at a time."""
    des = designs.design(tables, np)
    out = []
    for b in range(0, len(des), np):
        out += golfer.edge_colors(des[b:b + np], tables * np, np)
    return out


def _from_search(first, np, rounds, seed):
    """Rounds 2 to the last by the golfer's search, round 1 the history;
    block 1's winds its search's (round 1's seats the first), the later
    blocks' an edge colouring."""
    n = len(first) * np
    if len(first) not in _TABLES or rounds * len(first) * np * (np - 1) > n * (n - 1):
        # small or big enough for the round-by-round draw; or more meetings
        # than pairs
        return None
    ids = [p for t in first for p in t]
    meet = [[0] * n for _ in range(n)]
    for t in range(len(first)):
        for a in range(t * np, t * np + np):
            for b in range(t * np, t * np + np):
                meet[a][b] += a != b
    rng = random.Random(seed)
    start = []
    for _ in range(rounds - 1):
        order = list(range(n))
        rng.shuffle(order)
        start.append([order[i:i + np] for i in range(0, n, np)])
    m = min(rounds - 1, np - 1)
    sig = [[(s + j) % np for j in range(1, np)] for _ in first for s in range(np)]
    g = golfer.Golf(np, start, meet, sig, m)
    if not g.run(rng, _EVALS):
        return None
    plan = [[list(range(t * np, t * np + np)) for t in range(len(first))]] + g.rounds
    winds = [[s for _ in first for s in range(np)]]
    winds += [[g.sig[p][k] for p in range(n)] for k in range(m)]
    for b in range(np, rounds, np):
        winds += golfer.edge_colors(plan[b:b + np], n, np)
    return ([[[ids[x] for x in t] for t in tables] for tables in plan],
            [{ids[x]: w for x, w in enumerate(ws)} for ws in winds])

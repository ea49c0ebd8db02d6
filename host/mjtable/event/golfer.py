"""A plan of rounds in which nobody meets anyone twice: the social golfer
problem, by the local search of Dotu and Van Hentenryck (2005).

The search: in the round with the most conflicts (players at a table with
someone they met before, or sharing a wind with someone there), the best
trade of a conflicted player with a player of another table, or of two of
its winds (the rounds of the block still to draw); a trade is tabu a few
steps after it was made unless it beats the best plan yet; after a while
without a better plan, back to the best with a few random trades. Seeded
and counted in evaluations, not seconds: the same inputs give the same plan
everywhere.

Players are numbers 0..n-1; a round is a list of tables (lists of players).
Winds matter only in the rounds of the block already begun (sig: each
player's winds still free in it, in the order of its rounds): a block still
to begin takes any tables, and edge_colors gives its winds (König: the
players and tables of a block are a bipartite graph whose degrees are at
most the seats, which that many winds colour).
"""

from __future__ import annotations

_STALE = 120  # steps without a better plan before the perturbation
_KICK = 3  # random trades of the perturbation
_TENURE = (4, 8)  # a trade stays tabu 4 + n / 8 steps, up to twice that


class Golf:
    """The plan, the meetings (history and plan), the conflicts counted."""

    def __init__(self, np, rounds, meet, sig=None, m=0):
        self.np, self.h = np, len(rounds)
        self.n = n = len(meet)
        self.rounds = [[t[:] for t in r] for r in rounds]
        self.hist = meet  # the meetings before the plan (not changed)
        self.meet = [row[:] for row in meet]
        base = sum(max(0, x - 1) for row in meet for x in row) // 2
        self.pos = [[0] * n for _ in range(self.h)]
        for k, tables in enumerate(self.rounds):
            for t, table in enumerate(tables):
                for i, a in enumerate(table):
                    self.pos[k][a] = t
                    for b in table[:i]:
                        self.meet[a][b] += 1
                        self.meet[b][a] += 1
        self.sig = [s[:] for s in sig] if sig else None
        self.m = m if sig else 0  # the rounds 0..m-1 need distinct winds at a table
        self.f = sum(max(0, x - 1) for row in self.meet for x in row) // 2 - base
        self.f += sum(self._clash(k, t) for k in range(self.m) for t in range(len(self.rounds[k])))

    def _clash(self, k, t):
        table = self.rounds[k][t]
        return len(table) - len({self.sig[p][k] for p in table})

    def conflicted(self, k):
        """Round k's players in a conflict."""
        meet, out = self.meet, []
        winds = k < self.m
        for table in self.rounds[k]:
            ws = [self.sig[p][k] for p in table] if winds else ()
            for i, a in enumerate(table):
                row = meet[a]
                if any(row[b] >= 2 for b in table if b != a) or winds and ws.count(ws[i]) > 1:
                    out.append(a)
        return out

    def _swap_delta(self, k, a, b):
        """The change in conflicts of a and b (round k, other tables) trading tables."""
        tables = self.rounds[k]
        A, B = tables[self.pos[k][a]], tables[self.pos[k][b]]
        ma, mb = self.meet[a], self.meet[b]
        d = 0
        for x in A:
            if x != a:
                d += (mb[x] >= 1) - (ma[x] >= 2)
        for y in B:
            if y != b:
                d += (ma[y] >= 1) - (mb[y] >= 2)
        if k < self.m:
            sig = self.sig
            wa, wb = sig[a][k], sig[b][k]
            if wa != wb:
                wA = [sig[x][k] for x in A if x != a]
                wB = [sig[y][k] for y in B if y != b]
                d += (wb in wA) - (wa in wA) + (wa in wB) - (wb in wB)
        return d

    def swap(self, k, a, b):
        self.f += self._swap_delta(k, a, b)
        pos, meet = self.pos[k], self.meet
        ta, tb = pos[a], pos[b]
        A, B = self.rounds[k][ta], self.rounds[k][tb]
        trade(meet, A, B, a, b)
        A[A.index(a)], B[B.index(b)] = b, a
        pos[a], pos[b] = tb, ta

    def _turn_delta(self, k, a, k2):
        """The change in clashes of a trading its winds of rounds k and k2."""
        touched = [(k, self.pos[k][a])] + ([(k2, self.pos[k2][a])] if k2 < self.m else [])
        d = -sum(self._clash(q, t) for q, t in touched)
        self.turn(a, k, k2)
        d += sum(self._clash(q, t) for q, t in touched)
        self.turn(a, k, k2)
        return d

    def turn(self, a, k, k2):
        s = self.sig[a]
        s[k], s[k2] = s[k2], s[k]

    def snapshot(self):
        return ([[t[:] for t in r] for r in self.rounds],
                [s[:] for s in self.sig] if self.sig else None)

    def restore(self, snap):
        rounds, sig = snap
        self.__init__(self.np, rounds, self.hist, sig, self.m)

    def run(self, rng, budget):
        """Search until no conflict is left or budget evaluations are spent.
        True: no conflict left (else the best plan found is kept)."""
        best, keep = self.f, self.snapshot()
        tabu, step, stale, evals = {}, 0, 0, 0
        h, tenure = self.h, _TENURE[0] + self.n // _TENURE[1]
        while self.f and evals < budget:
            step += 1
            conf = [(len(c), k, c) for k in range(h) for c in [self.conflicted(k)] if c]
            top = max(x[0] for x in conf)  # (f counts only conflicts in the plan)
            _, k, players = rng.choice([x for x in conf if x[0] == top])
            low, moves, e = self._moves(k, players, tabu, step, best)
            evals += e
            if moves:
                k, a, b = rng.choice(moves)
                t = step + tenure + rng.randrange(tenure)
                if b < 0:
                    self.f += self._turn_delta(k, a, -1 - b)
                    self.turn(a, k, -1 - b)
                    tabu[(k, a, b)] = t
                else:
                    ta, tb = self.pos[k][a], self.pos[k][b]
                    self.swap(k, a, b)
                    tabu[(k, a, ta)] = tabu[(k, b, tb)] = t
            if self.f < best:
                best, keep, stale = self.f, self.snapshot(), 0
            else:
                stale += 1
            if stale > _STALE:
                self.restore(keep)
                self._kick(rng)
                stale = 0
        if self.f > best:
            self.restore(keep)
        return not self.f

    def _moves(self, k, players, tabu, step, best):
        """The change in conflicts of the best moves of round k's conflicted
        players, those moves ((k, a, b): a and b trade tables; (k, a, -1 -
        k2): a trades its winds of rounds k and k2) and the evaluations spent."""
        low, moves, evals = None, [], 0
        for move, d, banned in self._candidates(k, players, tabu, step):
            evals += 1
            if low is not None and d > low or banned and self.f + d >= best:
                continue
            if low is None or d < low:
                moves, low = [move], d
            else:
                moves.append(move)
        return low, moves, evals

    def _candidates(self, k, players, tabu, step):
        """(move, change in conflicts, whether tabu) of each move of players."""
        pos = self.pos[k]
        for a in players:
            ta = pos[a]
            for b in range(self.n):
                tb = pos[b]
                if tb != ta:
                    yield ((k, a, b), self._swap_delta(k, a, b),
                           tabu.get((k, a, tb), 0) >= step or tabu.get((k, b, ta), 0) >= step)
            for k2 in range(len(self.sig[a])) if k < self.m else ():
                if k2 != k:
                    yield ((k, a, -1 - k2), self._turn_delta(k, a, k2),
                           tabu.get((k, a, -1 - k2), 0) >= step)

    def _kick(self, rng):
        for _ in range(_KICK):
            k = rng.randrange(self.h)
            a, b = rng.sample(range(self.n), 2)
            if self.pos[k][a] != self.pos[k][b]:
                self.swap(k, a, b)


def trade(meet, A, B, a, b) -> None:
    """The meetings (a matrix of counts) after a (at table A) and b (at B)
    trade tables."""
    _take(meet, A, a, b)
    _take(meet, B, b, a)


def _take(meet, table, out, into) -> None:
    for x in table:
        if x != out:
            meet[out][x] -= 1
            meet[x][out] -= 1
            meet[into][x] += 1
            meet[x][into] += 1


def edge_colors(rounds, n, np):
    """Winds for a block's rounds (a list of rounds of tables) so that nobody
    sits a wind twice in the block and no table has a wind twice: [round]
    -> [wind per player]. The alternating-path proof of König's theorem."""
    at: list = [dict() for _ in range(n + sum(len(r) for r in rounds))]  # node -> {wind: node}
    u = n
    for tables in rounds:
        for table in tables:
            for p in table:
                _color(at, p, u, np)
            u += 1
    out, u = [], n
    for tables in rounds:
        wind = [0] * n
        for _table in tables:
            for w, p in at[u].items():
                wind[p] = w
            u += 1
        out.append(wind)
    return out


def _color(at, p, u, np):
    a = next(c for c in range(np) if c not in at[p])
    b = next(c for c in range(np) if c not in at[u])
    if a in at[u]:
        # the path from u of winds a, b, a, ... swaps them (bipartite: it
        # cannot end at p), which frees a at u
        path, x, c = [], u, a
        while c in at[x]:
            y = at[x][c]
            path.append((x, y, c))
            x, c = y, (b if c == a else a)
        for x, y, c in path:
            del at[x][c]
            del at[y][c]
        for x, y, c in path:
            d = b if c == a else a
            at[x][d] = y
            at[y][d] = x
    at[p][a] = u
    at[u][a] = p

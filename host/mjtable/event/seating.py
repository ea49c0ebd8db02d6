"""The draw of a round: which players sit at which table and seat.

Round 1: a random draw from the event's seed (random.Random(seed): the same
file gives the same draw on every laptop). Later rounds, in this order of
priority:
  1. seat winds balanced: the rounds fall in blocks of np (1-4, 5-8, ... for
     four seats) and nobody sits the same wind twice in a block, so after
     round r everyone has sat each wind floor(r/np) or ceil(r/np) times
     (always possible: in a block's j-th round each wind is free for the
     same number of players);
  2. the fewest repeat meetings over the rest of the event: the draw plans
     the rounds still to come (without standings) beside this one, so it
     does not take a draw that leaves the later rounds no clean choice;
  3. by standing: the leaders together, as a Swiss system does (each
     player's table as near as the rest allows to the one their rank gives).
The draw: tables filled from the top of the standings, each taking the
best-placed players who met none of its players yet and can still take free
winds; then a tabu search of swaps between players of a round takes out
the repeats and wind repeats left (seeded, a bounded number of moves: the
same inputs draw the same everywhere); then swaps that bring players nearer
their rank's table.
Everything here is pure: lists of player ids in, {table_no: [pid per seat]} out.
"""

from __future__ import annotations

import itertools
import random

# cost weights, each outweighing all below: a wind sat twice in a block; a
# repeat meeting in this round; one in the rounds planned after it; a table
# of distance from the standings
_WIND, _NOW, _MEET = 1 << 60, 1 << 40, 1 << 20
_TENURE = (2, 4)
_DEEP = 640  # players x rounds planned: the depth-first search's depth
_TRIES = 50_000  # candidates the depth-first search may try first
_EVALS = 100_000  # move evaluations the search may spend on one draw (~1 s)


def first_round(pids: list, np: int, seed: int) -> dict:
    order = sorted(pids)
    random.Random(seed).shuffle(order)
    return {k + 1: order[i:i + np] for k, i in enumerate(range(0, len(order), np))}


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


def repeats(tables: list, meets) -> int:
    return sum(meets(a, b) for t in tables for a, b in itertools.combinations(t, 2))


def extra_meetings(history: dict) -> int:
    """Meetings beyond each pair's first, over the rounds drawn."""
    return sum(m - 1 for m in met_pairs(history).values())


def fewest_possible(players: int, np: int, rounds: int) -> int:
    """A floor under extra_meetings after that many rounds: meetings beyond
    the number of pairs there are."""
    return max(0, rounds * (players // np) * (np * (np - 1) // 2) - players * (players - 1) // 2)


def next_round(ranked: list, history: dict, np: int, rounds: int = 0, seed: int = 0) -> dict:
    """The draw of the next round: ranked is the player ids by standing, best
    first; rounds the event's number of rounds (the draw plans those left)."""
    r, n = max(history, default=0) + 1, len(ranked)
    h = max(rounds, r) - r + 1
    rng = random.Random(seed * 1000 + r)
    orders = [list(range(n))]
    for _ in range(1, h):
        orders.append(orders[0][:])
        rng.shuffle(orders[-1])
    # a small event: a depth-first search for a plan with no repeat, over
    # the rounds in which everyone can still meet only new players (it goes
    # a level deeper a player: the big events, with room to spare, have
    # filling and trading find theirs)
    clean = min(h, (n - 1) // (np - 1) - (r - 1))
    plan = _Plan(ranked, history, np, r, clean) if 0 < clean and clean * n <= _DEEP else None
    if plan is None or not plan.exact(orders, _TRIES):
        plan = _Plan(ranked, history, np, r, h)
        for k, order in enumerate(orders):
            plan.fill(k, order)
        plan.search(rng)
    plan.nearer()
    tables = sorted(plan.seated(), key=sorted)  # table 1 holds the leader
    return {t + 1: [ranked[p] for p in table] for t, table in enumerate(tables)}


class _GiveUp(Exception):
    pass


class _Plan:
    """This round (k = 0) and the h - 1 left, as lists of tables of player
    numbers (0 = the leader), with what the costs need.

    Winds: the rounds fall in blocks of np; a player's type in a block is the
    seat they take in its first round, and in its j-th round they sit seat
    (type + j) % np. A table of one player of each type then seats everyone
    on a wind they have not sat in the block. The costs: tv (players whose
    type another at their table has, in a block's later rounds), rep
    (meetings beyond each pair's first, history and plan), dist (round 0:
    how many tables each player sits from their rank's own)."""

    def __init__(self, ranked, history, np, r, h):
        self.n, self.np, self.r, self.h = len(ranked), np, r, h
        num = {p: i for i, p in enumerate(ranked)}
        n = self.n
        self.meet = [[0] * n for _ in range(n)]
        self.htype: dict = {}  # block -> type per player, when its first round is drawn
        self.hseat: dict = {}  # block -> seat counts per player, of the drawn rounds
        for q, tables in history.items():
            blk = (q - 1) // np
            if (q - 1) % np == 0:
                self.htype[blk] = [np + i for i in range(n)]  # absent: no one's type
            counts = self.hseat.setdefault(blk, [[0] * np for _ in range(n)])
            for pids in tables.values():
                ids = [(s, num[p]) for s, p in enumerate(pids) if p in num]
                for i, (s, a) in enumerate(ids):
                    counts[a][s] += 1
                    if (q - 1) % np == 0:
                        self.htype[blk][a] = s
                    for _, b in ids[:i]:
                        self.meet[a][b] += 1
                        self.meet[b][a] += 1
        self.rep = sum(max(0, m - 1) for row in self.meet for m in row) // 2
        self.now = [row[:] for row in self.meet]  # history and round 0 only
        self.rep0 = self.rep
        self.j = [(r + k - 1) % np for k in range(h)]  # place in the block
        self.rounds: list = [None] * h
        self.pos = [[None] * n for _ in range(h)]
        self.tv = self.dist = 0

    def later(self, k):
        """The plan's rounds after k in k's block."""
        return range(k + 1, min(self.h, k + self.np - self.j[k]))

    def first(self, k):
        """The plan round that starts k's block, or None (drawn before)."""
        kf = k - self.j[k]
        return kf if kf >= 0 else None

    def type(self, k, p):
        kf = self.first(k)
        if kf is not None:
            return self.pos[kf][p][1]
        ht = self.htype.get((self.r + k - 1) // self.np)
        return ht[p] if ht else self.np + p

    def clash(self, k, t):
        """Players of table t (round k) whose type another there has."""
        if not self.j[k]:
            return 0
        table = self.rounds[k][t]
        return len(table) - len({self.type(k, p) for p in table})

    def fill(self, k, order):
        """Round k's tables from the top of order: each takes the first
        player new to all at the table and of a type it lacks, or else the
        one who met them least."""
        np, meet = self.np, self.meet
        typed = bool(self.j[k])
        ty = {p: self.type(k, p) if typed else p for p in order}
        left, tables = list(order), []
        self.rounds[k] = tables
        while left:
            table = [left.pop(0)]
            while len(table) < np:
                have = {ty[q] for q in table}
                pick = next((i for i, p in enumerate(left) if ty[p] not in have
                             and not any(meet[p][q] for q in table)), None)
                if pick is None:
                    pick = min(range(len(left)), key=lambda i: (
                        ty[left[i]] in have, sum(meet[left[i]][q] for q in table), i))
                table.append(left.pop(pick))
            self._put(k, table)

    def _put(self, k, table):
        """Seat table as round k's next table and count what it costs."""
        np, meet, tables = self.np, self.meet, self.rounds[k]
        t = len(tables)
        tables.append(table)
        for i, a in enumerate(table):
            for b in table[:i]:
                self.rep += meet[a][b] >= 1
                meet[a][b] += 1
                meet[b][a] += 1
                if k == 0:
                    self.rep0 += self.now[a][b] >= 1
                    self.now[a][b] += 1
                    self.now[b][a] += 1
            self.pos[k][a] = (t, i)
            if k == 0:
                self.dist += abs(t - a // np)
        self.tv += self.clash(k, t)

    def exact(self, orders, limit):
        """A plan with no repeat meeting and no clash, by depth-first search:
        tables filled as fill does (each from the first player left in the
        round's order), backtracking on a dead end; the first found, so
        round 0 is the one nearest the standings' order. False (and nothing
        planned) when none turned up within limit tries."""
        np, meet, n = self.np, self.meet, self.n
        tries = [0]

        def table(k, tab, left, done):
            if len(tab) == np:
                for i, a in enumerate(tab):
                    self.pos[k][a] = (len(done), i)
                    for b in tab[:i]:
                        meet[a][b] += 1
                        meet[b][a] += 1
                done.append(tab)
                if table(k, [], left, done):
                    return True
                done.pop()
                for i, a in enumerate(tab):
                    for b in tab[:i]:
                        meet[a][b] -= 1
                        meet[b][a] -= 1
                return False
            if not tab:
                if not left:
                    self.rounds[k] = done
                    if k + 1 == self.h:
                        return True
                    return table(k + 1, [], list(orders[k + 1]), [])
                return table(k, [left[0]], left[1:], done)
            have = {self.type(k, q) for q in tab} if self.j[k] else ()
            for i, p in enumerate(left):
                tries[0] += 1
                if tries[0] > limit:
                    raise _GiveUp
                if self.j[k] and self.type(k, p) in have or any(meet[p][q] for q in tab):
                    continue
                if table(k, tab + [p], left[:i] + left[i + 1:], done):
                    return True
            return False

        saved = [row[:] for row in meet]
        found = []
        try:
            ok = table(0, [], list(orders[0]), found)
        except _GiveUp:
            ok = False
        self.meet = saved
        if not ok:
            self.rounds = [None] * self.h
            self.pos = [[None] * n for _ in range(self.h)]
            return False
        plan, self.rounds = self.rounds, [[] for _ in range(self.h)]
        for k, tables in enumerate(plan):
            for tab in tables:
                self._put(k, tab)
        return True

    def cost(self):
        return self.tv * _WIND + self.rep0 * _NOW + self.rep * _MEET + self.dist

    def _touched(self, k, a, b):
        """The (round, table)s whose clashes a and b trading places can change."""
        pos = self.pos
        if self.j[k]:
            return {(k, pos[k][a][0]), (k, pos[k][b][0])}
        return {(q, pos[q][p][0]) for q in self.later(k) for p in (a, b)}

    def _place(self, k, a, b):
        (ta, sa), (tb, sb) = self.pos[k][a], self.pos[k][b]
        tables = self.rounds[k]
        tables[ta][sa], tables[tb][sb] = b, a
        self.pos[k][a], self.pos[k][b] = (tb, sb), (ta, sa)

    def parts(self, k, a, b):
        """(clashes, meetings now, meetings, distance) changes of a and b
        (round k) trading places."""
        (ta, _), (tb, _) = self.pos[k][a], self.pos[k][b]
        dr = dr0 = dd = 0
        if ta != tb:
            tables = self.rounds[k]
            dr = _moved(self.meet, tables[ta], tables[tb], a, b)
            if k == 0:
                dr0 = _moved(self.now, tables[ta], tables[tb], a, b)
                ia, ib = a // self.np, b // self.np
                dd = abs(tb - ia) - abs(ta - ia) + abs(ta - ib) - abs(tb - ib)
        if self.j[k] and self.type(k, a) == self.type(k, b):
            return 0, dr0, dr, dd  # the same type: no clash comes or goes
        touched = self._touched(k, a, b)
        dt = -sum(self.clash(q, t) for q, t in touched)
        self._place(k, a, b)
        dt += sum(self.clash(q, t) for q, t in touched)
        self._place(k, a, b)  # back
        return dt, dr0, dr, dd

    def delta(self, k, a, b):
        dt, dr0, dr, dd = self.parts(k, a, b)
        return dt * _WIND + dr0 * _NOW + dr * _MEET + dd

    def swap(self, k, a, b):
        (ta, _), (tb, _) = self.pos[k][a], self.pos[k][b]
        dt, dr0, dr, dd = self.parts(k, a, b)
        if ta != tb:
            for meet in (self.meet, self.now) if k == 0 else (self.meet,):
                _trade(meet, self.rounds[k][ta], self.rounds[k][tb], a, b)
        self._place(k, a, b)
        self.tv += dt
        self.rep0 += dr0
        self.rep += dr
        self.dist += dd

    def conflicts(self):
        """(k, p) of the players in a repeat meeting or a type clash (and
        for a clash, the block's first round too, where types are made)."""
        out = []
        for k, tables in enumerate(self.rounds):
            meet, kf = self.meet, self.first(k)
            for t, table in enumerate(tables):
                clash = self.clash(k, t)
                types = [self.type(k, p) for p in table] if clash else ()
                for i, a in enumerate(table):
                    if any(meet[a][b] >= 2 for b in table if b != a):
                        out.append((k, a))
                    if clash and types.count(types[i]) > 1:
                        out.append((k, a))
                        if kf is not None:
                            out.append((kf, a))
        return out

    def search(self, rng):
        """Tabu search: trade a conflicted player with the best other player
        of its round, not undoing a recent trade unless that beats the best
        yet."""
        best, keep = self.cost(), [[t[:] for t in r] for r in self.rounds]
        tabu, step, evals = {}, 0, 0
        while evals < _EVALS:
            conf = self.conflicts()
            if not conf:
                break
            k, a = rng.choice(conf)
            pos, now = self.pos[k], self.cost()
            ta, sa = pos[a]
            moves, low = [], None
            turns = not self.j[k] and bool(self.later(k))  # seats make types here
            for b in self._partners(k, a):
                tb, sb = pos[b]
                if b == a or (tb == ta and not turns):
                    continue
                d = self.delta(k, a, b)
                if (tabu.get((k, a, tb, sb * turns), -1) >= step
                        or tabu.get((k, b, ta, sa * turns), -1) >= step) and now + d >= best:
                    continue
                if low is None or d < low:
                    moves, low = [b], d
                elif d == low:
                    moves.append(b)
            evals += len(self._partners(k, a))
            step += 1
            if not moves:
                continue
            b = rng.choice(moves)
            tb, sb = pos[b]
            self.swap(k, a, b)
            tenure = _TENURE[0] + rng.randrange(1 + self.n // _TENURE[1])
            tabu[(k, a, ta, sa * turns)] = tabu[(k, b, tb, sb * turns)] = step + tenure
            if self.cost() < best:
                best, keep = self.cost(), [[t[:] for t in r] for r in self.rounds]
        if self.cost() > best:
            self._restore(keep)

    def _partners(self, k, a):
        """Whom a may trade with in round k: in a block's later rounds, while
        a's table has no clash, only a's own type (the others add a clash)."""
        if self.j[k] and not self.clash(k, self.pos[k][a][0]):
            ty = self.type(k, a)
            return [b for b in range(self.n) if self.type(k, b) == ty]
        return range(self.n)

    def _restore(self, rounds):
        for k, tables in enumerate(rounds):
            for t, table in enumerate(tables):
                for s, p in enumerate(table):
                    q = self.rounds[k][t][s]
                    if q != p:
                        self.swap(k, p, q)

    def nearer(self, passes=3):
        """Round 0: trades that bring a player nearer their rank's table and
        cost nothing else."""
        np, tables = self.np, self.rounds[0]
        for _ in range(passes):
            better = False
            for a in range(self.n):
                ta, own = self.pos[0][a][0], a // np
                step = 1 if own > ta else -1
                for tb in range(own, ta, -step):
                    b = next((b for b in tables[tb] if self.delta(0, a, b) < 0), None)
                    if b is not None:
                        self.swap(0, a, b)
                        better = True
                        break
            if not better:
                return

    def seated(self):
        """Round 0's tables in seat order: seat (type + j) % np in a block's
        later rounds; where types clash (an event drawn otherwise before),
        the seating that repeats the fewest winds."""
        np, j = self.np, self.j[0]
        if not j:
            return [t[:] for t in self.rounds[0]]
        counts = self.hseat.get((self.r - 1) // np, [[0] * np for _ in range(self.n)])
        out = []
        for t, table in enumerate(self.rounds[0]):
            if not self.clash(0, t):
                out.append(sorted(table, key=lambda p: (self.type(0, p) + j) % np))
            else:
                out.append(list(min(itertools.permutations(table), key=lambda o: sum(
                    counts[p][s] for s, p in enumerate(o)))))
        return out


def _moved(meet, A, B, a, b) -> int:
    """The change in meetings beyond the first of a (at table A) and b (at
    B) trading tables."""
    ma, mb, d = meet[a], meet[b], 0
    for x in A:
        if x != a:
            d += (mb[x] >= 1) - (ma[x] >= 2)
    for y in B:
        if y != b:
            d += (ma[y] >= 1) - (mb[y] >= 2)
    return d


def _trade(meet, A, B, a, b) -> None:
    for x in A:
        if x != a:
            meet[a][x] -= 1
            meet[x][a] -= 1
            meet[b][x] += 1
            meet[x][b] += 1
    for y in B:
        if y != b:
            meet[b][y] -= 1
            meet[y][b] -= 1
            meet[a][y] += 1
            meet[y][a] += 1

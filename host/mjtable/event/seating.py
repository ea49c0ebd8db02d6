"""The draw of a round: which players sit at which table and seat.

Round 1: a random draw from the event's seed (random.Random(seed): the same
file gives the same draw on every laptop). Later rounds, in this order:
  1. seat winds balanced: the rounds fall in blocks of np (1-4, 5-8, ...)
     and nobody sits a wind twice in a block, so after round r each player
     has sat each wind floor(r/np) or ceil(r/np) times;
  2. the fewest repeat meetings in this round;
  3. the fewest in the rounds still to come: the draw plans them (with no
     standings yet) beside this one, so that it does not take a draw that
     leaves the later rounds no clean choice (16 players: a perfect event
     of 5 rounds has to be planned from round 2 on);
  4. by standing: the leaders together, as a Swiss system does (each
     player's table as near as the rest allows to the one their rank gives).
How: in a small event a depth-first search for a plan that meets nobody
twice, filling tables from the top of the standings (so the first found is
the one nearest the standings); else (and in big events) tables filled the
same way without going back, then a tabu search of trades between players
of a round and of winds between rounds of a block (seeded, a bounded number
of moves: the same inputs draw the same everywhere); then trades that bring
players nearer their rank's table at no other cost.
Everything here is pure: lists of player ids in, {table_no: [pid per seat]} out.
"""

from __future__ import annotations

import itertools
import random

from mjtable.event import golfer, schedule

# the search's weights: a clash or a repeat meeting in this round, a repeat
# meeting in the rounds planned after it (the distance from the standings: 1)
_NOW, _MEET = 1 << 40, 1 << 20
_TENURE = (2, 4)
_DEEP = 160  # players x rounds planned: the depth-first search's depth (small events)
_TRIES = 50_000  # candidates the depth-first search may try first
_EVALS = 100_000  # move evaluations the search may spend on one draw (~1 s)
_EVALS_EACH = 1_500  # ... at most this many per player and round planned
_STALE = 3_000  # moves without a better draw after which the search stops


def first_round(pids: list, np: int, seed: int) -> dict:
    order = sorted(pids)
    random.Random(seed).shuffle(order)
    return {k + 1: order[i:i + np] for k, i in enumerate(range(0, len(order), np))}


def random_round(pids: list, np: int, seed: int, rnd: int) -> dict:
    """A random draw of any round (round 1: first_round's), from the seed:
    the same on every laptop."""
    return first_round(pids, np, seed if rnd == 1 else seed * 1000 + 500 + rnd)


# --- stand-ins and clubs: after any draw ---

def padded(pids: list, np: int, standin: str = "~") -> list:
    """pids and the stand-ins ("~1", ...) that fill the last seats of tables
    of np, last (below everyone in the standings)."""
    return list(pids) + ["%s%d" % (standin, k + 1) for k in range(-len(pids) % np)]


def spread_standins(tables: dict, standin: str = "~") -> dict:
    """At most one stand-in a table: a second trades places with the player
    on the same seat (the same wind) of a table without one."""
    def n(t):
        return sum(p.startswith(standin) for p in tables[t])

    for t in sorted(tables):
        while n(t) > 1:
            s = max(i for i, p in enumerate(tables[t]) if p.startswith(standin))
            u = next(u for u in sorted(tables) if n(u) == 0 and len(tables[u]) > s)
            tables[t][s], tables[u][s] = tables[u][s], tables[t][s]
    return tables


def club_pairs(tables: dict, club: dict) -> int:
    """Pairs of club-mates at one table (players with no club: none)."""
    return sum(_clubs(t, club) for t in tables.values())


def _clubs(table, club) -> int:
    return sum(1 for a, b in itertools.combinations(table, 2) if club.get(a) and
               club.get(a) == club.get(b))


def fewest_club_pairs(pids: list, club: dict, tables: int) -> tuple:
    """(the fewest club pairs any draw of pids at that many tables has, the
    clubs too big to be kept apart: [(club, players)])."""
    size: dict = {}
    for p in pids:
        if club.get(p):
            size[club[p]] = size.get(club[p], 0) + 1
    floor, big = 0, []
    for c, k in sorted(size.items()):
        q, r = divmod(k, tables)
        floor += r * (q + 1) * q // 2 + (tables - r) * q * (q - 1) // 2
        if k > tables:
            big.append((c, k))
    return floor, big


def separate_clubs(tables: dict, club: dict, meets, standin: str = "~") -> dict:
    """Club-mates apart where it can be done: trades of two players on the
    same seat of two tables (so the winds stay as drawn) that leave fewer
    club pairs and no more repeat meetings (meets(a, b): times met before),
    and never a table with two stand-ins. In table order: the same draw on
    every laptop."""
    def cost(t):
        return _clubs(t, club), sum(meets(a, b) for a, b in itertools.combinations(t, 2))

    better = True
    while better:
        better = False
        for t, u in itertools.combinations(sorted(tables), 2):
            for s in range(min(len(tables[t]), len(tables[u]))):
                a, b = tables[t][s], tables[u][s]
                if a.startswith(standin) or b.startswith(standin):
                    continue
                before = [x + y for x, y in zip(cost(tables[t]), cost(tables[u]), strict=True)]
                if not before[0]:
                    break
                tables[t][s], tables[u][s] = b, a
                after = [x + y for x, y in zip(cost(tables[t]), cost(tables[u]), strict=True)]
                if after[0] < before[0] and after[1] <= before[1]:
                    better = True
                else:
                    tables[t][s], tables[u][s] = a, b
    return tables


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


def wind_repeats(history: dict, np: int) -> int:
    """Winds sat more than once by a player in a block of np rounds (1-np,
    np+1-2np, ...): 0 is each player's counts within floor(r/np)..ceil(r/np)
    after every round r."""
    out: dict = {}
    for q, tables in history.items():
        for pids in tables.values():
            for s, p in enumerate(pids):
                key = (p, (q - 1) // np, s)
                out[key] = out.get(key, 0) + 1
    return sum(c - 1 for c in out.values())


def fewest_possible(players: int, np: int, rounds: int) -> int:
    """A floor under extra_meetings after that many rounds: meetings beyond
    the number of pairs there are."""
    return max(0, rounds * (players // np) * (np * (np - 1) // 2) - players * (players - 1) // 2)


def next_round(ranked: list, history: dict, np: int, rounds: int = 0, seed: int = 0) -> dict:
    """The draw of the next round: ranked is the player ids by standing, best
    first; rounds the event's number of rounds (the draw plans those left)."""
    got = schedule.next_round(ranked, history, np, rounds, seed)
    if got:
        return got
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
    # table 1 holds the leader, the rest by their players' mean rank
    tables = sorted(plan.seated(), key=lambda t: (0 not in t, sum(t)))
    return {t + 1: [ranked[p] for p in table] for t, table in enumerate(tables)}


class _GiveUp(Exception):
    pass


class _Plan:
    """This round (k = 0) and the h - 1 left, as lists of tables of player
    numbers (0 = the leader), with what the costs need.

    Winds: the rounds fall in blocks of np. Each player has an order of the
    np winds for each block (sig), the winds of the block's rounds drawn
    before first; they sit wind sig[j] in the block's j-th round. A table
    whose players' winds differ then seats everyone on a wind they have not
    sat in the block. The costs: tv (players whose wind another at their
    table has), rep (meetings beyond each pair's first, history and plan),
    rep0 (the same, history and round 0 only), dist (round 0: how many
    tables each player sits from their rank's own)."""

    def __init__(self, ranked, history, np, r, h):
        self.n, self.np, self.r, self.h = len(ranked), np, r, h
        num = {p: i for i, p in enumerate(ranked)}
        n = self.n
        self.meet = [[0] * n for _ in range(n)]
        self.hseat = [[0] * np for _ in range(n)]  # seats sat in round 0's block
        blk0 = (r - 1) // np
        sat = [[] for _ in range(n)]  # winds sat in round 0's block, in order
        for q in sorted(history):
            for pids in history[q].values():
                ids = [(s, num[p]) for s, p in enumerate(pids) if p in num]
                for i, (s, a) in enumerate(ids):
                    if (q - 1) // np == blk0:
                        self.hseat[a][s] += 1
                        sat[a].append(s)
                    for _, b in ids[:i]:
                        self.meet[a][b] += 1
                        self.meet[b][a] += 1
        self.rep = sum(max(0, m - 1) for row in self.meet for m in row) // 2
        self.now = [row[:] for row in self.meet]  # history and round 0 only
        self.rep0 = self.rep
        self.j = [(r + k - 1) % np for k in range(h)]  # place in the block
        self.j0 = [self.j[0] if k < np - self.j[0] else 0 for k in range(h)]  # drawn before
        self.sig = {}  # block -> [winds in order, per player]
        for k in range(h):
            blk = (r + k - 1) // np
            if blk not in self.sig:
                self.sig[blk] = [_order(sat[p] if blk == blk0 else [], np) for p in range(n)]
        self.rounds: list = [None] * h
        self.pos = [[None] * n for _ in range(h)]
        self.tv = self.tv0 = self.dist = 0  # tv0: round 0's clashes
        self.floor = fewest_possible(n, np, r - 1 + h)  # no plan has fewer repeats

    def sigs(self, k):
        return self.sig[(self.r + k - 1) // self.np]

    def wind(self, k, p):
        return self.sig[(self.r + k - 1) // self.np][p][self.j[k]]

    def fresh(self, k):
        """Whether round k starts its block: its seats give the block's orders."""
        return not self.j[k]

    def clash(self, k, t):
        """Players of table t (round k) whose wind another there has."""
        table = self.rounds[k][t]
        return len(table) - len({self.wind(k, p) for p in table})

    def fill(self, k, order):
        """Round k's tables from the top of order: each takes the first
        player new to all at the table and of a wind it lacks, or else the
        one who met them least."""
        np, meet = self.np, self.meet
        free = {p: self.free(k, p) for p in order}
        left = list(order)
        self.rounds[k] = []
        while left:
            table = [left.pop(0)]
            while len(table) < np:
                pick = next((i for i, p in enumerate(left) if not any(meet[p][q] for q in table)
                             and _sdr(tuple(free[q] for q in table + [p]), np)), None)
                if pick is None:
                    pick = min(range(len(left)), key=lambda i: (
                        not _sdr(tuple(free[q] for q in table + [left[i]]), np),
                        sum(meet[left[i]][q] for q in table), i))
                table.append(left.pop(pick))
            self._put(k, table)

    def _put(self, k, table, choose=True):
        """Seat table as round k's next table and count what it costs
        (choose: each player's wind, else as ordered)."""
        np, meet, tables = self.np, self.meet, self.rounds[k]
        t = len(tables)
        tables.append(table)
        if choose or self.fresh(k):
            self._orders(k, table)
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
        c = self.clash(k, t)
        self.tv += c
        self.tv0 += c if k == 0 else 0

    def free(self, k, p):
        """The winds p has not sat in round k's block before it (a bit a wind)."""
        sig = self.sigs(k)[p]
        return ((1 << self.np) - 1) ^ sum(1 << w for w in set(sig[:self.j[k]]))

    def _orders(self, k, table):
        """A table just filled: in a block's first round each player's order
        of winds from the seat they take (then round the table, one on each
        round); later, each a wind they have not sat in the block (the rest
        after it), one at a time, where the table allows."""
        np, j, sig = self.np, self.j[k], self.sigs(k)
        if not j:
            for s, p in enumerate(table):
                sig[p] = [(s + i) % np for i in range(np)]
            return
        winds = _sdr(tuple(self.free(k, p) for p in table), np)
        if winds is None:
            return  # no way: the orders stay (the clash is counted)
        for p, w in zip(table, winds, strict=True):
            rest = [v for v in sig[p][j:] if v != w]
            sig[p][j:] = [w] + rest

    def exact(self, orders, limit):
        """A plan with no repeat meeting and no clash, by depth-first search:
        tables filled as fill does (each from the first player left in the
        round's order), backtracking on a dead end; the first found, so
        round 0 is the one nearest the standings' order. False (and nothing
        planned) when none turned up within limit tries."""
        np, meet = self.np, self.meet
        tries = [0]

        def table(k, tab, left, done):
            if len(tab) == np:
                if self.fresh(k):
                    self._orders(k, tab)
                for i, a in enumerate(tab):
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
            # the winds as ordered (one on each round: the 16-player plane
            # fits that), not each table's choice: fewer dead ends to undo
            typed = not self.fresh(k)
            have = {self.wind(k, q) for q in tab} if typed else ()
            for i, p in enumerate(left):
                tries[0] += 1
                if tries[0] > limit:
                    raise _GiveUp
                if typed and self.wind(k, p) in have or any(meet[p][q] for q in tab):
                    continue
                if table(k, tab + [p], left[:i] + left[i + 1:], done):
                    return True
            return False

        saved = [row[:] for row in meet]
        try:
            ok = table(0, [], list(orders[0]), [])
        except _GiveUp:
            ok = False
        self.meet = saved
        if not ok:
            return False
        plan, self.rounds = self.rounds, [[] for _ in range(self.h)]
        for k, tables in enumerate(plan):
            for tab in tables:
                self._put(k, tab, False)
        return True

    def cost(self):
        """What the search steers by: a clash weighs as a repeat meeting in
        its round (round 0 or the plan), so that it can pass through one on
        the way to fewer repeats."""
        return ((self.tv0 + self.rep0) * _NOW + (self.rep + self.tv - self.tv0) * _MEET
                + self.dist)

    def key(self):
        """What the draw is judged by, in order (the best kept)."""
        return self.tv0, self.rep0, self.rep + self.tv - self.tv0, self.dist

    def parts(self, k, a, b):
        """(clashes, meetings now, meetings, distance) changes of a and b
        (round k, other tables) trading tables."""
        (ta, _), (tb, _) = self.pos[k][a], self.pos[k][b]
        tables = self.rounds[k]
        dr = _moved(self.meet, tables[ta], tables[tb], a, b)
        dr0 = dd = 0
        if k == 0:
            dr0 = _moved(self.now, tables[ta], tables[tb], a, b)
            ia, ib = a // self.np, b // self.np
            dd = abs(tb - ia) - abs(ta - ia) + abs(ta - ib) - abs(tb - ib)
        wa, wb = self.wind(k, a), self.wind(k, b)
        dt = 0
        if wa != wb:
            A = [self.wind(k, x) for x in tables[ta] if x != a]
            B = [self.wind(k, y) for y in tables[tb] if y != b]
            dt = (len(set(A + [wa])) - len(set(A + [wb]))
                  + len(set(B + [wb])) - len(set(B + [wa])))
        return dt, dr0, dr, dd

    def delta(self, k, a, b):
        dt, dr0, dr, dd = self.parts(k, a, b)
        return dt * (_MEET if k else _NOW) + dr0 * _NOW + dr * _MEET + dd

    def swap(self, k, a, b):
        (ta, sa), (tb, sb) = self.pos[k][a], self.pos[k][b]
        dt, dr0, dr, dd = self.parts(k, a, b)
        for meet in (self.meet, self.now) if k == 0 else (self.meet,):
            golfer.trade(meet, self.rounds[k][ta], self.rounds[k][tb], a, b)
        tables = self.rounds[k]
        tables[ta][sa], tables[tb][sb] = b, a
        self.pos[k][a], self.pos[k][b] = (tb, sb), (ta, sa)
        self.tv += dt
        self.tv0 += 0 if k else dt
        self.rep0 += dr0
        self.rep += dr
        self.dist += dd

    def _turned(self, k, a, j2):
        """The (round, table)s a's order trading the winds of places j[k]
        and j2 touches."""
        k2 = k + j2 - self.j[k]
        out = [(k, self.pos[k][a][0])]
        if 0 <= k2 < self.h:
            out.append((k2, self.pos[k2][a][0]))
        return out

    def turn_delta(self, k, a, j2):
        """The clashes a's order trading the winds of j[k] and j2 adds: in
        all, and in round 0."""
        touched = self._turned(k, a, j2)
        d = [-self.clash(q, t) for q, t in touched]
        self.turn(k, a, j2)
        d = [x + self.clash(q, t) for x, (q, t) in zip(d, touched, strict=True)]
        self.turn(k, a, j2)
        return sum(d), sum(x for x, (q, _) in zip(d, touched, strict=True) if q == 0)

    def _turn_apply(self, k, a, j2):
        d, d0 = self.turn_delta(k, a, j2)
        self.tv += d
        self.tv0 += d0
        self.turn(k, a, j2)

    def turn(self, k, a, j2):
        sig = self.sigs(k)[a]
        j = self.j[k]
        sig[j], sig[j2] = sig[j2], sig[j]

    def conflicts(self):
        """(k, p) of the players in a repeat meeting or a clash."""
        out = []
        for k, tables in enumerate(self.rounds):
            # round 0 is moved for its own repeats (with the rounds drawn),
            # not for the plan's: the plan gives way to it
            meet = self.now if k == 0 else self.meet
            for table in tables:
                winds = [self.wind(k, p) for p in table]
                for i, a in enumerate(table):
                    if winds.count(winds[i]) > 1 or any(meet[a][b] >= 2 for b in table if b != a):
                        out.append((k, a))
        return out

    def search(self, rng):
        """Tabu search: a conflicted player trades tables with the best other
        player of its round, or winds with another round of its block; not
        undoing a recent move unless that beats the best yet."""
        best, keep = self.key(), self._copy()
        tabu, step, evals, lowest, found = {}, 0, 0, self.cost(), 0
        budget = min(_EVALS, _EVALS_EACH * self.n * self.h)  # a small event has few to try
        while evals < budget and step - found < _STALE and (self.tv or self.rep > self.floor):
            conf = self.conflicts()
            if not conf:
                break
            k, a = rng.choice(conf)
            pos, now = self.pos[k], self.cost()
            ta = pos[a][0]
            moves, low = [], None
            partners = self._partners(k, a)
            evals += len(partners) + self.np
            for b in partners:
                tb = pos[b][0]
                if tb == ta:
                    continue
                d = self.delta(k, a, b)
                if (tabu.get((k, a, tb), -1) >= step or tabu.get((k, b, ta), -1) >= step) \
                        and now + d >= lowest:
                    continue
                if low is None or d < low:
                    moves, low = [b], d
                elif d == low:
                    moves.append(b)
            for j2 in range(self.j0[k], self.np):
                if j2 == self.j[k]:
                    continue
                dt, dt0 = self.turn_delta(k, a, j2)
                d = dt0 * _NOW + (dt - dt0) * _MEET
                if tabu.get((k, a, -1 - j2), -1) >= step and now + d >= lowest:
                    continue
                if low is None or d < low:
                    moves, low = [-1 - j2], d
                elif d == low:
                    moves.append(-1 - j2)
            step += 1
            if not moves:
                continue
            b = rng.choice(moves)
            tenure = _TENURE[0] + rng.randrange(1 + self.n // _TENURE[1])
            if b < 0:
                self._turn_apply(k, a, -1 - b)
                tabu[(k, a, b)] = step + tenure
            else:
                tb = pos[b][0]
                self.swap(k, a, b)
                tabu[(k, a, ta)] = tabu[(k, b, tb)] = step + tenure
            lowest = min(lowest, self.cost())
            if self.key() < best:
                best, keep, found = self.key(), self._copy(), step
        if self.key() > best:
            self._restore(keep)

    def _copy(self):
        return [[t[:] for t in r] for r in self.rounds], {
            b: [s[:] for s in sig] for b, sig in self.sig.items()}

    def _partners(self, k, a):
        """Whom a may trade tables with in round k: while a's table has no
        clash, only those of a's wind (the others bring one)."""
        if not self.clash(k, self.pos[k][a][0]):
            w = self.wind(k, a)
            return [b for b in range(self.n) if self.wind(k, b) == w]
        return range(self.n)

    def _restore(self, keep):
        rounds, sig = keep
        for k, tables in enumerate(rounds):
            for t, table in enumerate(tables):
                for s, p in enumerate(table):
                    q = self.rounds[k][t][s]
                    if q == p:
                        continue
                    (tp, sp), (tq, sq) = self.pos[k][p], self.pos[k][q]
                    if tp == tq:  # one table: only the places change
                        self.rounds[k][tp][sp], self.rounds[k][tq][sq] = q, p
                        self.pos[k][p], self.pos[k][q] = (tq, sq), (tp, sp)
                    else:
                        self.swap(k, p, q)
        self.sig = sig
        self.tv = sum(self.clash(k, t) for k in range(self.h) for t in range(len(self.rounds[k])))
        self.tv0 = sum(self.clash(0, t) for t in range(len(self.rounds[0])))

    def nearer(self, passes=2):
        """Round 0: trades that bring a player nearer their rank's table and
        cost nothing else (the two taking other winds for it if need be)."""
        np, tables = self.np, self.rounds[0]
        for _ in range(passes):
            better = False
            for a in range(self.n):
                ta, own = self.pos[0][a][0], a // np
                step = 1 if own > ta else -1
                for tb in range(own, ta, -step):
                    if any(self._trade_nearer(a, b) for b in tables[tb][:]):
                        better = True
                        break
            if not better:
                return

    def _trade_nearer(self, a, b) -> bool:
        """a and b (round 0) trade tables if that, with a new wind order for
        either or both, lowers the key; else nothing changes."""
        if self.parts(0, a, b)[1:] >= (0, 0, 0):
            return False  # no nearer, or a repeat more
        before = self.key()
        self.swap(0, a, b)
        turns = [None] + [j2 for j2 in range(self.j0[0], self.np) if j2 != self.j[0]]
        for ja in turns:
            for jb in turns:
                done = [(p, j2) for p, j2 in ((a, ja), (b, jb)) if j2 is not None]
                for p, j2 in done:
                    self._turn_apply(0, p, j2)
                if self.key() < before:
                    return True
                for p, j2 in reversed(done):
                    self._turn_apply(0, p, j2)
        self.swap(0, a, b)
        return False

    def seated(self):
        """Round 0's tables in seat order: each on their wind (sig); where
        winds clash (an event drawn otherwise before), the seating that
        repeats the fewest winds."""
        out = []
        for t, table in enumerate(self.rounds[0]):
            if not self.clash(0, t):
                out.append(sorted(table, key=lambda p: self.wind(0, p)))
            else:
                out.append(list(min(itertools.permutations(table), key=lambda o: sum(
                    self.hseat[p][s] for s, p in enumerate(o)))))
        return out


_SDR: dict = {}


def _sdr(masks: tuple, np: int):
    """A different wind for each of a table's players from their free winds
    (masks, a bit a wind), as a tuple, or None. Cached: the keys are few."""
    got = _SDR.get((masks, np), 0)
    if got == 0:
        got = next((ws for ws in itertools.permutations(range(np), len(masks))
                    if all(m >> w & 1 for m, w in zip(masks, ws, strict=True))), None)
        _SDR[(masks, np)] = got
    return got


def _order(sat: list, np: int) -> list:
    """A block's order of winds for a player who sat sat in its rounds drawn:
    those, then the rest one on each round from the first (a wind sat twice
    in an event drawn otherwise: the rest as they come)."""
    out = list(sat)
    start = sat[0] if sat else 0
    for j in range(len(sat), np):
        w = (start + j) % np
        if w in out:
            w = next((v for v in range(np) if v not in out), w)
        out.append(w)
    return out


def _moved(meet, A, B, a, b) -> int:
    """The change in meetings beyond the first of a (at table A) and b (at
    B) trading tables."""
    return _taking(meet, A, a, b) + _taking(meet, B, b, a)


def _taking(meet, table, out, into) -> int:
    """The change in meetings beyond the first of into taking out's place at table."""
    mo, mi = meet[out], meet[into]
    return sum((mi[x] >= 1) - (mo[x] >= 2) for x in table if x != out)

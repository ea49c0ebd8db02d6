"""The draw of an event's rounds (mjtable.event.seating): repeats, winds, standings."""

import functools
import random

import pytest
from mjcall import call
from mjtable.event import designs, schedule, seating
from test_event_setup import KEY, _file  # noqa: F401 (KEY: the env fixture's key)


@functools.lru_cache(maxsize=None)
def _drawn(n, rounds, seed=1):
    """An event of n players drawn round by round, a result entered between
    rounds: each table's places at random (4-2-1-0), the standings by points
    then raw points. (pids, {round: draw}, {round: standings it was drawn by})."""
    pids = ["P%03d" % i for i in range(n)]
    hist, ranks = {1: seating.first_round(pids, 4, seed)}, {}
    rng = random.Random(seed)
    points = {p: [0, 0] for p in pids}
    for r in range(2, rounds + 1):
        for table in hist[r - 1].values():
            order = rng.sample(table, len(table))
            for place, p in zip((4, 2, 1, 0), order, strict=True):
                points[p][0] += place
                points[p][1] += rng.randrange(-50, 50)
        ranks[r] = sorted(pids, key=lambda p: (-points[p][0], -points[p][1], p))
        hist[r] = seating.next_round(ranks[r], hist, 4, rounds, seed)
        assert sorted(p for t in hist[r].values() for p in t) == pids
    return pids, hist, ranks


def _event(n, rounds, seed=1):
    pids, hist, _ = _drawn(n, rounds, seed)
    return pids, hist


def _winds_balanced(hist):
    """After every round r each player sat each wind floor(r/4)..ceil(r/4) times."""
    for r in hist:
        counts = seating.seat_counts({q: hist[q] for q in hist if q <= r}, 4)
        lo, hi = r // 4, -(-r // 4)
        bad = [p for p, c in counts.items() if min(c) < lo or max(c) > hi]
        assert not bad, "round %d: %s sit a wind outside %d..%d" % (r, bad[:3], lo, hi)


@pytest.mark.parametrize("rounds", [4, 5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_16_players_meet_nobody_twice_over_4_and_5_rounds(rounds, seed):
    # 4 tables of 4 meet nobody twice for up to 5 rounds (the affine plane of
    # order 4), but only if round 3 is drawn with rounds 4 and 5 in mind
    _, hist = _event(16, rounds, seed)
    assert seating.extra_meetings(hist) == 0
    _winds_balanced(hist)


def test_a_64_table_event_over_8_rounds_meets_nobody_twice_on_balanced_winds():
    _, hist = _event(256, 8)
    assert seating.extra_meetings(hist) == 0
    _winds_balanced(hist)
    counts = seating.seat_counts(hist, 4)
    assert all(c == [2, 2, 2, 2] for c in counts.values())


def test_16_tables_over_8_rounds_every_wind_twice():
    _, hist = _event(64, 8)
    assert seating.extra_meetings(hist) == 0
    _winds_balanced(hist)
    assert all(c == [2, 2, 2, 2] for c in seating.seat_counts(hist, 4).values())


@pytest.mark.parametrize("players, rounds", [(20, 5), (28, 8), (32, 8), (40, 8)])
def test_mid_sized_events_meet_nobody_twice(players, rounds):
    # 5, 7, 8 and 10 tables: a draw without repeats exists (the social
    # golfer problem), which drawing round by round missed (0-5, 22-25,
    # 9-12 and 1-3 repeats): the event's schedule, fixed from round 1
    for seed in (1, 2):
        _, hist = _event(players, rounds, seed)
        assert seating.extra_meetings(hist) == 0, seed
        _winds_balanced(hist)


@pytest.mark.parametrize("tables", [5, 6, 7, 8, 9, 11])
def test_the_designs_seat_everyone_each_round_and_nobody_twice(tables):
    rounds = designs.design(tables, 4)
    assert len(rounds) == {5: 5, 6: 6, 7: 9, 8: 9, 9: 9, 11: 11}[tables]
    assert seating.extra_meetings({q + 1: dict(enumerate(r)) for q, r in enumerate(rounds)}) == 0
    for r in rounds:
        assert sorted(p for t in r for p in t) == list(range(tables * 4))


def test_the_golfers_schedule_is_the_same_every_time():
    # 10 tables: the schedule is the golfer's search, seeded: computed again
    # at every draw (and on every laptop) it must come out the same
    first = tuple(tuple("P%03d" % (t * 4 + s) for s in range(4)) for t in range(10))
    schedule.schedule.cache_clear()
    a = schedule.schedule(first, 4, 8, 3)
    schedule.schedule.cache_clear()
    assert a is not None and schedule.schedule(first, 4, 8, 3) == a
    assert schedule.schedule(first, 4, 8, 4) != a  # the seed decides


def test_the_schedule_follows_the_standings_within_a_block():
    # which of a block's rounds comes next is the standings' choice (and
    # the leader sits at table 1): other standings, other rounds
    pids, hist, ranks = _drawn(32, 4)
    for r in (2, 3, 4):
        assert ranks[r][0] in hist[r][1]
    rng, drawn = random.Random(5), set()
    for _ in range(6):
        ranked = rng.sample(pids, len(pids))
        other = seating.next_round(ranked, {1: hist[1]}, 4, 4, 1)
        assert ranked[0] in other[1] and seating.extra_meetings({1: hist[1], 2: other}) == 0
        drawn.add(frozenset(frozenset(t) for t in other.values()))
    assert len(drawn) > 1


def test_an_event_drawn_otherwise_is_drawn_round_by_round():
    # round 2 not one of the schedule's (two players of a wind traded
    # tables): the later rounds are drawn without it, and meet nobody twice
    pids, hist, ranks = _drawn(32, 3)
    two = {t: ps[:] for t, ps in hist[2].items()}
    for t in range(2, 9):
        two[1][0], two[t][0] = two[t][0], two[1][0]
        if seating.extra_meetings({1: hist[1], 2: two}) == 0:
            break
        two[1][0], two[t][0] = two[t][0], two[1][0]
    assert seating.extra_meetings({1: hist[1], 2: two}) == 0 and two != hist[2]
    third = seating.next_round(ranks[3], {1: hist[1], 2: two}, 4, 3, 1)
    assert sorted(p for t in third.values() for p in t) == pids
    drawn = {1: hist[1], 2: two, 3: third}
    assert seating.extra_meetings(drawn) == 0
    _winds_balanced(drawn)


@pytest.mark.parametrize("players, rounds, fewest", [
    (16, 6, 24),  # every pair met in rounds 1-5: round 6 is 4 tables of 6 old pairs
    (8, 3, 8),  # 36 meetings among 28 pairs
])
def test_where_repeats_cannot_be_avoided_the_draw_keeps_to_the_fewest(players, rounds, fewest):
    assert seating.fewest_possible(players, 4, rounds) == fewest
    for seed in (1, 2, 3):
        _, hist = _event(players, rounds, seed)
        assert seating.extra_meetings(hist) == fewest
        _winds_balanced(hist)


@pytest.mark.parametrize("players", [64, 256])
def test_later_rounds_by_standing_the_leader_at_table_1(players):
    # after winds and repeats: each player's table near their rank's (the
    # rank / 4th), over the event within 1.5 tables on average; a block's
    # last round moves players most (one of each wind left at each table)
    pids, hist, ranks = _drawn(players, 8)
    offs = []
    for r, ranked in ranks.items():
        assert ranked[0] in hist[r][1]
        rank = {p: i for i, p in enumerate(ranked)}
        off = [abs(t - 1 - rank[p] // 4) for t, ps in hist[r].items() for p in ps]
        assert sum(off) / len(off) < (3.5 if r % 4 == 0 else 2), r
        offs += off
    assert sum(offs) / len(offs) < 1.5


def test_the_draw_is_the_same_on_every_laptop():
    a = _event(32, 4, seed=7)[1]
    b = _event(32, 4, seed=7)[1]
    assert a == b


def test_the_draw_says_how_many_repeats_stayed(env, tmp_path, capsys):
    # 8 players over 3 rounds: repeats cannot be avoided (no results: --force)
    assert call(capsys, "event", "create", _file(tmp_path, 8))[0] == 0
    code, out, err = call(capsys, "event", "draw", "--round", "1")
    assert code == 0 and "0 repeat meeting(s), 0 in round 1; winds balanced" in out
    call(capsys, "event", "draw", "--round", "2", "--force")
    code, out, err = call(capsys, "event", "draw", "--round", "3", "--force")
    assert code == 0, err
    assert "8 in rounds 1-3 (the fewest there can be); winds balanced" in out

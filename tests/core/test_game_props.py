"""Properties over seeded random hands (same seeds, same hands on both
interpreters): payments sum to zero, tiles are conserved, an illegal action
is refused and changes nothing, a hand log replays to the same state, and
CPython and MicroPython agree on every hand (checksums below were taken on
CPython; this file asserts them on both)."""

from gamekit import Rng, located, play, snapshot
from sichuan import claims, handlog, presets
from sichuan import game as G
from sichuan.settle import EV_REFUSED

HANDS = 12


def _direction(rs, seed):
    from sichuan import ruleset as R

    dirs = [d for d in (1, 2, 4) if rs[R.P_HSZ_DIRS] & d and (d != 4 or rs[R.P_PLAYERS] == 4)]
    return dirs[seed % len(dirs)]


def _hands(name, n=HANDS, **kw):
    rs = presets.get(name)
    for seed in range(n):
        d = seed % rs[0]  # players: two- to five-seat variants deal from each seat too
        yield rs, seed, play(rs, seed, dealer=d, direction=_direction(rs, seed), **kw)


def test_payments_sum_to_zero_and_tiles_conserved():
    for name in presets.names():
        for _rs, seed, g in _hands(name):
            assert g.phase == G.PH_END, (name, seed)
            assert sum(g.delta) == 0, (name, seed, g.delta)
            assert bytes(located(g)) == bytes(g.seen), (name, seed)
            assert sum(g.seen) + g.wall == g.total == 36 * bin(_rs[1]).count("1")
            for f in range(27):
                assert g.seen[f] <= 4


def _probe(g, rng, wall):
    """Try random actions; each illegal one must be refused and change nothing."""
    for _ in range(3):
        kind = rng.below(18)  # every action kind, 16 (no action) too
        seat = rng.below(5)
        arg = rng.below(30) - 1
        if kind in (G.DEAL, G.EXCHANGE):
            arg = [rng.below(27) for _ in range(rng.below(15))]
        a = (kind, seat, arg, 0)
        before = snapshot(g)
        r = g.check(a)
        assert snapshot(g) == before
        if r:
            ev = g.apply(a)
            assert ev == [(EV_REFUSED, seat, r, kind)]
            assert snapshot(g) == before


def test_illegal_actions_change_nothing():
    for name in ("xuezhan", "xueliu", "tfmj-2024", "chengdu", "duankagen", "yibin"):
        for _rs, _seed, g in _hands(name, 4, probe=_probe):
            assert sum(g.delta) == 0


def test_logs_replay_to_the_same_state():
    for name in presets.names():
        rs = presets.get(name)
        for seed in range(4):
            d = seed % rs[0]
            log = handlog.Writer(rs.crc(), rs[0], d, _direction(rs, seed), 1000)
            g = play(rs, seed, dealer=d, direction=_direction(rs, seed), log=log)
            g2 = handlog.replay(rs, log.buf)
            assert snapshot(g2) == snapshot(g) and g2.delta == g.delta
            head, recs = handlog.decode(log.buf)
            delta = [0] * rs[0]
            for r in recs:
                if r[0] == handlog.REC_PAY:
                    delta[r[1]] -= r[3]
                    delta[r[2]] += r[3]
            assert delta == g.delta
            acts = [r[1] for r in recs if r[0] == handlog.REC_ACTION]
            play_acts = [a for a in acts if a[0] not in (G.DEAL, G.EXCHANGE)]
            size = len(log.buf) - handlog.HEADER_LEN
            for r in recs:
                if r[0] == handlog.REC_PAY:
                    size -= 2 + (1 if r[3] < 128 else 2)
                elif r[1][0] in (G.DEAL, G.EXCHANGE):
                    size -= 2 + len(r[1][2]) + 2
            assert size < 8 * len(play_acts)  # under 8 bytes per action record


def test_replay_detects_a_changed_payment_and_ruleset():
    from check import raises

    rs = presets.get("xuezhan")
    log = handlog.Writer(rs.crc(), 4, 0, 2, 0)
    play(rs, 3, dealer=0, direction=2, log=log)
    head, recs = handlog.decode(log.buf)
    assert any(r[0] == handlog.REC_PAY for r in recs)
    buf = bytearray(log.buf)
    i = handlog.HEADER_LEN
    # find the first payment record and change its amount
    while buf[i] >> 3 != handlog.K_PAY:
        k = buf[i] >> 3
        i += 1
        if k in (G.DEAL, G.EXCHANGE):
            i += 1 + buf[i]
        elif k in (G.DINGQUE, G.DRAW, G.DISCARD, G.BUGANG, G.ANGANG, G.HU):
            i += 1
        while buf[i] & 0x80:
            i += 1
        i += 1
    buf[i + 2] += 1
    raises(ValueError, handlog.replay, rs, buf)
    raises(ValueError, handlog.replay, presets.get("xueliu"), log.buf)
    raises(ValueError, handlog.decode, log.buf[:-1] + b"\xff")


def test_an_empty_log_says_the_hand_never_began():
    from check import raises

    e = raises(ValueError, handlog.decode, b"")
    assert "stopped before the hand began" in str(e)
    e = raises(ValueError, handlog.decode, b"HL")
    assert str(e) == "not a hand log"


def _digest(name, n):
    h = 0
    for _rs, _seed, g in _hands(name, n):
        for d in g.delta:
            h = (h * 31 + d + 1000) & 0xFFFFFFFF
        h = (h * 31 + g.nwins) & 0xFFFFFFFF
    return h


DIGESTS = {
    "xuezhan": 382734306, "xueliu": 3260846143, "tfmj-2024": 3705385985,
    "chengdu": 289125408, "games456": 275036276, "bloodshed": 1006385404,
}


def test_both_interpreters_agree():
    got = {name: _digest(name, 6) for name in presets.names()}
    for name, want in DIGESTS.items():
        assert got[name] == want, (name, got[name])


def test_match_totals_and_ranking():
    rs = presets.get("xuezhan")
    m = G.Match(rs, dealer=0)
    rng = Rng(7)
    while not m.over():
        g = m.new_game(direction=2)
        g2 = play(rs, rng.below(1000), dealer=g.dealer, direction=2)
        m.finish(g2)
    assert m.hand_no == rs[37] == 8 and len(m.history) == 8
    assert sum(m.totals) == 4 * 100
    r = m.ranking()
    assert sorted(r) == [0, 1, 2, 3]
    for i in range(3):
        assert m.totals[r[i]] >= m.totals[r[i + 1]]


def _alloc_per_call(fn, *args):
    """Heap bytes one call allocates once warm (MicroPython; 0 on CPython)."""
    import gc

    if not hasattr(gc, "mem_alloc"):
        return 0
    fn(*args)
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(20):
        fn(*args)
    return (gc.mem_alloc() - before) // 20


def _adjudicate(g, f, cold):
    m = 0
    for s in (1, 2, 3):
        if cold:
            g._w[s] = -1
        m |= claims.discard_mask(g, s, f)
    return m


def test_discard_adjudication_allocates_nothing():
    # issue 3 / DESIGN 4: the claim check of three seats on a discard is the hot path
    from gamekit import rules, table

    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55p",
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("xuezhan"), hands, (2, 2, 1, 0))
    for f in (4, 9, 13, 25):
        assert _alloc_per_call(_adjudicate, g, f, False) == 0
        assert _alloc_per_call(_adjudicate, g, f, True) == 0


def test_game_state_fits_in_8k():
    import gc

    if not hasattr(gc, "mem_alloc"):
        return
    rs = presets.get("xuezhan")
    gc.collect()
    before = gc.mem_alloc()
    g = G.Game(rs, 0, G.DIR_NEXT)
    gc.collect()
    assert gc.mem_alloc() - before < 8192
    assert g.phase == G.PH_DEAL

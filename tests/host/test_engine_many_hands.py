"""Thousands of random legal hands per preset (issue 3), on CPython.

tests/core/test_game_props.py checks the same properties on a dozen hands per
preset under both interpreters (and that the interpreters agree hand by
hand); this file plays 1,000 seeded bot hands of every preset: each hand's
payments sum to zero, every tile is where the engine says (108, or the
variant's tile set), no face is seen five times; every tenth hand also
probes illegal actions (refused, nothing changed) and replays its log to the
same state and payments.
"""

import os

import forked
import pytest
from gamekit import located, play, snapshot
from sichuan import handlog, presets
from test_game_props import _direction, _probe

HANDS = 1000


@pytest.mark.parametrize("name", presets.names())
def test_thousand_hands_zero_sum_conserved_and_replayable(name):
    jobs = min(4, os.cpu_count() or 1)  # the seeds split over the cores
    done = forked.starmap(_hands, [(name, range(j, HANDS, jobs)) for j in range(jobs)], jobs)
    assert sum(done) == HANDS


def _hands(name, seeds):
    """Play and check the hands of these seeds; returns how many."""
    rs = presets.get(name)
    np = rs[0]
    tiles = 36 * bin(rs[1]).count("1")
    for seed in seeds:
        d = seed % np
        direction = _direction(rs, seed)
        deep = seed % 10 == 0
        log = handlog.Writer(rs.crc(), np, d, direction, 1000) if deep else None
        g = play(rs, 10_000 + seed, dealer=d, direction=direction, log=log,
                 probe=_probe if deep else None)
        assert sum(g.delta) == 0, (name, seed, g.delta)
        assert bytes(located(g)) == bytes(g.seen), (name, seed)
        assert sum(g.seen) + g.wall == g.total == tiles, (name, seed)
        assert max(g.seen) <= 4, (name, seed)
        if deep:
            g2 = handlog.replay(rs, log.buf)
            assert snapshot(g2) == snapshot(g) and g2.delta == g.delta, (name, seed)
    return len(seeds)

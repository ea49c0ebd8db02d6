"""House patterns on the emulated Pico with the table's own image (issue 42):
the bots of `mjtable sim` play hand 1 of a seeded match of
examples/rules/house/yitiaolong.toml on the board, with a 一条龙 win, and the
hand equals CPython's; the five-pattern ruleset scores wins there with nothing
allocated. Minutes of emulation: MJ_BOARD=1, after `make uf2`. The figures
(heap, time) are bench/bench_house.py's, in docs/board.md; none is asserted."""

import os

import pytest
from mjsim import boardemu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = [
    pytest.mark.board,
    pytest.mark.skipif(not os.environ.get("MJ_BOARD"), reason="board tests: MJ_BOARD=1"),
    pytest.mark.skipif(boardemu.skip_reason() is not None, reason=str(boardemu.skip_reason())),
    pytest.mark.skipif(not os.path.isfile(os.path.join(ROOT, "build", "mjtable-pico.uf2")),
                       reason="no image: make uf2"),
]


def test_the_sim_bots_hand_on_the_board_is_cpythons():
    import bench_house

    s = bench_house.board_sim()
    assert s["equal_to_cpython"], (s["board"], s["cpython"])
    assert s["yitiaolong_wins"]  # the hand has a 一条龙 win, scored on the board


def test_five_house_patterns_score_on_the_board_allocating_nothing():
    import bench_house

    plain, house = bench_house.rulesets()
    p = bench_house.board_probe(bench_house.probe_source(plain, house,
                                                         bench_house.random_wins(20, 7)))
    assert p["house_n"] == 5 and p["wins"] == 20 and p["wins_house_differs"] > 0
    assert p["alloc_per_score"] == 0

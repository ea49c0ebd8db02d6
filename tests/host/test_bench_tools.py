"""The benchmark's own tools: the baseline is correct, the hands are sane and
identical on both interpreters, and `bench.py --quick` writes complete JSON.
No timing is asserted anywhere (speed is reported by `make bench`)."""

import json
import os
import subprocess
import sys

import benchhands
import plainrec
import pytest
from sichuan import shape, tiles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WAITS = benchhands.wait_hands(300)
WINS = benchhands.win_hands(300)
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def _total(c):
    return sum(c)


def test_hands_have_sichuan_sizes_and_at_most_four_copies():
    for c in WAITS:
        assert len(c) == 27 and max(c) <= 4 and _total(c) % 3 == 1 and _total(c) <= 13
    for c in WINS:
        assert len(c) == 27 and max(c) <= 4 and _total(c) % 3 == 2 and _total(c) <= 14


def test_hands_mix_outcomes():
    # Both answers occur, so neither side can win by a shortcut on one outcome.
    ready = sum(1 for c in WAITS if shape.waits(c))
    wins = sum(1 for c in WINS if shape.is_win(c))
    assert 150 < ready < 300
    assert 150 < wins < 300
    assert any(shape.is_qidui(c) for c in WINS)
    assert any(len(shape.waits(c)) >= 3 for c in WAITS)


def test_hands_are_deterministic():
    assert benchhands.digest(benchhands.wait_hands(300)) == benchhands.digest(WAITS)
    assert benchhands.digest(benchhands.win_hands(300)) == benchhands.digest(WINS)
    assert benchhands.digest(WAITS) != benchhands.digest(benchhands.wait_hands(300, seed=1))


def test_plainrec_agrees_with_core_on_bench_hands():
    for void in (-1, 0, 1, 2):
        for c in WAITS:
            before = bytes(c)
            assert plainrec.waits(c, void) == shape.waits(c, void), (tiles.to_text(c), void)
            assert bytes(c) == before  # restored after the search
        for c in WINS:
            assert plainrec.is_win(c, void) == shape.is_win(c, void), (tiles.to_text(c), void)


def test_meld_faces_fill_short_hands_to_fourteen_without_a_fifth_copy():
    for c in WAITS:
        faces = benchhands.meld_faces(c)
        assert _total(c) + 3 * len(faces) == 13
        for f in faces:
            assert c[f] == 0 and sum(c[f - f % 9:f - f % 9 + 9]) > 0  # a suit already held


def test_plainrec_respects_limit_like_core():
    limit = bytearray(27)
    for c in WAITS[:100]:
        for f in range(27):
            limit[f] = (f * 7 + _total(c)) % 3  # some copies held in melds
        assert plainrec.waits(c, -1, limit) == shape.waits(c, -1, limit)


@pytest.mark.parametrize(
    "hand, waits",
    [
        ("1112345678999m", "123456789m"),  # every rank of the suit
        ("1234m", "14m"),  # 11+234 or 123+44
        ("11m22p", "1m2p"),  # 对倒
        ("1m", "1m"),  # 单钓 with four melds down
        ("1133557799m11p2s", "2s"),  # seven pairs only
        ("1111m", ""),  # the fifth 1m does not exist; 2m/3m make no shape
    ],
)
def test_plainrec_known_waits(hand, waits):
    want = [f for f, x in enumerate(tiles.parse(waits)) if x] if waits else []
    assert plainrec.waits(tiles.parse(hand)) == want
    assert shape.waits(tiles.parse(hand)) == want


def test_plainrec_win_examples():
    assert plainrec.is_win(tiles.parse("11223344556677m"))  # seven pairs
    assert plainrec.is_win(tiles.parse("11112233445566m"))  # a four counts as two pairs
    assert plainrec.is_win(tiles.parse("111222333m456p99s"))
    assert not plainrec.is_win(tiles.parse("111222333m456p99s"), void=2)
    assert not plainrec.is_win(tiles.parse("111222333m457p99s"))
    assert not plainrec.is_win(tiles.parse("1m"))


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="needs the MicroPython unix port")
def test_micropython_builds_the_same_hands():
    code = (
        "import sys; sys.path.insert(0, 'bench'); import benchhands as b; "
        "print(b.digest(b.wait_hands(300)), b.digest(b.win_hands(300)))"
    )
    out = subprocess.run([MICROPYTHON, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == [str(benchhands.digest(WAITS)), str(benchhands.digest(WINS))]


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="needs the MicroPython unix port")
def test_bench_quick_writes_all_keys(tmp_path):
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, "bench", "--quick", "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "targets" in run.stdout
    data = json.loads(out.read_text())
    assert set(data) >= {"meta", "core"}
    assert data["meta"]["quick"] is True and data["meta"]["schema"] == 1
    core = data["core"]
    assert set(core) == {"hands", "rates", "ratios", "board", "heap", "mpy", "targets"}
    for interp, impls in (("cpython", ("ours", "plainrec", "mahjong")),
                          ("micropython", ("ours", "plainrec"))):
        for impl in impls:
            for key in ("waits_per_s", "wins_per_s"):
                assert core["rates"][interp][impl][key] > 0, (interp, impl, key)
    for key in ("waits_vs_plainrec_cpython", "waits_vs_plainrec_micropython", "waits_vs_mahjong"):
        assert core["ratios"][key] > 0
    if core["heap"]["with_fan"]:  # once sichuan.fan exists, the waits + fan call is timed too
        assert core["rates"]["micropython"]["ours"]["waits_fan_per_s"] > 0
        assert core["board"]["waits_fan_ms_board_projected"] > 0
        assert core["heap"]["best_wait_bytes"] >= 0
    assert core["board"]["factor"] == 130
    assert core["board"]["waits_ms_board_projected"] > 0
    assert core["heap"]["peak_call_bytes"] >= 0 and core["heap"]["heapsize"]
    assert core["heap"]["waits_mask_bytes"] >= 0
    mods = core["mpy"]["modules"]
    assert {"shape", "fan"} <= set(mods) and "tiles" not in mods  # host only (HOST_ONLY)
    assert core["mpy"]["host_only"] == ["sichuan/tiles.py"]
    assert core["mpy"]["total_bytes"] == sum(mods.values())
    assert core["mpy"]["import_heap_bytes"] > 0
    assert core["mpy"]["import_heap_modules"]["shape"] > 0
    assert set(core["targets"]) == {
        "waits_vs_plainrec_micropython", "waits_vs_plainrec_cpython", "waits_vs_mahjong",
        "waits_fan_heap_bytes", "sichuan_mpy_bytes"}
    for t in core["targets"].values():
        assert isinstance(t["pass"], bool) and t["limit"] > 0
    # the budget counts every module but the one only house patterns load
    assert core["targets"]["sichuan_mpy_bytes"]["value"] == (
        core["mpy"]["total_bytes"] - mods.get("pattern", 0))
    live = data["live"]  # each case says what it cost the machine, where the page got updates
    for name in ("one_table_ten_browsers_1s", "one_table_ten_browsers", "eight_tables_1s",
                 "eight_tables"):
        case = live[name]
        if case.get("updates"):
            assert case["browser_cpu_ms_per_update"] > 0 and case["cores"] == os.cpu_count()
            assert 0 < case["cores_busy"] <= case["cores"] + 0.5, case
            # every browser's page is measured, the driven one's figure kept apart
            assert case["measured_pages"] == case["browsers"] == len(case["per_page_max_ms"])
            assert case["updates"] >= case["measured"]["updates"] > 0, case
    assert any(live[n].get("updates") for n in ("one_table_ten_browsers", "eight_tables"))
    idle = data["idle"]["cases"]  # an idle virtual table's cost, and the link answering it
    assert idle and all(c["cores_busy"] >= 0 and c["info_ms_median"] > 0 for c in idle)

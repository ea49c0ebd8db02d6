"""bench/bench_engine.py: the `engine` figures of `make bench` (quick run)."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


@pytest.mark.skipif(not os.access(MICROPYTHON, os.X_OK), reason="no micropython")
def test_quick_section_has_every_figure():
    import bench_engine as engine_bench

    e = engine_bench.section(quick=True)
    rates = e["simulator"]["hands_per_s"]
    assert rates["cpython"] > 0 and rates["micropython"] > 0
    h = e["heap"]
    assert 0 < h["state_start"] <= h["peak"] and h["alloc_action"] > 0
    assert h["heapsize"] == engine_bench.HEAPSIZE
    assert 1 < e["log"]["bytes_per_action"] < 20
    assert e["discard_us_micropython"]["discards"] > 0
    assert set(e["targets"]) == {"state_bytes", "log_bytes_per_action"}
    text = engine_bench.table(e)
    assert "hands/s MicroPython" in text and "B per action" in text


def test_record_sizes_walk_the_whole_log():
    import bench_engine as engine_bench
    from mjtable.referee import simcore
    from sichuan import handlog, presets

    buf = simcore.Sim(presets.get("xueliu"), 3).play_hand(True)["log"]
    sizes = engine_bench._record_sizes(buf)
    assert sum(sizes) == len(buf) - handlog.HEADER_LEN
    assert len(sizes) == len(handlog.decode(buf)[1])

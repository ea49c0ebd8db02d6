"""A whole 8-hand xuezhan match by the virtual table's bots against the
firmware on the emulated Pico, the host link open throughout (WATCH), on the
stock image (code in files), on the ROMFS image (deploy puts the code in
ROMFS) and on the table's own image (build/mjtable-pico.uf2, `make uf2`: the
code frozen in): every action the board accepts is the bot's move, and the final
scores, the table's (its end-of-hand records) and the bots' truth, equal the
engine's replay of the logs pulled over the board's USB with `mjtable logs
pull`. Hours of wall time: `make test-long` runs it (MJ_BOARD_MATCH=1)."""

import json
import os
import time

import pytest
from mjsim.boardemu import HEAP_TARGETS, EmuBoard, images, play, skip_reason

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.board
if skip_reason():
    pytest.skip(skip_reason(), allow_module_level=True)
if not os.environ.get("MJ_BOARD_MATCH"):
    pytest.skip("the board match takes hours: MJ_BOARD_MATCH=1 (make test-long)",
                allow_module_level=True)


IMAGE = os.path.join(ROOT, "build", "mjtable-pico.uf2")


@pytest.mark.parametrize("image", ["stock", "romfs", "image"])
def test_board_match(tmp_path, image):
    uf2 = IMAGE if image == "image" else images()[image]
    if uf2 is None or not os.path.isfile(uf2):
        pytest.skip("no %s image (make uf2, PICO_UF2_ROMFS or ../shared/rp2emu/)" % image)
    seed = 2026
    b = EmuBoard(seed=seed, uf2=uf2, workdir=str(tmp_path / "board"))
    with b:
        if image == "image":  # the firmware is frozen in; up, Ctrl-C works (docs/image.md)
            b.mjtable("info", "--timeout", "120")
        b.provision_files()
        if image == "image":  # the reset boots it with the key
            b.reset()
            b.mjtable("info", "--timeout", "120")
        else:
            out = b.deploy()
            assert ("ROMFS image" in out) == (image == "romfs")
        vt = play.V.VirtualTable("xuezhan", seed)
        bp = play.BoardPlay(b, vt)
        bp.watch.progress = True
        bp.start()
        try:
            assert bp.wait(12 * 3600), "not done: %r" % (vt.stuck,)
        finally:
            bp.stop()
        w = bp.watch
        if vt.mismatch or vt.stuck is not None:  # what the table says of itself (INFO keys=, ...)
            print(b.mjtable("info", "--timeout", "60", check=False).stdout)
        assert not vt.mismatch and vt.stuck is None and not w.errors
        assert w.actions == [tuple(a) for a in vt.applied]
        assert w.ends == 8
        info = json.loads(b.mjtable("info", "--json").stdout)
        arch = str(tmp_path / "archive.sqlite")
        e0, w0 = b.now_ns(), time.monotonic()
        b.mjtable("logs", "pull", "--archive", arch, "--quiet", "--timeout", "60")
        record_figures(image, b, info, arch, b.now_ns() - e0, time.monotonic() - w0, bp)
        hands = play.pulled_hands(arch)
        assert len(hands) == 8 and all(not h["diffs"] for h in hands)
        replayed = [sum(h["replayed"][s] for h in hands) for s in range(4)]
        table = [sum(p[s] for p in w.points) for s in range(4)]
        truth = [sum(d[s] for d in vt.hand_deltas) for s in range(4)]
        assert replayed == table == truth


def record_figures(image, b, info, arch, pull_ns, pull_wall, bp):
    """The match's figures (reported, not asserted: docs/board.md) into
    build/board-match-IMAGE.json: the heap's live peak through the match
    with the link open (INFO heap=free,peak,total), `logs pull` throughput
    over the board's USB, the moves' acceptance latency."""
    import sqlite3

    w = bp.watch
    h = info["heap"]
    free, peak, total = (int(x) for x in (h if isinstance(h, list) else str(h).split(",")))
    con = sqlite3.connect(arch)
    nbytes = con.execute("SELECT sum(length(data)) FROM logs").fetchone()[0] or 0
    con.close()
    gaps = sorted((w.accepted_at[i] - w.accepted_at[i - 1]) / 1e6
                  for i in range(1, len(w.accepted_at)))
    fig = {"image": image, "heap_total": total, "live_peak": peak,
           "free_at_peak": total - peak, "target_free_at_peak": HEAP_TARGETS[image][1],
           "pull_bytes": nbytes, "pull_emu_s": round(pull_ns / 1e9, 2),
           "pull_wall_s": round(pull_wall, 1),
           "pull_bytes_per_emu_s": round(nbytes / (pull_ns / 1e9)) if pull_ns else None,
           "actions": len(w.actions), "match_emu_s": round(b.now_ns() / 1e9, 1),
           "gap_ms_median": round(gaps[len(gaps) // 2]) if gaps else None,
           "move_to_accepted_ms": bp.latencies()}
    out = os.path.join(ROOT, "build", "board-match-%s.json" % image)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(fig, f, indent=1)
    print(json.dumps(fig))

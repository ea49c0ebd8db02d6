"""The table demo: a whole 8-hand 血战到底 (xuezhan) match played by bots on
the virtual table, with the firmware running on the MicroPython unix port
from the compiled .mpy files, the four seat displays drawn live.

    python tools/table_demo.py [--seed N] [--miss 0.02] [--heap 128K] [--quiet]

The displays are read back from the HT16K33 simulators' display RAM (sent
by the firmware every frame) and drawn as 7-segment digits; the dot under a
display is the seat's LED (green: turn, blue: may claim, red: alert, gold:
has won, grey: owes a setup step). At the end: each hand's points and the
final scores: the table's, the engine's replay of the hand logs the
firmware wrote to its (LittleFS) flash, and the virtual table's own engine.
"""

import os
import sys
import time

from mjsim import virtual as V

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Its one seeded match plays through in 114K (docs/table.md); 14 KB of room.
# Not yet the 96K the issue asks for: see mjsim.virtual.
DEMO_HEAP = "128K"
SEATS = ("东 E", "南 S", "西 W", "北 N")
LED = ("  ", "\x1b[42m  \x1b[0m", "\x1b[44m  \x1b[0m", "\x1b[41m  \x1b[0m", "\x1b[43m  \x1b[0m",
       "\x1b[47m  \x1b[0m")
PHASES = ("deal", "换三张", "定缺", "draw", "discard", "claim", "抢杠", "end")
STATES = ("idle", "play", "hand over", "flash full", "match over")


def seven_segment(ram):
    """Three text lines drawing the 4 digits of one HT16K33 RAM image (16 bytes)."""
    rows = ["", "", ""]
    for i, a in enumerate((0, 2, 6, 8)):
        b = ram[a]
        rows[0] += " " + ("_" if b & 0x01 else " ") + "  "
        rows[1] += ("|" if b & 0x20 else " ") + ("_" if b & 0x40 else " ") + \
            ("|" if b & 0x02 else " ") + " "
        rows[2] += ("|" if b & 0x10 else " ") + ("_" if b & 0x08 else " ") + \
            ("|" if b & 0x04 else " ") + ("." if b & 0x80 else " ")
        if i == 1:
            colon = ram[4] & 0x02
            rows[0] += " "
            rows[1] += "." if colon else " "
            rows[2] += "." if colon else " "
    return rows


def render(st, vt):
    out = ["\x1b[H\x1b[2J" if sys.stdout.isatty() else "",
           "Sichuan mahjong table - xuezhan, hand %d of %d, %s, %s    frame %d" % (
               min(st.hand + 1, vt.hands), vt.hands, STATES[st.state] if st.state < 5 else "?",
               PHASES[st.phase] if st.phase < 8 else "-", st.frame), ""]
    blocks = [seven_segment(st.ram[16 * s:16 * s + 16]) for s in range(4)]
    out.append("".join("%-20s" % ("seat %d %s" % (s, SEATS[s])) for s in range(4)))
    for r in range(3):
        out.append("".join("%-20s" % blocks[s][r] for s in range(4)))
    out.append("".join("    %s              " % LED[st.leds[s] if st.leds[s] < 6 else 0]
                       for s in range(4)))
    out.append("")
    out.append("displays as text: " + "  ".join("[%s]" % t for t in st.texts()))
    return "\n".join(out)


def score_table(res):
    lines = ["", "hand   " + "".join("%8s" % ("seat %d" % s)
                                      for s in range(len(res["truth_totals"])))]
    for i, d in enumerate(res["hand_deltas"]):
        lines.append("%4d   " % (i + 1) + "".join("%8d" % x for x in d))
    lines.append("final  " + "".join("%8d" % x for x in (res["totals"] or [])) +
                 "   the table's displays")
    lines.append("logs   " + "".join("%8d" % x for x in (res["replay_totals"] or [])) +
                 "   the engine replaying the hand logs on the table's flash")
    lines.append("truth  " + "".join("%8d" % x for x in res["truth_totals"]) +
                 "   the virtual table's own engine")
    return "\n".join(lines)


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--miss", type=float, default=0.02)
    ap.add_argument("--heap", default=DEMO_HEAP)
    ap.add_argument("--quiet", action="store_true", help="no live displays")
    a = ap.parse_args(argv)
    V.build_fw()
    vt = V.VirtualTable("xuezhan", a.seed)
    live = not a.quiet
    last = [0.0, None]

    def on_frame(vt, st):
        if not live:
            return
        now = time.monotonic()
        key = (st.ram, tuple(st.leds), st.hand, st.phase)
        if key != last[1] and now - last[0] > 0.04:
            last[0] = now
            last[1] = key
            print(render(st, vt), flush=True)

    t0 = time.monotonic()
    res = V.run(vt, miss=a.miss, heap=a.heap, on_frame=on_frame)
    if live and res["status"] is not None:
        print(render(res["status"], vt))
    print(score_table(res))
    v = V.verdict(res, vt.hands)
    ok = v is None
    print("\n%d hands, %d actions read off the table in %d scan frames, %.1f s; %s" % (
        res["hands"], res["accepted"], res["frames"], time.monotonic() - t0,
        v or "every score agrees"))
    stats = [ln for ln in (res["stdout"] or "").splitlines() if ln.startswith("STATS")]
    if stats:
        print("firmware: " + stats[-1][6:])
    if not ok:
        print(res["mismatch"], res["stuck"], res["error"], (res["stdout"] or "")[-800:],
              res["stderr"][-800:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The table on the emulated Pico, for a newcomer: the stock MicroPython
image in rp2040js with the table's chips on its buses (boardemu,
docs/board.md), the firmware put on it with `mjtable deploy` over the
emulated USB, then the virtual table's bots playing the 8-hand 血战到底 match
against it, the four seat displays (HT16K33 RAM) and LEDs (the WS2812
chain) drawn live as `make demo` draws them.

    python tools/board_demo.py [--seed N] [--actions N] [--quiet]

The emulated board runs several times slower than a real one (about 2.5
wall s per busy emulated s on two idle cores): the whole match takes an hour
and more; --actions stops after that many accepted actions. Ctrl-C stops.
"""

import argparse
import os
import sys
import time

import table_demo
from mjsim.boardemu import EmuBoard, play, skip_reason

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--actions", type=int, default=0, help="stop after N accepted actions")
    ap.add_argument("--quiet", action="store_true", help="no live displays")
    a = ap.parse_args(argv)
    why = skip_reason()
    if why:
        print("board-demo:", why)
        return 1
    b = EmuBoard(seed=a.seed)
    with b:
        print("booted the emulated Pico; the USB link is %s\ndeploying..." % b.port, flush=True)
        b.provision_files()
        print(b.deploy().splitlines()[-1], flush=True)
        vt = play.V.VirtualTable("xuezhan", a.seed)
        last = [0.0, None]

        def on_frame(st):
            key = (st.ram, tuple(st.leds), st.hand, st.phase)
            if not a.quiet and key != last[1] and time.monotonic() - last[0] > 0.1:
                last[0], last[1] = time.monotonic(), key
                print(table_demo.render(st, vt) + "\nemulated %.1f s, %d actions accepted"
                      % (b.now_ns() / 1e9, st.accepted), flush=True)

        until = play.first_actions(a.actions) if a.actions else None
        bp = play.BoardPlay(b, vt, until=until, on_frame=on_frame).start()
        try:
            bp.wait(24 * 3600)
        except KeyboardInterrupt:
            pass
        finally:
            bp.stop()
        w = bp.watch
        print("\n%d actions accepted, every one the bot's move: %s; %d hands ended, points %s"
              % (w.accepted, w.actions == [tuple(x) for x in vt.applied[:w.accepted]],
                 w.ends, w.points))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

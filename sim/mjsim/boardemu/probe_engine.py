# Runs ON the emulated Pico (mpremote exec): the rules core replaying hand logs
# the host simulated (LOGS, hex, filled in by bench/bench_board.py): the time
# of adjudicating each discard (Game.apply of it, the claim masks of the other
# seats included) and the worst single action of all (with its kind and
# whether the wall was empty then: the 查叫 at a drawn hand's end). One JSON line.
import gc
import json
import time
from binascii import unhexlify

import machine
from sichuan import game as G
from sichuan import handlog, presets

# the build folds the modules' constants into their code (docs/decisions.md):
# the board has no handlog.REC_ACTION or game.DISCARD to look up
REC_ACTION = 0
DISCARD = 4

machine.mem32[0x40058000] &= ~(1 << 30)  # the firmware's watchdog (sim/mjsim/boardemu/probe.py)
LOGS = []  # filled in by the host
rs = presets.get("xuezhan")
disc = []
worst = (0, -1, 0)
for h in LOGS:
    head, recs = handlog.decode(unhexlify(h))
    g = G.Game(rs, head[2], head[3])
    for r in recs:
        if r[0] != REC_ACTION:
            continue
        a = r[1]
        gc.collect()
        t = time.ticks_us()
        g.apply(a)
        dt = time.ticks_diff(time.ticks_us(), t)
        if a[0] == DISCARD:
            disc.append(dt)
        if dt > worst[0]:
            worst = (dt, a[0], g.wall)
disc.sort()
print("PROBE " + json.dumps({"discards": len(disc), "discard_us_median": disc[len(disc) // 2],
                             "discard_us_max": disc[-1], "worst_us": worst[0],
                             "worst_kind": worst[1], "worst_wall": worst[2]}))

# Runs under MicroPython (the unix port): mount a table's flash image
# (LittleFS2 over a file-backed block device, as the firmware left it) and
# re-score every hand log on it with the engine, as the host does with the
# logs it pulls. Prints "REPLAY hands=N totals=a,b,c,d" (the preset's start
# points plus every finished hand) and, per hand, "HAND id deltas".
#   MICROPYPATH=firmware:sim micropython sim/mjsim/logreplay.py FLASH_IMAGE [preset]
# (mjsim.unixbuild.micropython_env)
import sys

from sichuan import game as G
from sichuan import handlog, presets
from table.controller import REC_ACT, REC_HEAD
from table.logstore import LogStore
from table.recordlog import RecordLog

from mjsim import blockdev


def main(image, preset):
    rs = presets.get(preset)
    blockdev.mount(image, "/flash")
    logs = LogStore("/flash/logs")
    match = G.Match(rs)  # books each hand as the table's match does (叫马 side payments too)
    for i in logs.list():
        log = RecordLog(logs.path(i))
        buf = bytearray()
        for _, _, rtype, payload in log.records():
            if rtype == REC_HEAD or rtype == REC_ACT:
                buf += payload
        log.close()
        if not buf:  # created, then the firmware stopped before the hand's first record
            continue
        g = handlog.replay(rs, buf)
        if g.phase != G.PH_END:  # the table was stopped in this hand: not scored
            continue
        print("HAND", i, " ".join(str(d) for d in g.delta))
        match.finish(g)
    print("REPLAY hands=%d totals=%s" % (match.hand_no, ",".join(str(v) for v in match.totals)))


main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "xuezhan")

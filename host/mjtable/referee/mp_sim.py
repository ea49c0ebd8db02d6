"""`mjtable sim --engine micropython`: the simulator run in the MicroPython unix port.

    MICROPYPATH=FIRMWARE_DIR micropython mp_sim.py < request > results

The request is ONE JSON line: {"rules": hex of the ruleset blob, "hands": N,
"seed": S, "log": true|false}. The driver plays the match with simcore (the
same file CPython runs) and writes one JSON line per hand as soon as it is
played (the host draws its progress bar from them), then one line with the
match summary {"summary": {...}}. A hand's log, when asked for, travels as
hex in "log". A failure writes {"error": "..."} and stops. The host re-prints
everything itself, so the output does not depend on this json module.
"""

import json
import sys


def serve(stdin, stdout):
    from binascii import hexlify, unhexlify

    import simcore
    from sichuan import ruleset

    try:
        req = json.loads(stdin.readline())
        rs = ruleset.from_blob(unhexlify(req["rules"]))
        sim = simcore.Sim(rs, req["seed"])
        for _ in range(req["hands"]):
            r = sim.play_hand(req.get("log", False))
            if "log" in r:
                r["log"] = hexlify(r["log"]).decode()
            stdout.write(json.dumps(r))
            stdout.write("\n")
        stdout.write(json.dumps({"summary": sim.summary()}))
        stdout.write("\n")
    except Exception as e:  # report it as a line; the host turns it into an error
        stdout.write(json.dumps({"error": "micropython engine: %s: %s" % (type(e).__name__, e)}))
        stdout.write("\n")


if __name__ == "__main__":  # simcore sits beside this script, sichuan on MICROPYPATH
    serve(sys.stdin, sys.stdout)

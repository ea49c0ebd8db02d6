"""The calculator's computation, shared by both engines.

`compute(rs, req)` is what `mjtable waits|calc` runs on CPython. Run as a
script under MicroPython it is the `--engine micropython` driver:

    MICROPYPATH=FIRMWARE_DIR micropython mp_calc.py  < requests  > results

Each stdin line is one JSON request; each stdout line is the JSON result of
one request, in order. A request (already validated by the host):
    {"rules": hex of the ruleset blob, "cmd": "waits" | "calc",
     "counts": [27 ints, concealed tiles without the winning tile],
     "melds": [meld ints], "void": -1..2, "win": face, "flags": WIN flags,
     "values": waits: each wait's value too}
The host re-prints every result itself, so the bytes on screen do not depend
on either interpreter's json module or dict order.

MicroPython subset only: no f-strings with format specs, no typing.
"""

import json
import sys

_rules_cache = {}  # blob hex -> Ruleset: a batch usually repeats one ruleset


def ruleset_of(hexblob):
    rs = _rules_cache.get(hexblob)
    if rs is None:
        from binascii import unhexlify

        from sichuan import ruleset

        rs = ruleset.from_blob(unhexlify(hexblob))
        _rules_cache[hexblob] = rs
    return rs


def compute(rs, req):
    """Result dict of one validated request under ruleset rs."""
    if __name__ == "__main__":  # MicroPython: calc.py sits beside this script
        import calc
    else:
        from mjtable.referee import calc

    counts = bytearray(req["counts"])
    melds = list(req["melds"])
    if req["cmd"] == "waits":
        return calc.waits_result(rs, counts, melds, req["void"], req.get("values", False))
    return calc.calc_result(rs, counts, req["win"], melds, req["void"], req["flags"])


def serve(stdin, stdout):
    """Answer request lines until EOF; a failing request yields {"error": ...}."""
    while True:
        line = stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            out = compute(ruleset_of(req["rules"]), req)
        except ValueError as e:  # the core refusing input: same text as on CPython
            out = {"error": str(e)}
        except Exception as e:  # a crash: report it, keep serving one line per request
            out = {"error": "micropython engine: %s: %s" % (type(e).__name__, e)}
        stdout.write(json.dumps(out))
        stdout.write("\n")


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)

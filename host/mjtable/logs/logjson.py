"""A binary hand log (sichuan.handlog) as JSON, on the host.

    python -m mjtable.logjson FILE [--rules PRESET|FILE]

`decode(buf)` -> dict:
    {"header": {"crc": "1a2b3c4d", "players": 4, "dealer": 0,
                "direction": "next", "t0": 0},
     "records": [{"action": "deal", "seat": 0, "tiles": ["1m", ...], "t": 1500},
                 {"action": "draw", "seat": 1, "tile": "9p", "t": 3000},
                 {"action": "peng", "seat": 2, "t": 4100},
                 {"action": "dingque", "seat": 0, "suit": "s", "t": ...},
                 {"pay": "gang_an", "payer": 0, "payee": 1, "amount": 2}, ...]}
t is milliseconds on the log's clock (t0 + the recorded gaps). With a
ruleset (`replay(rs, buf)`) the log is also replayed through the engine,
which checks every payment, and "deltas" is added. Seats are 0-based.
"""

import argparse
import json
import sys

from sichuan import game as G
from sichuan import handlog, tiles

from mjtable import BadInput
from mjtable.rules import names

DIRECTIONS = {G.DIR_PREV: "prev", G.DIR_NEXT: "next", G.DIR_ACROSS: "across"}


def _action(a):
    kind, seat, arg, t = a
    d = {"action": names.ACTION_NAMES[kind], "seat": seat}
    if kind in (G.DEAL, G.EXCHANGE):
        d["tiles"] = [tiles.name(f) for f in arg]
    elif kind == G.DINGQUE:
        d["suit"] = tiles.SUITS[arg] if 0 <= arg < 3 else arg
    elif kind in (G.DRAW, G.DISCARD, G.BUGANG, G.ANGANG):
        d["tile"] = tiles.name(arg)
    elif kind == G.HU and 0 <= arg < 27:
        d["tile"] = tiles.name(arg)
    d["t"] = t
    return d


def decode(buf):
    """The log as a JSON-ready dict; ValueError (naming the byte) if it is bad."""
    head, recs = handlog.decode(buf)
    out = {"header": {"crc": "%08x" % head[0], "players": head[1], "dealer": head[2],
                      "direction": DIRECTIONS.get(head[3], head[3]), "t0": head[4]},
           "records": []}
    for r in recs:
        if r[0] == handlog.REC_ACTION:
            out["records"].append(_action(r[1]))
        else:
            _, payer, payee, amount, why = r
            name = names.PAY_NAMES[why] if why < len(names.PAY_NAMES) else why
            out["records"].append({"pay": name, "payer": payer, "payee": payee,
                                   "amount": amount})
    return out


def replay(rs, buf):
    """decode(buf) plus "deltas" from replaying it under rs (ValueError if it differs)."""
    out = decode(buf)
    g = handlog.replay(rs, buf)
    out["deltas"] = list(g.delta)
    out["over"] = g.phase == G.PH_END
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m mjtable.logjson",
                                description="print a binary hand log as JSON")
    p.add_argument("file")
    p.add_argument("--rules", metavar="PRESET|FILE",
                   help="also replay it under this ruleset and add the deltas")
    args = p.parse_args(argv)
    try:
        with open(args.file, "rb") as f:
            buf = f.read()
        if args.rules:
            from mjtable.rules import rulefile
            d = replay(rulefile.load(args.rules), buf)
        else:
            d = decode(buf)
    except (OSError, ValueError, BadInput) as e:
        print("logjson: %s: %s" % (args.file, e), file=sys.stderr)
        return 2
    print(json.dumps(d, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

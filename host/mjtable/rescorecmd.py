"""`mjtable rescore`: recompute archived hands with the rules core and flag any
difference from what the table recorded (each payment, and the points per
seat of the hand's end record).

    mjtable rescore [HAND_ID ...] [--archive PATH] [--rules PRESET|FILE] [--json]
Exit status 1 if any hand differs or cannot be replayed.
"""

from __future__ import annotations

import json

from . import BadInput, archive, hands


def add_parsers(sub):
    p = sub.add_parser("rescore", help="recompute archived hands and flag differences")
    p.add_argument("hand", nargs="*", metavar="HAND_ID", help="hands (default: all)")
    archive.add_argument(p)
    p.add_argument("--rules", metavar="PRESET|FILE", default=None,
                   help="score under this ruleset instead of the one the table used")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=rescore)


def rescore_one(ar, row: int, rules=None) -> dict:
    try:
        h = hands.load(ar, row, rules)
    except BadInput as e:
        return {"hand": row, "ok": False, "differences": [str(e)]}
    g, diffs = hands.run(h)
    table = h.log.end_points()
    # a replay the engine refused to finish gives no result to set beside the table's
    engine = list(g.delta) if h.stopped is None else None
    if table is not None and engine is not None and table != engine:
        diffs.append("points: table recorded %s, engine gives %s" % (table, engine))
    if table is None:
        diffs.append("no end-of-hand record: the hand did not finish on the table")
    return {"hand": row, "table": h.table_id, "log": h.log_id, "seal": h.seal,
            "rules": h.rs.name, "points_table": table, "points_engine": engine,
            "ok": not diffs, "differences": diffs}


def rescore(args):
    ar = archive.Archive(args.archive, create=False)
    rows = [ar.find_hand(x) for x in args.hand] if args.hand else [r[0] for r in ar.logs()]
    results = [rescore_one(ar, r, args.rules) for r in rows]
    if args.json:
        print(json.dumps(results, indent=1, ensure_ascii=False))
    else:
        for r in results:
            if r["ok"]:
                print("hand %d: same as the table %s" % (r["hand"], r["points_engine"]))
            else:
                for d in r["differences"]:
                    print("hand %d: DIFFERS: %s" % (r["hand"], d))
        bad = sum(1 for r in results if not r["ok"])
        print("%d hand(s) rescored, %d differ" % (len(results), bad))
    return 1 if any(not r["ok"] for r in results) else 0

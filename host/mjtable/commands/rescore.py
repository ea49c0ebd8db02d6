"""`mjtable rescore`: recompute archived hands with the rules core and flag any
difference from what the table recorded (each payment, and the points per
seat of the hand's end record).

    mjtable rescore [HAND_ID ...] [--archive PATH] [--rules PRESET|FILE] [--json]
Exit status 1 if any hand differs or cannot be replayed. A hand whose log
has no end record (in play when pulled, or cut short) has no result to
compare: it is named as such, not as a difference.
"""

from __future__ import annotations

import json

from mjtable import BadInput, archive
from mjtable.logs import hands


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
    return {"hand": row, "table": h.table_id, "log": h.log_id, "seal": h.seal,
            "rules": h.rs.name, "points_table": table, "points_engine": engine,
            "result": table is not None, "ok": not diffs, "differences": diffs}


def rescore(args):
    ar = archive.open_archive(args.archive, create=False)
    rows = [ar.find_hand(x) for x in args.hand] if args.hand else [r[0] for r in ar.logs()]
    results = [rescore_one(ar, r, args.rules) for r in rows]
    if args.json:
        print(json.dumps(results, indent=1, ensure_ascii=False))
    else:
        for r in results:
            for d in r["differences"]:
                print("hand %d: DIFFERS: %s" % (r["hand"], d))
            if not r["ok"]:
                continue
            if r.get("result") is False:
                print("hand %d: no result: the log ends before the hand did (in play when"
                      " pulled, or cut short); its actions replay as the table logged them"
                      % r["hand"])
            else:
                print("hand %d: same as the table %s" % (r["hand"], r["points_engine"]))
        bad = sum(1 for r in results if not r["ok"])
        open_ = sum(1 for r in results if r["ok"] and r.get("result") is False)
        print("%d hand(s) rescored, %d differ" % (len(results), bad)
              + (", %d without a result yet" % open_ if open_ else ""))
    return 1 if any(not r["ok"] for r in results) else 0

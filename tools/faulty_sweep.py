"""The faulty-reads sweep: many 8-hand xuezhan matches of the bots against
the table's controller in this process (mjsim.virtual's
run_inprocess: the firmware's own code on CPython, the PN5180s simulated
with missed and phantom reads, duplicated and unknown tags laid between
moves), counted:

- wrong actions: an action the table accepted that the bots did not make
  (the match stops there), or final scores that differ from the truth's;
  must be 0;
- stalls (allowed, counted): an alert the injected tags do not explain (a
  duplicated tag's "2PLC", an unknown one's "tAG" are the table doing its
  job), and a move the table took more than --stall frames to take (frames:
  the in-process table's scan cycles, 50 ms of its clock each) while no
  injected tag stood on the table;
- matches not finishing: the bots left waiting past their limit (600
  frames), or fewer hands played than asked.

    python tools/faulty_sweep.py --seeds 1000-1999 --miss 0.05 --phantom 0.01 \\
        --dup 0.005 --unknown 0.005 --out build/sweep.jsonl

prints one line per match and the totals; --out keeps each match's counts
(JSON lines), and --sum FILE... totals such files again (a sweep stopped
part way, or run in pieces).
"""

import argparse
import json
import sys
import time

from mjsim import virtual as V

_WANT = {"dup": V.ALERT_TWO, "unknown": V.ALERT_TAG}  # the alert each injected tag should raise
_TAG_ALERTS = (V.ALERT_TWO, V.ALERT_TAG)
KEYS = ("matches", "hands", "actions", "wrong", "score_differs", "not_finished", "alerts",
        "slow", "fault_tags", "fault_tags_alerted", "seconds")


def play(seed, miss, phantom, dup, unknown, hands=8, stall=10):
    """One match; its counts (KEYS, one match) with the details of what
    went wrong, if anything."""
    vt = V.VirtualTable("xuezhan", seed, dup=dup, unknown=unknown, hands=hands)
    seen = {"wait": 0, "tag": False, "alerts": [0] * 4, "fault": None, "slow": [], "odd": [],
            "max": 0}

    def on_frame(vt, st, ctl):
        # vt.tick has run: a fault it ended this frame was seen.fault before it
        active = vt.fault or seen["fault"]
        # the wait a tag causes lasts until its alert clears, after it is gone
        tagged = active is not None or any(c in _TAG_ALERTS for c in st.alerts)
        seen["tag"] = seen["tag"] or tagged
        for s in range(4):
            c = st.alerts[s]
            if c and c != seen["alerts"][s] and not (active and c == _WANT[active[0]]):
                seen["odd"].append((vt.count, s, c))
        seen["alerts"] = list(st.alerts)
        seen["fault"] = vt.fault
        if vt.wait == 0:
            if not seen["tag"]:
                seen["max"] = max(seen["max"], seen["wait"])
                if seen["wait"] > stall:
                    seen["slow"].append((vt.count, seen["wait"]))
            seen["tag"] = tagged
        seen["wait"] = vt.wait

    t0 = time.time()
    r = V.run_inprocess(vt, miss=miss, phantom=phantom, on_frame=on_frame)
    f = vt.faults
    wrong = len(r["mismatch"])
    differs = int(not wrong and r["hands"] == hands and r["totals"] != r["truth_totals"])
    return {
        "seed": seed, "matches": 1, "hands": r["hands"], "actions": r["accepted"],
        "wrong": wrong, "score_differs": differs,
        "not_finished": int(not wrong and (r["stuck"] is not None or r["hands"] != hands)),
        "alerts": len(seen["odd"]), "slow": len(seen["slow"]),
        "fault_tags": f["dup"] + f["unknown"],
        "fault_tags_alerted": f["dup_seen"] + f["unknown_seen"], "max_wait": seen["max"],
        "seconds": round(time.time() - t0, 2),
        "mismatch": r["mismatch"], "stuck": r["stuck"], "odd_alerts": seen["odd"],
        "slow_moves": seen["slow"],
    }


def total(rows):
    out = dict.fromkeys(KEYS, 0)
    for r in rows:
        for k in KEYS:
            out[k] += r[k]
    out["seconds"] = round(out["seconds"])
    out["max_wait"] = max((r["max_wait"] for r in rows), default=0)
    out["bad_seeds"] = [r["seed"] for r in rows if r["wrong"] or r["score_differs"]]
    out["unfinished_seeds"] = [r["seed"] for r in rows if r["not_finished"]]
    return out


def seeds(spec):
    a, _, b = spec.partition("-")
    return range(int(a), int(b or a) + 1)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1000-1009", help="first-last (inclusive)")
    ap.add_argument("--miss", type=float, default=0.05)
    ap.add_argument("--phantom", type=float, default=0.01)
    ap.add_argument("--dup", type=float, default=0.005)
    ap.add_argument("--unknown", type=float, default=0.005)
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--stall", type=int, default=10,
                    help="frames a move may take before it is slow")
    ap.add_argument("--out", help="append each match's counts here (JSON lines)")
    ap.add_argument("--sum", nargs="+", metavar="FILE", help="total these --out files only")
    a = ap.parse_args(argv)
    if a.sum:
        rows = []
        for path in a.sum:
            with open(path) as f:
                rows += [json.loads(ln) for ln in f if ln.strip()]
        print(json.dumps(total(rows)))
        return 0
    rows = []
    for seed in seeds(a.seeds):
        r = play(seed, a.miss, a.phantom, a.dup, a.unknown, a.hands, a.stall)
        rows.append(r)
        print("seed %d: %d hands, %d actions, wrong %d, differs %d, unfinished %d, alerts %d, "
              "slow %d, longest wait %d, %.1f s"
              % (seed, r["hands"], r["actions"], r["wrong"], r["score_differs"], r["not_finished"],
                 r["alerts"], r["slow"], r["max_wait"], r["seconds"]), flush=True)
        if r["wrong"] or r["score_differs"] or r["not_finished"]:
            print("  ", r["mismatch"], r["stuck"], flush=True)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(r) + "\n")
    t = total(rows)
    print(json.dumps(t))
    return 1 if t["wrong"] or t["score_differs"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

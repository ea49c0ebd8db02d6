"""`make bench` section "event": a generated 竞技 event of 64 tables x 8 rounds
x 8 hands (4,096 hand logs written by the firmware's log code from `mjtable
sim` matches, tools/event_gen.py; kept in build/event-bench/ between runs),
imported into an archive, then its standings, on SQLite and on PostgreSQL
(a server of tools/pgtemp.py, fsync on).

Figures: import in hands/s (`event import`: every record's CRC, the hash
chain and the seal checked, archived, indexed), the per-hand rate of
Archive.add_log (one transaction a hand, as `logs pull` archives), and the
seconds for the standings of the whole event after its last round (every
match, placings, tie-breaks, the JSON document). Targets: standings under
2 s, import at least 500 hands/s. --quick: 2 tables x 2 rounds, SQLite only.
"""

import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))  # the event's generator, the PostgreSQL server

import event_gen  # noqa: E402
import pgtemp  # noqa: E402
from mjtable import archive  # noqa: E402
from mjtable.event import importer, seating, sheets, store  # noqa: E402
from mjtable.event import standings as S  # noqa: E402
from mjtable.logs import logfmt  # noqa: E402

FULL = (64, 8, 8)
QUICK = (2, 2, 8)
PULL_SAMPLE = 512  # hands archived one transaction each (the pull's way)


def _play_event(ar, path, logs, tables, rounds, hands):
    """Create the event, import every log, then draw and start each round
    (round r's draw from the standings after r - 1). Returns the timings."""
    from mjtable.event import eventfile

    ev = eventfile.load(path)
    store.ensure(ar)
    store.add_event(ar, ev)
    t0, c0 = time.perf_counter(), time.process_time()
    st = importer.import_dirs(ar, [logs], event_gen.KEY)
    t_import, c_import = time.perf_counter() - t0, time.process_time() - c0
    assert st["new"] == tables * rounds * hands and not st["bad"], st
    t_draw = 0.0
    pids = [p.pid for p in ev.players]
    for r in range(1, rounds + 1):
        t1 = time.perf_counter()
        if r == 1:
            tabs = seating.first_round(pids, 4, ev.seed)
        else:
            ranked = [x.pid for x in S.table(ev, S.build(ar, ev, r - 1))]
            tabs = seating.next_round(ranked, store.all_seats(ar, ev.eid), 4, ev.rounds, ev.seed)
        store.save_seats(ar, ev.eid, r, tabs)
        t_draw += time.perf_counter() - t1
        for t in range(1, tables + 1):
            store.start_match(ar, ev.eid, r, t, event_gen.table_id(t).hex(), (r - 1) * hands,
                              hands, 3000, "%08x" % ev.rs.crc())
    t0, c0 = time.perf_counter(), time.process_time()
    ms = S.build(ar, ev)
    rows = S.table(ev, ms)
    data = sheets.standings_data(ev, rounds, ms, rows, store.corrections(ar, ev.eid))
    t_stand, c_stand = time.perf_counter() - t0, time.process_time() - c0
    counted = sum(len(m.counted) for m in ms.values())
    assert counted == tables * rounds * hands, counted
    t0 = time.perf_counter()
    sheets.standings_html(data)
    sheets.standings_csv(data)
    t_out = time.perf_counter() - t0
    return {"hands": st["new"], "import_s": round(t_import, 3),
            "import_hands_per_s": round(st["new"] / t_import, 1),
            # this process's CPU (not the database server's): what the machine's
            # load does not change
            "import_hands_per_cpu_s": round(st["new"] / c_import, 1),
            "standings_s": round(t_stand, 3), "standings_cpu_s": round(c_stand, 3),
            "load_average": round(os.getloadavg()[0], 1), "standings_html_csv_s": round(t_out, 3),
            "draws_s": round(t_draw, 3), "players": len(rows), "matches": len(ms)}


def _pull_rate(ar, logs, n):
    """Hands/s of Archive.add_log, a transaction per hand (`logs pull`)."""
    files = []
    for tid in sorted(os.listdir(logs)):
        d = os.path.join(logs, tid)
        for name in sorted(os.listdir(d)):
            if name.endswith(".log") and len(files) < n:
                data = open(os.path.join(d, name), "rb").read()
                files.append((tid + "ff", int(name[1:-4]), logfmt.parse(data).head, data))
    t0 = time.perf_counter()
    for tid, lid, head, data in files:
        ar.add_log(tid, lid, head, data, "valid", None)
    dt = time.perf_counter() - t0
    return round(len(files) / dt, 1) if dt else None


def _run(backend, work, path, logs, size, quick):
    if backend == "sqlite":
        db = os.path.join(work, "bench.sqlite")
        if os.path.exists(db):
            os.remove(db)
        ar = archive.open_archive(db)
        out = _play_event(ar, path, logs, *size)
        out["pull_hands_per_s"] = _pull_rate(ar, logs, 64 if quick else PULL_SAMPLE)
        ar.close()
        return out
    why = pgtemp.available()
    if why:
        return {"skipped": why}
    with pgtemp.PgTemp(fsync=True) as pg:
        ar = archive.open_archive(pg.create_db("bench"))
        out = _play_event(ar, path, logs, *size)
        out["pull_hands_per_s"] = _pull_rate(ar, logs, 64 if quick else PULL_SAMPLE)
        ar.close()
        return out


def section(quick):
    size = QUICK if quick else FULL
    work = os.path.join(ROOT, "build", "event-bench" + ("-quick" if quick else ""))
    t0 = time.perf_counter()
    path = event_gen.generate(work, *size)
    gen_s = time.perf_counter() - t0
    logs = os.path.join(work, "logs")
    res = {"tables": size[0], "rounds": size[1], "hands_per_match": size[2],
           "generate_s": round(gen_s, 1), "sqlite": _run("sqlite", work, path, logs, size, quick)}
    res["postgresql"] = ({"skipped": "quick"} if quick
                         else _run("pg", work, path, logs, size, quick))
    res["targets"] = {}
    for b in ("sqlite", "postgresql"):
        r = res[b]
        if "skipped" in r:
            continue
        res["targets"]["%s standings_s" % b] = {"value": r["standings_s"], "limit": 2.0,
                                                "kind": "max", "pass": r["standings_s"] < 2.0}
        res["targets"]["%s import_hands_per_s" % b] = {
            "value": r["import_hands_per_s"], "limit": 500, "kind": "min",
            "pass": r["import_hands_per_s"] >= 500}
    if quick:
        shutil.rmtree(work, ignore_errors=True)
    return res


def table(r):
    lines = ["event benchmark: %d tables x %d rounds x %d hands (generated in %.1f s, or kept)"
             % (r["tables"], r["rounds"], r["hands_per_match"], r["generate_s"]), "",
             "%-12s %8s %11s %11s %10s %12s %9s %8s" % (
                 "archive", "hands", "import h/s", "h/CPU s", "pull h/s", "standings s", "CPU s",
                 "draws s")]
    for b in ("sqlite", "postgresql"):
        x = r[b]
        if "skipped" in x:
            lines.append("%-12s skipped: %s" % (b, x["skipped"]))
            continue
        lines.append("%-12s %8d %11.0f %11.0f %10.0f %12.3f %9.3f %8.3f" % (
            b, x["hands"], x["import_hands_per_s"], x["import_hands_per_cpu_s"],
            x["pull_hands_per_s"] or 0, x["standings_s"], x["standings_cpu_s"], x["draws_s"]))
    lines.append("(wall times on a machine with load average %s; h/CPU s: this process's "
                 "CPU, not the server's)" % r["sqlite"].get("load_average", "?"))
    lines += ["", "targets (reported, never fail the build):"]
    for name, t in r["targets"].items():
        op = ">=" if t["kind"] == "min" else "<"
        lines.append("  %-4s %-30s %10s %s %s" % ("PASS" if t["pass"] else "FAIL", name,
                                                  t["value"], op, t["limit"]))
    return "\n".join(lines)


if __name__ == "__main__":
    import json

    quick = "--quick" in sys.argv
    res = section(quick)
    print(table(res))
    print(json.dumps(res, indent=1))

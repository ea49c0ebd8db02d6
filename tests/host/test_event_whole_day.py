"""A whole event day in one test (issue 41, "Done when"): 16 players, 4
rounds, from `event create` to the final PDFs, on PostgreSQL, with the hands
played by four tables (the firmware on the MicroPython unix port behind real
pseudo-terminals, bots at the seats: tools/hostlink_peer.py) and pulled by
two laptops at once (two `mjtable logs pull` processes, two tables each).
On the way: a club with more players than tables (a club pair the draw must
say it cannot avoid), a table whose hardware fails (its result entered by
hand), a substitute and a drop (a table short a player: a stand-in). At the
end the standings must equal a recomputation from the archived logs, read
and checked here with the test's own reader (tests/host/forger.py), and no
hand may be lost or archived twice."""

import hashlib
import hmac
import json
import os
import re
import struct
import subprocess
import sys
import time

import forger
from mjcall import call
from test_event_day import cmap_chars
from test_hostcmds_e2e import Table

KEY = bytes(range(41, 73))
TABLES = 4
HANDS = 2
CLUB = {i: "成都一队" for i in (1, 5, 9, 13, 16)}  # five of one club for four tables
NAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨"


def _event_file(d):
    rules = d / "tfmj2.toml"  # two-hand matches: the tables' bots play a match's length
    rules.write_text('base = "tfmj-2024"\nname = "tfmj-2"\nhands = 2\n')
    text = ('[event]\nid = "day16"\nname = "2026 成都秋季公开赛"\ndates = ["2026-10-17"]\n'
            'ruleset = "%s"\nhands_per_match = 2\nminutes_per_match = 50\nrounds = 4\n'
            'seed = 20261017\nplacement_points = [4, 2, 1, 0]\n'
            'tiebreaks = ["raw_points", "head_to_head", "firsts"]\n' % rules)
    for i in range(1, 17):
        text += ('[[players]]\nid = "P%02d"\nname = "%s选手"\nlatin = "Player %d"\nclub = "%s"\n'
                 % (i, NAMES[i - 1], i, CLUB.get(i, "俱乐部%d" % i)))
    path = d / "day16.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _info(capsys, port):
    code, out, err = call(capsys, "info", "--port", port, "--json")
    assert code == 0, err
    return json.loads(out)


def _pulls(url, ports):
    """Two laptops, each pulling its two tables, at the same time."""
    script = ("import sys\nfrom mjtable import cli\n"
              "sys.exit(max(cli.main(['logs', 'pull', '--port', p, '--archive', sys.argv[1],"
              " '--quiet']) for p in sys.argv[2:]))")
    procs = [subprocess.Popen([sys.executable, "-c", script, url] + ports[i::2],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "Traceback" not in out + err, (out, err)


def _play(capsys, url, ports, rnd, skip=()):
    """Start round rnd's match on each table (not those in skip: broken) and
    wait until each has played its two hands."""
    a = ["--archive", url, "--event", "day16"]
    before = {t: int(_info(capsys, ports[t - 1])["logs"]) for t in range(1, TABLES + 1)}
    for t in range(1, TABLES + 1):
        if t in skip:
            continue
        code, out, err = call(capsys, "match", "start", "--round", str(rnd), "--table", str(t),
                              "--port", ports[t - 1], *a)
        assert code == 0, out + err
    deadline = time.monotonic() + 240
    for t in range(1, TABLES + 1):
        if t in skip:
            continue
        while True:
            info = _info(capsys, ports[t - 1])
            if int(info["logs"]) >= before[t] + HANDS and str(info["hand"]) == "-1":
                break
            assert time.monotonic() < deadline, "table %d played no %d hands: %s" % (t, HANDS,
                                                                                    info)
            time.sleep(0.3)


def _recompute(url):
    """The standings from the archived logs alone: each match's hands (its
    table's logs after the match began, the first HANDS of them), their seals
    checked and their end-of-hand points read here; the results entered by
    hand; placings and placement points 4-2-1-0, shared when tied.
    {player: (placement points, raw points)}."""
    import psycopg

    with psycopg.connect(url) as c:
        logs = {}
        for tid, lid, data in c.execute("SELECT table_id, log_id, data FROM logs"):
            assert (tid, lid) not in logs  # no hand archived twice
            logs[(tid, lid)] = bytes(data)
        matches = c.execute("SELECT round, table_no, table_id, after_log FROM ev_matches"
                            " ORDER BY round").fetchall()
        seats = {}
        for rnd, t, s, pid in c.execute("SELECT round, table_no, seat, pid FROM ev_seats"):
            seats.setdefault((rnd, t), {})[s] = pid
        paper = {(r, t): [int(v) for v in p.split(",")] for r, t, p in c.execute(
            "SELECT round, table_no, points FROM ev_paper ORDER BY id")}
    for tid in {k[0] for k in logs}:  # every table's logs 1..n, none lost
        ids = sorted(lid for t, lid in logs if t == tid)
        assert ids == list(range(1, len(ids) + 1)), (tid, ids)
    result = {}
    for rnd, t, tid, after in matches:
        ends = [a for r, tt, ti, a in matches if ti == tid and a > after]
        upto = min(ends, default=1 << 30)
        lids = sorted(lid for ti, lid in logs if ti == tid and after < lid <= upto)[:HANDS]
        assert len(lids) == HANDS
        pts = [0, 0, 0, 0]
        for lid in lids:
            data = logs[(tid, lid)]
            _magic, _lid, recs = forger.split(data)
            mac = hmac.new(KEY, b"MJSEAL1" + bytes.fromhex(tid) + struct.pack("<I", lid)
                           + forger.head(forger.write(lid, forger.unsealed(recs))),
                           hashlib.sha256).digest()
            assert recs[-1] == (forger.SEAL, mac) and forger.write(lid, recs) == data
            pts = [a + b for a, b in zip(pts, forger.points(recs), strict=True)]
        result[(rnd, t)] = pts
    result.update(paper)
    out = {}
    for (rnd, t), pts in result.items():
        order = sorted(range(4), key=lambda s: -pts[s])
        for s in range(4):
            tied = [k for k in range(4) if pts[order[k]] == pts[s]]
            share = sum([4, 2, 1, 0][k] for k in tied) / len(tied)
            pid = seats[(rnd, t)][s]
            if pid.startswith("~"):
                continue
            pp, raw = out.get(pid, (0.0, 0))
            out[pid] = (pp + share, raw + pts[s])
    return out


def test_a_whole_event_day_on_postgresql(env, capsys, pg):
    url = pg.create_db("whole_day_%d" % os.getpid())
    path = _event_file(env)
    tables = []
    try:
        for t in range(1, TABLES + 1):
            d = env / ("table%d" % t)
            d.mkdir()
            tables.append(Table(d, hands=0, key=KEY, extra=("--id", "TBLA%04d" % t,
                                                            "--pace", "1")))
        ports = [t.path for t in tables]
        a = ["--archive", url, "--event", "day16"]
        code, out, err = call(capsys, "event", "create", path, "--archive", url)
        assert code == 0 and "16 players at 4 tables, 4 rounds" in out, out + err
        # round 1: five of one club at four tables, and the draw says so
        code, out, err = call(capsys, "event", "draw", "--round", "1", *a)
        assert code == 0 and "1 club pair(s) at one table, the fewest there can be" in out, out
        _play(capsys, url, ports, 1)
        _pulls(url, ports)
        # round 2: table 3's hardware fails before its match; the referees keep it on paper
        assert call(capsys, "event", "draw", "--round", "2", *a)[0] == 0
        _play(capsys, url, ports, 2, skip=(3,))
        _pulls(url, ports)
        code, out, err = call(capsys, "event", "result", "--round", "2", "--table", "3",
                              "--points", "12,-4,-7,-1", "--reason", "读卡器坏了: 纸上计分",
                              "--by", "李裁判", *a)
        assert code == 0, err
        # before round 3: a substitute; before round 4: a drop (a table short a player)
        code, out, err = call(capsys, "event", "player", "sub", "--id", "S01", "--for", "P05",
                              "--name", "替补甲", "--latin", "Ti Bu", "--reason", "P05 ill",
                              "--by", "王裁判", *a)
        assert code == 0 and "from round 3" in out, err
        assert call(capsys, "event", "draw", "--round", "3", *a)[0] == 0
        _play(capsys, url, ports, 3)
        _pulls(url, ports)
        code, out, err = call(capsys, "event", "player", "drop", "--id", "P09", "--reason",
                              "went home", "--by", "王裁判", *a)
        assert code == 0 and "from round 4" in out, err
        code, out, err = call(capsys, "event", "draw", "--round", "4", *a)
        assert code == 0 and "short a player" in out, out + err
        _play(capsys, url, ports, 4)
        _pulls(url, ports)
    finally:
        for t in tables:
            t.close()
    # the final sheets
    pdfs = {k: env / ("%s.pdf" % k) for k in ("standings", "seating", "sheets")}
    assert call(capsys, "event", "standings", "--pdf", str(pdfs["standings"]), *a)[0] == 0
    assert call(capsys, "event", "seating", "--round", "4", "--pdf", str(pdfs["seating"]),
                *a)[0] == 0
    assert call(capsys, "event", "sheet", "--round", "2", "--pdf", str(pdfs["sheets"]), *a)[0] == 0
    code, out, err = call(capsys, "event", "standings", "--json", "-", *a)
    assert code == 0, err
    d = json.loads(out)

    def names(rnd=None):  # the 汉字 of the players of a round (every player: None)
        return set("".join(p["name"] for p in d["standings"]
                           if rnd is None or str(rnd) in p["rounds"]))
    for k, want in (("standings", names()), ("seating", names(4) | set("替补")),
                    ("sheets", names(2))):
        raw = pdfs[k].read_bytes()
        assert raw.startswith(b"%PDF-"), k
        assert want <= cmap_chars(raw), (k, want - cmap_chars(raw))  # every 汉字 drawn
    # the standings are the logs' (and the paper's), marked where they are not the logs'
    want = _recompute(url)
    got = {p["id"]: (p["placement_points"], p["raw_points"]) for p in d["standings"]}
    assert {k: v for k, v in got.items() if v != (0, 0) or k in want} == want
    assert set(got) == {"P%02d" % i for i in range(1, 17)} | {"S01"}
    assert [p["id"] for p in d["standings"]] == [
        p["id"] for p in sorted(d["standings"], key=lambda p: (-p["placement_points"],
                                                               -p["raw_points"]))] or \
        any(p["decided_by"] in ("head_to_head", "firsts", "player id") for p in d["standings"])
    marked = [p["id"] for p in d["standings"] if any(m.startswith("entered by hand: round 2 "
                                                                 "table 3") for m in p["marks"])]
    assert len(marked) == 4
    status = {p["id"]: p["status"] for p in d["standings"]}
    assert status["S01"] == "substitute for P05 from round 3"
    assert status["P05"] == "dropped from round 3" and status["P09"] == "dropped from round 4"
    assert not any(p["rounds"].get("4") for p in d["standings"] if p["id"] == "P09")
    text = call(capsys, "event", "audit", *a)[1]
    assert re.search(r"2 change\(s\) of people, 1 result\(s\) entered by hand", text)

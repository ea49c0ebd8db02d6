"""The cheating player against the record (issue 41, item 6): logs edited,
swapped, replayed, dropped, spliced, re-sealed with a guessed key and
truncated at every record, each put forward by every way into an archive:
`logs pull` from a table whose flash the cheat edited (the firmware on the
MicroPython unix port serving the planted files, tools/hostlink_peer.py
--plant, behind a real pty), `event import` of a folder, and `event sync`
of a laptop's SQLite file the cheat edited (its rows' bytes, and 'valid' in
their seal column). The forgeries are written by tests/host/forger.py from
docs/storage.md, not by the code under test. Each is refused (the count per
way is docs/storage.md's table, which this test reads back), and the hand
dropped from the end of a match is reported as a GAP by every way."""

import hashlib
import os
import re
import shutil
import sqlite3

import event_gen
import forger
import pytest
from mjcall import call
from mjtable import archive
from mjtable.event import importer
from test_hostcmds_e2e import MICROPYTHON, PEER

KEY = event_gen.KEY
T1, T2 = event_gen.table_id(1), event_gen.table_id(2)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "storage.md")
WAYS = ("logs pull", "event import", "event sync")
GAP8 = "GAP: log 8, which log 9 follows"
TRUNC = 9  # the log truncated at every record, under new ids 101, 102, ...
IN_PLACE = 7  # the log truncated at every record under its own id (import, sync)


def _folder(logs, tid):
    d = os.path.join(logs, tid.hex())
    return {int(n[1:-4]): open(os.path.join(d, n), "rb").read()
            for n in os.listdir(d) if n.endswith(".log")}


def cases(g1, g2):
    """[(name, {log id: bytes, or None: the file deleted})]: what each cheat
    leaves in table 1's log folder (table 2's stays as the table wrote it)."""
    def rec(lid, g=g1):
        return forger.split(g[lid])[2]

    def flip(r):
        return forger.with_points(r, forger.flip_win(forger.points(r)))

    naive = bytearray(g1[4])
    end = [b for b in forger.boundaries(g1[4])[:-1] if g1[4][b + 1] == forger.END][0]
    naive[end + 6] ^= 0x10  # East's points, as a hex editor changes them
    half = len(rec(13)) // 2
    guesses = [hashlib.sha256(T1).digest(), T1 * 4, bytes(32), T1.hex().encode()[:32]]
    n = len(rec(TRUNC))
    b = forger.boundaries(g1[1])
    return [
        ("points edited, CRCs and chain computed again, seal dropped",
         {2: forger.write(2, flip(forger.unsealed(rec(2))))}),
        ("points edited, chain computed again, the old seal kept",
         {3: forger.write(3, flip(rec(3)))}),
        ("points edited in place (a hex editor)", {4: bytes(naive)}),
        ("two hands swapped (the files)", {5: g1[6], 6: g1[5]}),
        ("two hands swapped (ids rewritten, chains computed again, seals kept)",
         {10: forger.write(10, rec(11)), 11: forger.write(11, rec(10))}),
        ("an old hand replayed under a new id, its seal kept", {17: forger.write(17, rec(1))}),
        ("an old hand replayed under a new id, unsealed",
         {18: forger.write(18, forger.unsealed(rec(1)))}),
        ("the last hand of a match dropped", {8: None}),
        ("another table's log spliced in (its seal kept)", {12: g2[12]}),
        ("two tables' records spliced into one log",
         {13: forger.write(13, forger.unsealed(rec(13)[:half] + rec(13, g2)[half:]))}),
        ("re-sealed with a key guessed from the table id",
         {lid: forger.sealed(lid, flip(rec(src)), k, T1)
          for lid, src, k in zip((14, 15, 16, 19), (14, 15, 16, 2), guesses, strict=True)}),
        ("truncated at every record (a new id each, chain computed again)",
         {100 + k: forger.write(100 + k, rec(TRUNC)[:k]) for k in range(n)}),
        ("truncated inside a record", {1: g1[1][:b[len(b) // 2] + 7]}),
    ]


def in_place(g1):
    """Log IN_PLACE cut at every record boundary and inside every record,
    under its own id (import and sync; a table holds one file per id)."""
    data = g1[IN_PLACE]
    b = forger.boundaries(data)
    out = [data[:x] for x in b[:-1]] + [data[:x + 7] for x in b[:-1] if x + 7 < len(data)]
    return [d for d in out if d != data]


IN_PLACE_CASE = "truncated at every record and inside each, its own id"


def _refusals(lines, name):
    """Log ids of table `name` refused in a command's output lines."""
    out = []
    for ln in lines:
        m = re.search(r"%s:(\d+): " % name, ln)
        if m and ("REFUSED" in ln or ln.startswith("refused: ")):
            out.append(int(m.group(1)))
    return out


def _count(cs, refused):
    got = {}
    for case, files in cs:
        ids = [lid for lid, d in files.items() if d is not None]
        got[case] = sum(1 for lid in refused if lid in ids)
    return got


@pytest.fixture(scope="module")
def tables(generated):
    _path, logs = generated
    g1, g2 = _folder(logs, T1), _folder(logs, T2)
    cs = cases(g1, g2)
    return g1, g2, cs


def _cheated_folder(dst, g1, cs):
    os.makedirs(dst)
    files = dict(g1)
    for _case, change in cs:
        for lid, data in change.items():
            if data is None:
                files.pop(lid, None)
            else:
                files[lid] = data
    for lid, data in files.items():
        with open(os.path.join(dst, "h%d.log" % lid), "wb") as f:
            f.write(data)
    return dst


def test_every_way_in_refuses_every_cheat(env, capsys, generated, tables):
    _path, logs = generated
    g1, g2, cs = tables
    counts = {}
    gaps = {}
    # event import: table 1's folder as the cheat left it, table 2's as written
    d = env / "import"
    _cheated_folder(str(d / T1.hex()), g1, cs)
    shutil.copytree(os.path.join(logs, T2.hex()), d / T2.hex())
    code, out, err = call(capsys, "event", "import", str(d), "--archive", str(env / "imp.sqlite"))
    assert code == 1, out + err
    counts["event import"] = _count(cs, _refusals(err.splitlines(), "EV000001"))
    gaps["event import"] = out
    ar = archive.open_archive(str(env / "imp.sqlite"))
    cut = 0
    for data in in_place(g1):
        one = env / "cut" / T1.hex()
        shutil.rmtree(env / "cut", ignore_errors=True)
        os.makedirs(one)
        (one / ("h%d.log" % IN_PLACE)).write_bytes(data)
        st = importer.import_dirs(ar, [str(one)], KEY)
        cut += len(st["bad"]) == 1 and st["new"] == 0
    ar.close()
    counts["event import"][IN_PLACE_CASE] = cut
    # event sync: a laptop archive with every hand as written, then edited
    lite = str(env / "laptop.sqlite")
    code, out, err = call(capsys, "event", "import", logs, "--archive", lite)
    assert code == 0, out + err
    _cheat_sqlite(lite, g1, cs)
    code, out, err = call(capsys, "event", "sync", lite, "--archive", str(env / "target.sqlite"))
    assert code == 1, out + err
    refused = _refusals(out.splitlines(), "EV000001")
    counts["event sync"] = _count(cs, refused)
    counts["event sync"][IN_PLACE_CASE] = refused.count(IN_PLACE)
    gaps["event sync"] = out
    # logs pull: the table's flash as the cheat left it
    counts["logs pull"], gaps["logs pull"] = _pull(env, capsys, g1, cs)
    counts["logs pull"][IN_PLACE_CASE] = None  # one file per id on a table: the case above
    want = {case: sum(d is not None for d in files.values()) for case, files in cs}
    want[IN_PLACE_CASE] = len(in_place(g1))
    for way in WAYS:
        for case, n in want.items():
            if counts[way][case] is not None:
                assert counts[way][case] == n, (way, case, counts[way][case], n)
        assert GAP8 in gaps[way], (way, gaps[way])
    table = _table(counts, want)
    assert _doc_table() == table, "docs/storage.md's tamper table is not this run's:\n" + \
        "\n".join("| %s |" % " | ".join(r) for r in table)


def _cheat_sqlite(path, g1, cs):
    """The cheat's edits of a laptop archive: each forged log's bytes in the
    row of its id (or a new row), 'valid' in the seal column; the dropped hand's
    row deleted; log IN_PLACE's cuts as extra rows."""
    db = sqlite3.connect(path)
    tid = T1.hex()
    for _case, files in cs:
        for lid, data in files.items():
            if data is None:
                db.execute("DELETE FROM logs WHERE table_id=? AND log_id=?", (tid, lid))
                continue
            head = hashlib.sha256(data).hexdigest()[:16]
            if db.execute("UPDATE logs SET data=?, head=?, size=?, seal='valid' WHERE"
                          " table_id=? AND log_id=?", (data, head, len(data), tid, lid)).rowcount:
                continue
            db.execute("INSERT INTO logs (table_id, log_id, head, size, data, seal, rules_crc,"
                       " pulled_at) VALUES (?,?,?,?,?,'valid',NULL,0)",
                       (tid, lid, head, len(data), data))
    for data in in_place(g1):
        db.execute("INSERT INTO logs (table_id, log_id, head, size, data, seal, rules_crc,"
                   " pulled_at) VALUES (?,?,?,?,?,'valid',NULL,0)",
                   (tid, IN_PLACE, hashlib.sha256(data).hexdigest()[:16], len(data), data))
    db.commit()
    db.close()


def _pull(env, capsys, g1, cs):
    import subprocess
    import tty

    flash = _cheated_folder(str(env / "flash"), g1, cs)
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    proc = subprocess.Popen([MICROPYTHON, PEER, "--fd", str(master), "--flash",
                             str(env / "flash.img"), "--fresh", "--id", T1.decode(),
                             "--key", KEY.hex(), "--plant", flash],
                            pass_fds=(master,), stdout=subprocess.PIPE)
    os.close(master)
    try:
        assert proc.stdout.readline() == b"hostlink_peer: ready\n"
        code, out, err = call(capsys, "logs", "pull", "--port", os.ttyname(slave), "--archive",
                              str(env / "pulled.sqlite"), "--key", KEY.hex(), "--quiet",
                              "--timeout", "20")
        assert code == 1, out + err
        lines = out.splitlines()
        code, again, err = call(capsys, "logs", "list", "--port", os.ttyname(slave))
        kept = [int(x.split()[1]) for x in again.splitlines()[1:]]
    finally:
        proc.kill()
        proc.wait()
        os.close(slave)
    refused = _refusals(lines, "EV000001")
    odd = set(refused) ^ set(kept)
    assert not odd, [ln for ln in lines if any("log %d:" % i in ln for i in odd)]
    assert sorted(refused) == kept  # every refused log is still on the table
    return _count(cs, refused), out


def _table(counts, want) -> list:
    rows = []
    for case in list(want):
        rows.append([case] + ["-" if counts[w][case] is None else
                              "%d of %d refused" % (counts[w][case], want[case])
                              if want[case] else "GAP reported" for w in WAYS])
    return rows


def _doc_table() -> list:
    """The rows of docs/storage.md's tamper table."""
    text = open(DOC, encoding="utf-8").read()
    part = text.split("<!-- tamper table: tests/host/test_tamper.py -->", 1)[1]
    rows = []
    for line in part.splitlines()[3:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows

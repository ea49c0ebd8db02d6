"""Hand-log files copied off tables' flash into the archive (`mjtable event
import`): a table whose link is dead, or a generated event (tools/event_gen.py).

Layout: DIR/TABLE_ID/h<id>.log (TABLE_ID: the table's 8-byte id in hex, as
`mjtable info` shows it), or DIR itself named so. Each file gets the checks
of `logs pull` (every record's CRC, the hash chain, the header's log id, the
seal's MAC when the key is given) and is archived as a pull would archive
it, idempotent on (table, log, chain head); a file failing a check is
reported and not archived. One transaction per table folder: an import cut
short leaves whole folders or nothing of one.
"""

from __future__ import annotations

import os
import re
import time

from mjtable import BadInput
from mjtable.event import store
from mjtable.logs import logfmt
from mjtable.tableops.logs import rules_crc

_TID = re.compile(r"^[0-9a-f]{16}$")
_LOG = re.compile(r"^h(\d+)\.log$")


def _tables(d: str) -> list:
    """[(table id hex, folder)] under d (or d itself)."""
    if not os.path.isdir(d):
        raise BadInput("%s: no such folder" % d)
    name = os.path.basename(os.path.normpath(d)).lower()
    if _TID.match(name):
        return [(name, d)]
    out = [(n.lower(), os.path.join(d, n)) for n in sorted(os.listdir(d))
           if _TID.match(n.lower()) and os.path.isdir(os.path.join(d, n))]
    if not out:
        raise BadInput("%s: no table folders (named by the table id, 16 hex digits)" % d)
    return out


def read_table(tid: str, folder: str, key) -> tuple:
    """([(table, log id, head hex, size, data, seal, rules crc, pulled_at)], [refusals])."""
    rows: list = []
    bad: list = []
    now = int(time.time())
    names = [(int(m.group(1)), n) for n in os.listdir(folder) for m in [_LOG.match(n)] if m]
    for lid, n in sorted(names):
        path = os.path.join(folder, n)
        with open(path, "rb") as f:
            data = f.read()
        try:
            log = logfmt.parse(data)
        except logfmt.LogDamaged as e:
            bad.append("%s: damaged: %s" % (path, e))
            continue
        if log.log_id != lid:
            bad.append("%s: its header says log %d" % (path, log.log_id))
            continue
        seal = logfmt.check_seal(log, bytes.fromhex(tid), key)
        if seal == "FORGED":
            bad.append("%s: seal MAC wrong (not this table's key, or altered)" % path)
            continue
        rows.append((tid, log.log_id, log.head.hex(), len(data), data, seal, rules_crc(log),
                     now, store.hand_facts(log)))
    return rows, bad


def put_logs(ar, rows) -> int:
    """Archive rows (read_table's) and index them, in one transaction;
    returns how many logs were new."""
    if not rows:
        return 0
    with ar.db:
        cur = ar.db.executemany("INSERT OR IGNORE INTO logs (table_id, log_id, head, size, data,"
                                " seal, rules_crc, pulled_at) VALUES (?,?,?,?,?,?,?,?)",
                                [r[:8] for r in rows])
        new = cur.rowcount
        ids = {(lid, head): row for row, lid, head in ar.db.execute(
            "SELECT id, log_id, head FROM logs WHERE table_id=?", (rows[0][0],))}
        index = []
        for tid, lid, head, size, _data, seal, _crc, _at, (pts, t0, dur, na) in rows:
            index.append((ids[(lid, head)], tid, lid, size, pts, t0, dur, seal, na))
        store.put_index(ar, index, tx=False)  # parsed once: the index needs no second read
    return new


def import_dirs(ar, dirs, key) -> dict:
    st = {"files": 0, "new": 0, "old": 0, "bad": [], "indexed": 0}
    for d in dirs:
        for tid, folder in _tables(d):
            rows, bad = read_table(tid, folder, key)
            st["bad"] += bad
            st["files"] += len(rows) + len(bad)
            new = put_logs(ar, rows)
            st["new"] += new
            st["old"] += len(rows) - new
    st["indexed"] = store.index(ar)
    return st

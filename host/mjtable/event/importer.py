"""Hand-log files copied off tables' flash into the archive (`mjtable event
import`): a table whose link is dead, or a generated event (tools/event_gen.py).

Layout: DIR/TABLE_ID/h<id>.log (TABLE_ID: the table's 8-byte id in hex, as
`mjtable info --json` shows it), or DIR itself named so. Each file is judged
by the policy every way into an archive keeps (mjtable.archive.admit: the
CRCs, the chain, the header's log id, the seal with the table key; unsealed
or unchecked only when accepted by name; the first copy of an id stands)
and archived as a pull would archive it. One transaction per table folder:
an import cut short leaves whole folders or nothing of one. Then it says
what the logs' chain shows missing, and which tables no event's match was
started on (their hands are in no standings).
"""

from __future__ import annotations

import os
import re

from mjtable import BadInput
from mjtable.archive import admit
from mjtable.event import store
from mjtable.logs import logfmt
from mjtable.tableops.logs import rules_crc

_TID = re.compile(r"^[0-9a-f]{16}$")
_LOG = re.compile(r"^h(\d+)\.log$")
WAY = "event import"


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


def read_table(folder: str) -> list:
    """[(log id, bytes, path)] of a table folder's log files, by id."""
    names = [(int(m.group(1)), n) for n in os.listdir(folder) for m in [_LOG.match(n)] if m]
    out = []
    for lid, n in sorted(names):
        path = os.path.join(folder, n)
        with open(path, "rb") as f:
            out.append((lid, f.read(), path))
    return out


def import_table(ar, tid: str, files, key, accept, st) -> None:
    """Judge and archive one table's files (read_table's), index what came
    in, and count it all in st (import_dirs')."""
    with ar.transaction():  # the logs and their index: one commit a folder
        vs = admit.admit_many(ar, tid, [(lid, data) for lid, data, _ in files], key, accept,
                              WAY, rules_crc=rules_crc)
        batch = []
        for v, (_, data, path) in zip(vs, files, strict=True):
            st["files"] += 1
            if v.refused:
                st["bad"].append((v, path))
            elif v.status == "same":
                st["old"] += 1
            else:
                st["new"] += 1
                st["taken"].append((tid, v.lid, v.log))
                pts, t0, dur, na = store.hand_facts(v.log)
                batch.append((v.row, tid, v.lid, len(data), pts, t0, dur, v.seal, na))
        st["indexed"] += store.put_index(ar, batch, tx=False)


def import_dirs(ar, dirs, key, accept=admit.NOBODY) -> dict:
    """Import every table folder under dirs. The tally: files, new, old (there
    already), bad [(Verdict, path)], indexed, chain problems, strays (tables
    no event's match was started on: {name: logs})."""
    st = {"files": 0, "new": 0, "old": 0, "bad": [], "indexed": 0, "taken": [], "chain": []}
    for d in dirs:
        for tid, folder in _tables(d):
            import_table(ar, tid, read_table(folder), key, accept, st)
    st["indexed"] += store.index(ar)  # anything an earlier run left unindexed
    after(ar, st)
    return st


def after(ar, st) -> None:
    """What the logs just archived (st["taken"]: (table, log id, parsed log))
    show: the chain's gaps (st["chain"]) and the tables in no event
    (st["strays"])."""
    by_table: dict = {}
    for tid, lid, log in st["taken"]:
        by_table.setdefault(tid, []).append((lid, log))
    for tid, taken in sorted(by_table.items()):
        st["chain"] += admit.chain_problems(ar, tid, None, sorted(taken, key=lambda t: t[0]))
    known = store.match_tables(ar)
    st["strays"] = {logfmt.table_name(t): len(v) for t, v in sorted(by_table.items())
                    if t not in known}

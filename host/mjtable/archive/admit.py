"""What an archive admits: one policy for every way a hand log gets in
(`logs pull` over the link, `event import` of files copied off a table,
`event sync` of another laptop's archive), so a cheat finds no easier door.

A log is judged by its bytes alone, whatever its carrier says of it (a
file's name, a row's seal column): every record's CRC and the hash chain
(logfmt.parse), the header's log id against the id it came under, and the
seal's MAC with the table key:
  valid      sealed with the table key: admitted
  FORGED     a seal that is not the key's MAC (another key, or altered): refused
  unsealed   no seal: a hand cut short, one played before the key, or an edit
  unchecked  a seal, but no key here to check it
Unsealed and unchecked logs are refused unless a referee accepts them by
name (Accept: which logs, who, why): kept beside the log (the archive's
`accepted` table), and every standing, sheet and export that counts such a
log marks it. A hand in play (`logs pull --all`) is archived as what it is
and counts nothing until its sealed copy, which it begins, takes its row.
The first copy of a (table, log id) stands: a copy with other bytes (neither
begins the other) is refused and reported, whatever its seal.
Each format 2 log names the log before it (chain_problems): one missing
from the table and from this archive is a GAP, said as what is known.
"""

from __future__ import annotations

from dataclasses import dataclass

from mjtable import BadInput
from mjtable.logs import logfmt

SEALS = {
    "unsealed": "unsealed (no seal: a hand cut short, one played before the table had its "
                "key, or an edited log)",
    "unchecked": "seal unchecked (no table key here: give --key, $MJTABLE_KEY or the key file)",
    "FORGED": "seal MAC WRONG (not this table's key, or altered after it was sealed)",
}


@dataclass
class Verdict:
    """What became of one log: status new | same | grown (archived, or already
    there) | in play (archived, counting nothing yet) | refused (why says why;
    acceptable: a referee may take it by name)."""

    tid: str
    lid: int
    status: str = ""
    seal: str = ""
    log: object = None  # logfmt.HandLogFile once parsed
    row: int = 0
    why: str = ""
    acceptable: bool = False
    by: str = ""  # the referee who took it by name

    @property
    def name(self) -> str:
        return "%s:%d" % (logfmt.table_name(self.tid), self.lid)

    @property
    def refused(self) -> bool:
        return self.status == "refused"

    @property
    def stands(self) -> bool:
        """Archived with a standing: its result counts (and it may be acknowledged)."""
        return not self.refused and self.status != "in play"


class Accept:
    """The logs a referee takes by name although unsealed or unchecked:
    specs "all", "LOG" (that id, any table) or "TABLE:LOG" (the table by its
    name, TBLA0001, or its hex id); `by` names the referee (required)."""

    def __init__(self, specs=(), by: str = "", reason: str = ""):
        self.specs = []
        for s in specs or ():
            self.specs += [p.strip() for p in s.split(",") if p.strip()]
        self.by = (by or "").strip()
        self.reason = (reason or "").strip()
        if self.specs and not self.by:
            raise BadInput("--accept needs --by NAME: the referee who takes these logs")
        self._all = "all" in self.specs
        self._ids: set = set()
        self._pairs: set = set()
        for s in self.specs:
            if s == "all":
                continue
            t, _, lid = s.rpartition(":")
            if not lid.isdigit() or len(lid) > 10:
                raise BadInput("--accept %s: expected all, LOG or TABLE:LOG" % s)
            if not t:
                self._ids.add(int(lid))
                continue
            tid = logfmt.table_hex(t)
            if tid is None:
                raise BadInput("--accept %s: %r is not a table name nor a 16-digit hex id"
                               % (s, t))
            self._pairs.add((tid, int(lid)))

    def covers(self, tid: str, lid: int) -> bool:
        return self._all or lid in self._ids or (tid, lid) in self._pairs

    def record(self, way: str):
        """(referee, reason, way) as the archive keeps it."""
        return (self.by, self.reason, way)


NOBODY = Accept()


def add_arguments(p) -> None:
    """--accept, --by, --reason on a command that brings logs into an archive."""
    p.add_argument("--accept", metavar="LOGS", action="append", default=[],
                   help="take these unsealed or unchecked logs although they cannot be "
                        "verified, once checked: all, LOG or TABLE:LOG (the table by name or "
                        "hex id), comma-separated or repeated; marked in every output")
    p.add_argument("--by", metavar="REFEREE", default="",
                   help="who takes the --accept'ed logs (required with --accept)")
    p.add_argument("--reason", default="", help="why they are taken (kept with them)")


def from_args(args) -> Accept:
    return Accept(getattr(args, "accept", ()), getattr(args, "by", ""),
                  getattr(args, "reason", ""))


def examine(tid: str, lid: int, data: bytes, key) -> Verdict:
    """The checks of one log's bytes that need no archive: a Verdict with
    the parsed log and its seal, refused if a check fails."""
    v = Verdict(tid, lid)
    try:
        v.log = logfmt.parse(data)
    except logfmt.LogDamaged as e:
        return _refuse(v, "DAMAGED: %s" % e)
    if v.log.log_id != lid:
        return _refuse(v, "DAMAGED: its header says log %d" % v.log.log_id)
    v.seal = logfmt.check_seal(v.log, bytes.fromhex(tid), key)
    if v.seal == "FORGED":
        return _refuse(v, SEALS["FORGED"])
    return v


def judge(v: Verdict, accept: Accept, in_play: bool = False) -> Verdict:
    """The policy on an examined log: a valid seal stands; a hand in play is
    archived as such; unsealed or unchecked is refused unless taken by name."""
    if v.refused or v.seal == "valid":
        return v
    if in_play and v.seal == "unsealed":
        v.status = "in play"
        return v
    if accept.covers(v.tid, v.lid):
        v.by = accept.by
        return v
    v.acceptable = True
    return _refuse(v, SEALS[v.seal])


def _refuse(v: Verdict, why: str) -> Verdict:
    v.status = "refused"
    v.why = why
    return v


def admit(ar, tid: str, lid: int, data: bytes, key, accept: Accept, way: str,
          in_play: bool = False, rules_crc=None) -> Verdict:
    """Judge one log and archive it if it is admitted (archive.add_log, in
    its own transaction: PostgreSQL's lock makes two laptops agree)."""
    (v,) = admit_many(ar, tid, [(lid, data)], key, accept, way, in_play, rules_crc)
    return v


def admit_many(ar, tid: str, items, key, accept: Accept, way: str, in_play: bool = False,
               rules_crc=None) -> list:
    """admit for [(log id, bytes)] of one table, in one transaction: a Verdict
    each, in order. rules_crc(log) -> the ruleset CRC text of a parsed log."""
    vs = [judge(examine(tid, lid, data, key), accept, in_play) for lid, data in items]
    place(ar, tid, list(zip(vs, [d for _, d in items], strict=True)), accept, way, rules_crc)
    return vs


def place(ar, tid: str, judged, accept: Accept, way: str, rules_crc=None) -> None:
    """Archive the admitted of [(Verdict, bytes)] (judged) in one transaction
    (archive.add_logs); each Verdict gets its row and status, or is refused
    when another copy of its id stands."""
    rows = []
    for v, data in judged:
        if not v.refused:
            acc = accept.record(way) if v.by else None
            rows.append((v, (v.lid, v.log.head, bytes(data), v.seal,
                             rules_crc(v.log) if rules_crc else None, acc)))
    if not rows:
        return
    placed = ar.add_logs(tid, [r for _, r in rows])
    for (v, _), (row, status) in zip(rows, placed, strict=True):
        v.row = row
        if status == "other":
            _refuse(v, "another log %d of table %s is archived (hand %d): the first copy "
                    "stands; this one has other bytes (the table's flash re-formatted, or "
                    "the log replaced)" % (v.lid, logfmt.table_name(tid), row))
        elif v.status != "in play":
            v.status = status


def refusal(v: Verdict, again: str) -> str:
    """One refused log as a line: which, why and, when a referee may take it,
    the command that does (again: the command line to repeat)."""
    hint = ("; once checked, a referee takes it by name: `%s --accept %s --by REFEREE`"
            % (again, v.name) if v.acceptable else "")
    return "%s: %s%s" % (v.name, v.why, hint)


def chain_problems(ar, tid: str, on_table: set, taken) -> list:
    """What the link records of the logs just archived say is missing: each
    format 2 log names the log its table made before it (id, final head),
    which must be on the table still or in this archive, whole. taken:
    [(log id, parsed log)]; on_table: the ids on the table (None: the logs
    came from files or another archive, not from a table)."""
    out = []
    name = logfmt.table_name(tid)
    heads = ar.heads(tid, [f[0] for f in (log.follows() for _, log in taken) if f])
    for lid, log in taken:
        f = log.follows()
        if f is None or f[0] == 0:  # a format 1 log; the table's first
            continue
        pid, head = f
        if pid >= lid:
            out.append("table %s log %d follows log %d: the table's ids went back (flash "
                       "re-formatted?)" % (name, lid, pid))
        elif pid in (on_table or ()) or head.hex() in heads.get(pid, ()):
            continue
        elif pid in heads:
            out.append("table %s log %d follows a log %d that is not the one in this archive "
                       "(that copy was pulled while its hand was in play and the log is gone, "
                       "or the id was used twice)" % (name, lid, pid))
        else:
            out.append(gap_text(ar.path, name, pid, lid, on_table is not None))
    return out


def gap_text(path: str, name: str, pid: int, lid: int, table: bool) -> str:
    """A gap, as what is known: the log is not in *this* archive (another
    laptop's may hold it) and, when pulling, not on the table."""
    where = "neither on the table nor in this archive" if table else "not in this archive"
    return ("GAP: log %d, which log %d follows, is %s (%s): if another laptop pulled it, "
            "bring that archive in (`mjtable event sync OTHER.sqlite --archive %s`) or look in "
            "it (`mjtable logs list --archived --archive OTHER`); if no archive has it, it was "
            "deleted before any host took it (table %s)" % (pid, lid, where, path, path, name))

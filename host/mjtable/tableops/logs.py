"""Hand logs from a table into an archive, over the link.

A pull reads each log in pipelined chunks, keeps the bytes of a cut pull in
the archive and resumes from them, checks the log's CRC (the link's
whole-object CRC), then judges it by the archive's policy (archive.admit:
every record's CRC, the hash chain, the seal's MAC with the table key,
unsealed only by a referee's name, the first copy of an id standing); only
then is it archived (idempotent) and acknowledged, which lets the table
delete it. A log refused is reported and kept on the table. The hand in
play (INFO `hand`) is left for a later pull unless opts.all, which reads it
as it grows (pull_growing: never a cut) and archives it as in play, with no
result; the newest log is read so too. A whole log takes the row of the
copy pulled in play. Each log's link record (format 2) names the log before
it, which must be on the table or in the archive: else a GAP.
"""

from __future__ import annotations

import struct
import sys
import zlib
from collections import deque

from mjtable import BadInput, LinkTrouble
from mjtable.archive import admit
from mjtable.link import client as L
from mjtable.link import protocol as P
from mjtable.logs import logfmt
from mjtable.tableops import rules

SAVE_EVERY = 16  # chunks between saves of a pull in progress
MASK = 0x5D  # the table serves log files whitened: each byte XOR MASK (table/whiten.py)
_UNWHITEN = bytes(b ^ MASK for b in range(256))


def unwhiten(data: bytes) -> bytes:
    """The log file from the bytes the table served."""
    return bytes(data).translate(_UNWHITEN)


def fetch_log(link: L.Link, lid: int) -> bytes:
    """One log file, whole, without the archive's resume (tests, tools)."""
    return unwhiten(link.get_object(P.OBJ_LOG, lid))


def fetch_growing(link: L.Link, lid: int) -> bytes:
    """One log file that may still grow (the hand in play): as it stood at
    the last reply, never a cut (pull_growing)."""
    return unwhiten(pull_growing(link, lid))


def table_logs(link: L.Link) -> list:
    """[(log id, size)] of the logs on the table, ascending."""
    out: list = []
    start = 0
    while True:
        data = link.request(P.CMD_LOGS, struct.pack("<I", start))
        n, more = struct.unpack_from("<HB", data)
        for i in range(n):
            out.append(struct.unpack_from("<II", data, 3 + 8 * i))
        if not more or not n:
            return out
        start = out[-1][0] + 1


def pull_object(link: L.Link, kind: int, idx: int, start: bytes = b"", progress=None,
                save=None, window: int = 8) -> bytes:
    """Read an object like Link.get_object, but hand the bytes read so far to
    save(total, crc, data) every SAVE_EVERY chunks and when the pull is cut, so
    the next pull resumes from there (after checking the object is the same)."""
    chunk = link.max_payload - 9
    out = bytearray(start)

    def get(off):
        return link.submit(P.CMD_GET, L.get_request(kind, idx, off, chunk))

    data = link.wait(P.CMD_GET, get(len(out)))
    total, crc = struct.unpack_from("<II", data)
    out += data[8:]
    inflight: deque = deque()
    ahead = len(out)
    got = 0
    try:
        while len(out) < total:
            while len(inflight) < window and ahead < total:
                inflight.append(get(ahead))
                ahead += chunk
            data = link.wait(P.CMD_GET, inflight.popleft())
            if struct.unpack_from("<II", data) != (total, crc):
                raise L.LinkError(0, msg="the log changed during the pull")
            if len(data) == 8:
                raise L.LinkError(0, msg="table sent no data before the end")
            out += data[8:]
            got += 1
            if save and got % SAVE_EVERY == 0:
                save(total, crc, bytes(out))
            if progress:
                progress(len(out), total)
    except BaseException:
        if save and len(out) < total:
            save(total, crc, bytes(out))
        raise
    finally:
        link.drain(inflight)
    if progress:
        progress(len(out), total)
    if len(out) != total or zlib.crc32(out) != crc:
        raise L.LinkError(P.E_CHECK, msg="log CRC mismatch after the pull")
    return bytes(out)


def pull_growing(link: L.Link, lid: int, start: bytes = b"", progress=None,
                 save=None) -> bytes:
    """A log that may still grow (the hand in play, or the newest log, whose
    hand may have begun meanwhile): one chunk at a time from the end of what
    has arrived, each reply's (size, CRC) taking over from the last. The
    bytes that arrived stay the log's (a log only grows), so the pull ends
    once it holds all the table had at the last reply, whose CRC covers them
    whole: a copy of the log as it stood then, never a cut."""
    chunk = link.max_payload - 9
    out = bytearray(start)
    total, crc = -1, 0
    try:
        while len(out) != total:
            data = link.request(P.CMD_GET, L.get_request(P.OBJ_LOG, lid, len(out), chunk))
            total, crc = struct.unpack_from("<II", data)
            out += data[8:]
            if len(out) > total:
                raise L.LinkError(P.E_CHECK, msg="log %d shrank during the pull" % lid)
            if progress:
                progress(len(out), total)
    except BaseException:
        if save and out:
            save(total, crc, bytes(out))
        raise
    if zlib.crc32(out) != crc:
        raise L.LinkError(P.E_CHECK, msg="log CRC mismatch after the pull")
    return bytes(out)


def verify(data: bytes, table_id: bytes, key) -> tuple:
    """(HandLogFile, seal status); LogDamaged if a CRC or the chain fails."""
    log = logfmt.parse(data)
    return log, logfmt.check_seal(log, table_id, key)


def rules_crc(log: logfmt.HandLogFile):
    hl = log.handlog()
    if len(hl) >= 7 and hl[:2] == b"HL":
        return "%08x" % struct.unpack_from("<I", hl, 3)[0]
    return None


def pull_logs(link: L.Link, sizes, progress=None, save=None, window: int = 8):
    """Yield (log id, served bytes) for each (id, size) of `sizes`, in order, with
    GETs pipelined across logs (the sizes are known from LOGS, so no log waits
    for a first reply alone). GETs are still in flight at each yield: send no
    other request until the generator is exhausted. Each log's chunks must agree on its (total, crc)
    and total must be the listed size (else LinkError: pull that log alone);
    its CRC is checked when it is whole. On a cut, save(id, total, crc, bytes)
    keeps what arrived of the logs in progress."""
    chunk = link.max_payload - 9
    plan: deque = deque()
    want = dict(sizes)
    for lid, size in sizes:
        for off in range(0, size, chunk):
            plan.append((lid, off))
    bufs: dict = {}
    meta: dict = {}
    inflight: deque = deque()
    done = 0
    grand = sum(want.values())
    try:
        while plan or inflight:
            if plan and len(inflight) <= window // 2:
                # refill the window in one write: each write wakes the table
                # once, and on a busy machine each wake-up costs a context switch
                wire = bytearray()
                while plan and len(inflight) < window:
                    lid, off = plan.popleft()
                    link.seq += 1
                    wire += L.frame(P.CMD_GET, link.seq, L.get_request(P.OBJ_LOG, lid, off, chunk))
                    inflight.append((link.seq, lid))
                link.send(bytes(wire))
            seq, lid = inflight.popleft()
            data = link.wait(P.CMD_GET, seq)
            head = struct.unpack_from("<II", data)
            if head[0] != want[lid] or meta.setdefault(lid, head) != head:
                raise L.LinkError(0, msg="log %d changed during the pull" % lid)
            buf = bufs.setdefault(lid, bytearray())
            buf += data[8:]
            done += len(data) - 8
            if progress:
                progress(done, grand)
            if len(buf) >= head[0]:
                del bufs[lid]
                if len(buf) != head[0] or zlib.crc32(buf) != head[1]:
                    raise L.LinkError(P.E_CHECK, msg="log %d CRC mismatch after the pull" % lid)
                yield lid, bytes(buf)
    except BaseException:
        if save:
            for lid, buf in bufs.items():
                save(lid, meta[lid][0], meta[lid][1], bytes(buf))
        raise
    finally:
        link.drain(seq for seq, _ in inflight)


def new_tally() -> dict:
    """What a pull counts: logs pulled (archived, or there already), new rows,
    acks, refused ids, acks the table did not take, chain problems, and (id,
    parsed log) of each archived."""
    return {"pulled": 0, "new": 0, "acked": 0, "bad": [], "unacked": [], "chain": [],
            "taken": []}


def take(opts, ar, link, lid, data, newest, st):
    """Judge one pulled log by the archive's policy (mjtable.archive.admit),
    archive it, acknowledge it (opts: .all, .no_ack, .accepting (an
    admit.Accept) as `mjtable logs pull` takes them); says what happened
    with print and counts it in the tally st (new_tally)."""
    tid = link.table_id.hex()
    v = admit.examine(tid, lid, data, link.key)
    if v.refused and v.why.startswith("DAMAGED"):
        st["bad"].append(lid)
        print("log %d: REFUSED, kept on the table: %s" % (lid, admit.refusal(v, "")))
        ar.save_partial(tid, lid, 0, 0, b"")
        return
    if v.seal == "unsealed" and newest and not opts.all:
        print("log %d: hand in play, left for a later pull" % lid)
        return
    accept = getattr(opts, "accepting", None) or admit.NOBODY
    v = admit.judge(v, accept, in_play=newest and opts.all)
    if not v.refused:
        admit.place(ar, tid, [(v, data)], accept, "logs pull", rules_crc)
    n = len(v.log.records) if v.log is not None else 0
    if v.refused:
        st["bad"].append(lid)
        print("log %d: %d records, seal %s: REFUSED, kept on the table: %s"
              % (lid, n, v.seal, admit.refusal(v, "mjtable logs pull")))
        return
    st["pulled"] += 1
    st["new"] += v.status != "same"
    state = {"new": "archived as hand %d", "same": "already archived (hand %d)",
             "grown": "archived as hand %d (replacing the shorter copy pulled in play)",
             "in play": "archived as hand %d, in play when pulled (no result yet)"
             }[v.status] % v.row
    if v.by:
        state += ", accepted by name (by %s)" % v.by
    print("log %d: %d records, seal %s, %s" % (lid, n, v.seal, state))
    if v.status != "same":
        st["taken"].append((lid, v.log))
    if v.stands and not opts.no_ack and link.key is not None:
        try:
            link.request(P.CMD_ACK, struct.pack("<I", lid) + v.log.head, auth=True)
            st["acked"] += 1
        except L.LinkError as e:
            st["unacked"].append(lid)
            print("log %d: archived, but the table did not take its acknowledgement: %s; the "
                  "log stays on the table (nothing is lost) and the next `mjtable logs pull` "
                  "acknowledges it" % (lid, L.describe(e)))


def pull_all(link: L.Link, ar, opts, progress) -> tuple:
    """Pull every log of the table into archive ar (the module docstring);
    progress(label) makes a progress callback (done, total) with an end().
    (tally, chain problems): see new_tally."""
    tid = link.table_id.hex()
    if link.key is None:
        print("no table key here: seals are not checked and logs are not acknowledged",
              file=sys.stderr)
    # the rules in force, so hands can be replayed later
    try:
        rs, blob = rules.pull(link)
        ar.add_ruleset("%08x" % rs.crc(), rs.name, blob)
    except (L.LinkError, BadInput):
        pass
    logs = table_logs(link)
    # after LOGS: a hand begun since is not in the list, one ended since is whole
    hand = link.info().get("hand", "")  # -1: between hands; none: an older firmware
    in_play = int(hand) if hand.lstrip("-").isdigit() else -2
    newest = logs[-1][0] if logs else -1
    st = new_tally()

    def save(lid, total, crc, data):
        ar.save_partial(tid, lid, total, crc, data)

    # logs without a partial copy (and not the newest, which may still grow):
    # pipelined across logs; the others one by one, resuming
    batch = [(lid, size) for lid, size in logs
             if lid not in (newest, in_play) and not ar.partial(tid, lid)]
    alone = [lid for lid, _ in logs if lid not in dict(batch)]
    if batch:
        bar = progress("%d logs" % len(batch))
        got = []
        try:
            # all of them first: a request sent between the pipelined GETs
            # (an ACK) would take their replies for stale ones
            for lid, data in pull_logs(link, batch, bar, save):
                got.append((lid, data))
        except L.LinkError as e:
            bar.end()
            for lid, data in got:  # what arrived whole is kept
                take(opts, ar, link, lid, unwhiten(data), False, st)
            raise LinkTrouble("pull cut after %d whole log(s): %s. Nothing was lost: the logs "
                              "not archived stay on the table, the bytes that arrived are kept; "
                              "run `mjtable logs pull` again to resume"
                              % (len(got), L.describe(e))) from None
        bar.end()
        for lid, data in got:
            take(opts, ar, link, lid, unwhiten(data), False, st)
    for lid in alone:
        # in play: the table says so (INFO hand=); a firmware that does not
        # say (in_play -2): the newest log, if its pull finds it unsealed
        playing = lid == in_play or (in_play == -2 and lid == newest)
        if lid == in_play and not opts.all:
            print("log %d: hand in play, left for a later pull" % lid)
            continue
        start = ar.partial(tid, lid)
        bar = progress("log %d" % lid)

        def save1(total, crc, data, lid=lid):
            ar.save_partial(tid, lid, total, crc, data)

        def get(start, lid=lid, bar=bar):
            if lid in (newest, in_play):  # may grow while it is read
                return pull_growing(link, lid, start, bar, save1)
            return pull_object(link, P.OBJ_LOG, lid, start, bar, save1)

        try:
            data = get(start)
        except L.LinkError as e:
            bar.end()
            # The partial copy was of another version (E_CHECK), or of an
            # older, longer log under this id (E_ARG: a re-formatted table
            # restarts its ids): start over.
            if start and e.status in (9, 15):
                ar.save_partial(tid, lid, 0, 0, b"")
                start = b""
                data = get(start)
            else:
                raise LinkTrouble("log %d: pull cut: %s. Nothing was lost: it stays on the "
                                  "table, the bytes that arrived are kept; run `mjtable logs "
                                  "pull` again to resume" % (lid, L.describe(e))) from None
        bar.end()
        if start:
            print("log %d: resumed at byte %d" % (lid, len(start)))
        take(opts, ar, link, lid, unwhiten(data), playing, st)
    chain = st["chain"] + admit.chain_problems(ar, tid, {lid for lid, _ in logs}, st["taken"])
    return st, chain

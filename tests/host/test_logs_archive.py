"""The host's archive of pulled hand logs against logs the firmware's own code
writes (table.logstore, sichuan.handlog, table.hostcmds' seal): what counts
as a hand in `mjtable export`."""

import argparse
import struct

from gamekit import play
from mjtable import archive
from mjtable.archive import admit
from mjtable.commands import rescore as rescorecmd
from mjtable.logs import logfmt
from mjtable.logs import summary as exportcmd
from mjtable.tableops import logs as logscmd
from sichuan import game as G
from sichuan import handlog, presets
from sichuan import ruleset as R
from table import hostcmds
from table.link import Link
from table.logstore import LogStore

KEY = bytes(range(7, 39))
TID = b"ARCHTBL1"


class _Link:
    """What logscmd.take asks of a link: its table and key, and ACK."""

    table_id = TID
    key = KEY

    def __init__(self, busy=False):
        self.busy = busy
        self.acked = []

    def request(self, code, payload, auth=False):
        if self.busy:
            from mjtable.link.client import LinkError

            raise LinkError(8)
        self.acked.append(struct.unpack_from("<I", payload)[0])
        return b""


class _Recorder:
    """A handlog.Writer whose every action also becomes a log record, as the
    controller writes them (gamekit.play calls record(a, evs))."""

    def __init__(self, rs, log):
        self.w = handlog.Writer(rs.crc(), rs[R.P_PLAYERS], 0, G.DIR_NEXT, 1000)
        self.log = log
        log.append(hostcmds.T_HEAD, self.w.buf)

    def record(self, a, evs):
        mark = len(self.w.buf)
        self.w.record(a, evs)
        self.log.append(hostcmds.T_ACT, self.w.buf[mark:])


def _hand(folder, seed, preset="xuezhan"):
    """(log id, log bytes, points) of one sealed bot hand of a preset, logged
    as the table logs it."""
    logs = LogStore(folder)
    link = Link(lambda mv: 0, lambda mv: len(mv), key=KEY, table_id=TID)
    host = hostcmds.install(link, logs, root=folder, table_id=TID)
    rs = presets.get(preset)
    log = logs.new_log()
    g = play(rs, seed, log=_Recorder(rs, log))
    log.append(hostcmds.T_END, struct.pack("<%dh" % g.np, *g.delta))
    host.seal(log)
    log.close()
    with open(logs.path(log.log_id), "rb") as f:
        return log.log_id, f.read(), list(g.delta)


def _records(data):
    """The file header, then each record's bytes (docs/storage.md)."""
    out = [data[:logfmt.HEADER]]
    pos = logfmt.HEADER
    while pos < len(data):
        n = struct.unpack_from("<H", data, pos + 2)[0]
        out.append(data[pos:pos + logfmt.OVERHEAD + n])
        pos += logfmt.OVERHEAD + n
    return out


def _take(ar, link, lid, data, newest=False, all_=False, accept=False):
    st = logscmd.new_tally()
    took = admit.Accept(["%d" % lid] if accept else [], "李裁判", "checked")
    args = argparse.Namespace(all=all_, no_ack=False, accepting=took)
    logscmd.take(args, ar, link, lid, data, newest, st)
    return st


def test_a_hand_pulled_in_play_and_again_whole_counts_once(tmp_path):
    lid, whole, points = _hand(str(tmp_path / "logs"), 3)
    in_play = b"".join(_records(whole)[:-3])  # `logs pull --all` while it was played
    ar = archive.open_archive(str(tmp_path / "ar.sqlite"))
    _take(ar, _Link(busy=True), lid, in_play, newest=True, all_=True)
    ar.db.commit()
    (h,) = exportcmd.collect([str(tmp_path / "ar.sqlite")])
    assert h["points"] is None and exportcmd.standings([h]) == []  # no result: none counted
    # rescore names it as a hand without a result, not as a difference (exit 0)
    r = rescorecmd.rescore_one(ar, ar.logs()[0][0])
    assert r["ok"] and r["result"] is False and r["points_table"] is None
    assert ",in play" not in exportcmd.to_csv([h]) and not h["checked"]
    st = _take(ar, _Link(), lid, whole)
    assert st["new"] == 1 and len(ar.logs()) == 1  # the whole log took the in-play copy's row
    ar.close()
    hs = exportcmd.collect([str(tmp_path / "ar.sqlite")])
    assert len(hs) == 1 and hs[0]["points"] == points and hs[0]["checked"]
    # the same whole hand in a second archive is still one hand
    ar2 = archive.open_archive(str(tmp_path / "ar2.sqlite"))
    _take(ar2, _Link(), lid, whole)
    ar2.close()
    assert len(exportcmd.collect([str(tmp_path / "ar.sqlite"), str(tmp_path / "ar2.sqlite")])) == 1


def test_a_sealed_hand_cut_on_the_flash_is_refused_and_taken_only_by_name(tmp_path):
    # the seal, the end record and the last actions cut off a finished hand
    # that is not the newest (its file on the flash, reached through the REPL)
    lid, whole, points = _hand(str(tmp_path / "logs"), 3)
    cut = b"".join(_records(whole)[:-6])
    ar = archive.open_archive(str(tmp_path / "ar.sqlite"))
    link = _Link()
    st = _take(ar, link, lid, cut)
    assert link.acked == [] and st["bad"] == [lid]  # the table keeps its copy
    assert ar.logs() == []  # and the archive has none
    # taken on purpose once checked: archived, acknowledged, the referee kept
    _take(ar, link, lid, cut, accept=True)
    assert link.acked == [lid]
    assert list(ar.accepted().values())[0][:3] == ("李裁判", "checked", "logs pull")
    ar.close()
    (h,) = exportcmd.collect([str(tmp_path / "ar.sqlite")])
    assert not h["checked"] and "no end-of-hand record" in h["differences"]
    assert h["accepted"] == "李裁判"


def test_a_log_id_used_twice_is_refused_the_first_copy_stands(tmp_path):
    # a table whose flash was formatted starts its ids again at 1
    lid, first, _ = _hand(str(tmp_path / "a"), 3)
    lid2, second, _ = _hand(str(tmp_path / "b"), 4)
    assert lid == lid2 == 1 and first != second
    ar = archive.open_archive(str(tmp_path / "ar.sqlite"))
    assert _take(ar, _Link(), lid, first)["chain"] == []
    link = _Link()
    st = _take(ar, link, lid, second)
    assert st["new"] == 0 and st["bad"] == [lid] and len(ar.logs()) == 1
    assert link.acked == []  # the table keeps the second
    (h,) = exportcmd.collect([str(tmp_path / "ar.sqlite")])
    assert h["head"] == logfmt.parse(first).head
    assert logfmt.parse(second).follows() == (0, bytes(8))  # each the first of its table

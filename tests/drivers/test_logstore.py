"""table.logstore: log naming, boot repair report, the reserve rule, ack."""

try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

import os

import storage_util as su
from table import logstore as ls
from table import recordlog as rl
from table.logstore import LogStore
from table.recordlog import LogError, RecordLog


def test_ids_count_up_and_survive_acks_and_restarts():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        ids = []
        for _ in range(3):
            log = s.new_log()
            log.append(1, b"x")
            ids.append(log.log_id)
            log.close()
        assert ids == [1, 2, 3]
        assert s.list() == [1, 2, 3]
        for i in ids:
            s.ack(i)
        assert s.list() == []
        s2 = LogStore(d + "/logs")  # reboot
        log = s2.new_log()
        assert log.log_id == 4  # never reused
        log.close()
        assert sorted(os.listdir(d + "/logs")) == ["h4.log", "next"]
    finally:
        su.rmtree(d)


def _store_with(d, n):
    """A LogStore at d/logs holding n new logs."""
    s = LogStore(d + "/logs")
    for _ in range(n):
        s.new_log().close()
    return s


def _id_after_reboot(d):
    """The id a new log at d/logs gets after the table restarts."""
    log = LogStore(d + "/logs").new_log()
    log.close()
    return log.log_id


def test_a_new_hand_writes_no_counter_the_logs_show_their_ids():
    # each hand's start opens one file (its log), not two: the counter is
    # written when an ack deletes a log
    d = su.scratch("ls")
    try:
        _store_with(d, 2)
        assert sorted(os.listdir(d + "/logs")) == ["h1.log", "h2.log"]
        assert _id_after_reboot(d) == 3
    finally:
        su.rmtree(d)


def test_lost_counter_never_reuses_an_id():
    d = su.scratch("ls")
    try:
        _store_with(d, 3).ack(1)
        assert su.read_file(d + "/logs/next")[12:16] == b"\x04\x00\x00\x00"
        os.remove(d + "/logs/next")
        assert _id_after_reboot(d) == 4
    finally:
        su.rmtree(d)


def _link(s, log_id):
    """The T_LINK record of a log: (id, head) of the log before it."""
    log = s.open_log(log_id)
    t, p = log.read(0)
    log.close()
    assert t == ls.T_LINK and len(p) == 12
    return int.from_bytes(p[:4], "little"), bytes(p[4:])


def test_each_log_begins_with_the_id_and_head_of_the_one_before():
    # issue 21: a log deleted before the host took it shows as a gap
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        heads = []
        for i in range(3):
            log = s.new_log()
            log.append(1, b"hand %d" % i)
            heads.append(log.head())
            log.close()
        assert _link(s, 1) == (0, bytes(8))  # the table's first log
        assert _link(s, 2) == (1, heads[0]) and _link(s, 3) == (2, heads[1])
        assert su.read_file(s.path(3))[:4] == b"MJL2"
        s2 = LogStore(d + "/logs")  # reboot: the newest log on flash is the one before
        log = s2.new_log()
        h4 = log.head()
        log.close()
        assert _link(s2, 4) == (3, heads[2])
        for i in (1, 2, 3, 4):  # every log acked: the counter file keeps the link
            s2.ack(i)
        s3 = LogStore(d + "/logs")
        log = s3.new_log()
        log.close()
        assert log.log_id == 5 and _link(s3, 5) == (4, h4)
    finally:
        su.rmtree(d)


def test_ack_with_head_checks_the_host_holds_this_log():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        log = s.new_log()
        log.append(1, b"a")
        log.append(2, b"b")
        head = log.head()
        log.close()
        raises(LogError, s.ack, 1, b"\x00" * rl.CHAIN_BYTES)
        assert s.list() == [1]
        raises(KeyError, s.ack, 99)
        s.ack(1, head)
        assert s.list() == []
    finally:
        su.rmtree(d)


def test_boot_cleans_temps_and_reports_a_torn_tail():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        log = s.new_log()
        for i in range(5):
            log.append(1, b"rec %d" % i)
        log.close()
        p = s.path(1)
        raw = su.read_file(p)
        su.write_file(p, raw[:-3])  # the last record torn by a cut
        su.write_file(d + "/logs/next.tmp", b"MJ")
        s2 = LogStore(d + "/logs")
        assert s2.cleaned == ["next.tmp"]
        assert s2.repairs == [(1, rl.OVERHEAD + 5 - 3, 5)]  # after the link record
        assert s2.damaged == []
        assert RecordLog(p).count == 5
    finally:
        su.rmtree(d)


def test_boot_reports_damage_and_keeps_the_file():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        log = s.new_log()
        log.append(1, b"one")
        log.append(1, b"two")
        log.close()
        p = s.path(1)
        raw = bytearray(su.read_file(p))
        raw[rl.HEADER_BYTES + 7] ^= 1  # payload byte of record 0
        su.write_file(p, raw)
        s2 = LogStore(d + "/logs")
        assert s2.damaged == [(1, rl.BAD_CRC, 0, rl.HEADER_BYTES)]
        assert su.read_file(p) == raw
    finally:
        su.rmtree(d)


def test_low_space_refuses_a_new_hand_and_deletes_nothing():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        s.new_log().close()
        s.reserve = s.free_bytes() + 1 << 20  # more than the disk has free
        assert s.can_start_hand() == (False, ls.LOW_SPACE)
        e = raises(LogError, s.new_log)
        assert e.args[0] == ls.LOW_SPACE
        assert s.list() == [1]
    finally:
        su.rmtree(d)


def test_too_many_logs_refuses_a_new_hand():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs", max_logs=2)
        s.new_log().close()
        assert s.can_start_hand() == (True, ls.READY)
        s.new_log().close()
        assert s.can_start_hand() == (False, ls.TOO_MANY_LOGS)
        raises(LogError, s.new_log)
        s.ack(1)
        assert s.can_start_hand() == (True, ls.READY)
    finally:
        su.rmtree(d)


def test_no_filesystem_is_a_reason_too():
    d = su.scratch("ls")
    try:
        s = LogStore(d + "/logs")
        su.rmtree(d + "/logs")
        assert s.can_start_hand() == (False, ls.NO_FS)
    finally:
        su.rmtree(d)


def test_full_littlefs_refuses_before_a_log_is_lost():
    if not su.need_lfs():
        return
    d = su.scratch("lsfull")
    try:
        image = d + "/flash.img"
        bd = su.mount(image, fresh=True, blocks=24)  # 96 KB volume
        try:
            s = LogStore(su.MOUNT + "/logs")
            hands = 0
            while s.can_start_hand()[0]:
                log = s.new_log()
                for i in range(120):  # ~3 KB, about one block
                    log.append(1, b"move %d" % i)
                log.close()
                hands += 1
                assert hands < 50
            assert hands >= 2
            assert s.can_start_hand() == (False, ls.LOW_SPACE)
            assert s.free_bytes() < s.reserve
            assert s.list() == list(range(1, hands + 1))  # nothing dropped
            e = raises(LogError, s.new_log)
            assert e.args[0] == ls.LOW_SPACE
            # the host takes two logs: the table may play again
            s.ack(1)
            s.ack(2)
            assert s.can_start_hand() == (True, ls.READY)
        finally:
            su.unmount(bd)
    finally:
        su.rmtree(d)


def test_append_on_a_full_volume_raises_and_keeps_earlier_records():
    if not su.need_lfs():
        return
    d = su.scratch("lsfull")
    try:
        image = d + "/flash.img"
        bd = su.mount(image, fresh=True, blocks=16)
        try:
            log = RecordLog(su.MOUNT + "/h1.log", create_id=1)
            for i in range(100):
                log.append(1, b"kept %d" % i)
            filler = bytes(2048)
            full = False
            while not full:  # commit chunk by chunk: an uncommitted file frees its blocks
                try:
                    with open(su.MOUNT + "/filler", "ab") as f:
                        f.write(filler)
                except OSError:
                    full = True
            assert su.exists(su.MOUNT + "/filler")
            failed = False
            try:
                for _ in range(200):
                    log.append(2, bytes(100))
            except OSError:
                failed = True
            assert failed  # an error the controller sees, never a silent drop
            assert log.damaged is not None and log.damaged[0] == rl.TORN
            raises(LogError, log.append, 1, b"x")  # no append onto a maybe-torn tail
            log.close()
        finally:
            su.unmount(bd)
        bd = su.mount(image, blocks=16)
        try:
            log = RecordLog(su.MOUNT + "/h1.log")
            assert log.damaged is None and log.count >= 100
            for i in range(100):
                assert log.read(i) == (1, b"kept %d" % i)
        finally:
            su.unmount(bd)
    finally:
        su.rmtree(d)


def test_torn_log_on_a_full_volume_opens_without_crashing():
    if not su.need_lfs():
        return
    d = su.scratch("lsfull")
    try:
        image = d + "/flash.img"
        bd = su.mount(image, fresh=True, blocks=16)
        try:
            p = su.MOUNT + "/h1.log"
            log = RecordLog(p, create_id=1)
            for i in range(300):  # ~7 KB: two blocks
                log.append(1, b"kept %d" % i)
            log.close()
            with open(p, "ab") as f:
                f.write(b"\xa5\x01\x10")  # a torn record header
            filler = bytes(1024)
            full = False
            while not full:
                try:
                    with open(su.MOUNT + "/filler", "ab") as f:
                        f.write(filler)
                except OSError:
                    full = True
            log = RecordLog(p)  # the repair copy has no room
            assert log.repaired is None
            assert log.damaged == (rl.TORN, 300, log.end)
            assert log.read(299) == (1, b"kept 299")
            raises(LogError, log.append, 1, b"x")
            os.remove(su.MOUNT + "/filler")  # the host took files: room again
            log = RecordLog(p)
            assert log.repaired == (3, 300) and log.damaged is None
        finally:
            su.unmount(bd)
    finally:
        su.rmtree(d)

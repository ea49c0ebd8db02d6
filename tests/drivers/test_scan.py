from tablekit import Rig, tile_uid

try:
    from check import raises
except ImportError:
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

from storage_util import scratch
from table import store
from table.enroll import Enrollment
from table.scan import NOWHERE, Scanner


def test_enroll_lookup_and_refusals():
    e = Enrollment()
    e.set(5, tile_uid(5))
    e.set(107, tile_uid(107))
    assert e.lookup(tile_uid(5)) == 5 and e.lookup(tile_uid(107)) == 107
    assert e.lookup(tile_uid(6)) == -1
    raises(ValueError, e.set, 6, tile_uid(5))  # one UID, two tiles
    assert e.lookup(tile_uid(5)) == 5 and e.count == 2
    raises(ValueError, e.set, 108, tile_uid(9))
    raises(ValueError, e.set, 3, b"\x00" * 8)
    e.set(5, tile_uid(40))  # re-enroll a tile with a new tag
    assert e.lookup(tile_uid(5)) == -1 and e.lookup(tile_uid(40)) == 5
    assert e.uid(5) == tile_uid(40) and e.uid(6) is None


def test_enroll_blob_roundtrip_and_bad_blob():
    e = Enrollment()
    for t in range(108):
        e.set(t, tile_uid(t))
    assert e.complete()
    f = Enrollment()
    f.load_blob(bytes(e.uids))
    assert all(f.lookup(tile_uid(t)) == t for t in range(108))
    bad = bytearray(e.uids)
    bad[8:16] = bad[0:8]
    raises(ValueError, f.load_blob, bad)
    assert f.lookup(tile_uid(1)) == 1  # unchanged
    raises(ValueError, f.load_blob, b"\x01" * 10)


def test_enroll_ask_bits_tell_every_tile_apart():
    e = Enrollment()
    assert e.ask_bits() == 16  # nothing enrolled: the shortest mask
    e.set(0, b"\x01\x02\x03\x04\x05\x06\x04\xe0")
    e.set(1, b"\x01\x02\x09\x04\x05\x06\x04\xe0")  # the same low 16 bits
    assert e.ask_bits() == 24
    e.set(2, b"\x01\x02\x09\x04\x05\x07\x04\xe0")  # the same low 40 bits as tile 1
    assert e.ask_bits() == 48
    e.remove(2)
    assert e.ask_bits() == 24
    f = Enrollment()
    for t in range(108):
        f.set(t, tile_uid(t))
    bits = f.ask_bits()
    assert 16 <= bits <= 64 and bits % 8 == 0
    nb = bits // 8
    assert len(set(tile_uid(t)[:nb] for t in range(108))) == 108
    assert bits == 16 or len(set(tile_uid(t)[:nb - 1] for t in range(108))) < 108


def test_enroll_save_load():
    import os

    folder = scratch("enroll")
    path = folder + "/enroll.bin"
    e = Enrollment()
    e.set(12, tile_uid(12))
    e.save(path)
    f = Enrollment()
    assert f.load(path) == store.OK and f.lookup(tile_uid(12)) == 12
    assert Enrollment().load(path + ".none") == store.MISSING
    os.remove(path)
    os.rmdir(folder)


def test_arrival_needs_two_scans():
    rig = Rig()
    rig.put(0, 0, [1, 2, 3])
    rig.cycle()
    assert rig.scanner.loc[1] == NOWHERE and rig.scanner.pending == 3
    assert rig.scanner.seen() == 3 and not rig.scanner.empty()  # on their way: INFO state=
    rig.cycle()
    assert [rig.scanner.loc[t] for t in (1, 2, 3)] == [0, 0, 0]
    assert rig.scanner.pending == 0 and rig.scanner.count_at(0) == 3


def test_gone_only_after_n_missing_scans():
    rig = Rig(gone=3)
    rig.put(1, 0, [10, 11])
    rig.cycle(2)
    rig.take(1, 0, [10])
    rig.cycle(2)
    assert rig.scanner.loc[10] == 2
    rig.cycle()
    assert rig.scanner.loc[10] == NOWHERE and rig.scanner.loc[11] == 2
    assert rig.scanner.seen() == 1


def test_single_miss_changes_nothing():
    rig = Rig()
    rig.put(0, 0, [4])
    rig.cycle(2)
    rig.take(0, 0, [4])
    rig.cycle()
    rig.put(0, 0, [4])
    rig.cycle(3)
    assert rig.scanner.loc[4] == 0 and rig.scanner.miss[4] == 0


def test_rack_to_tray_moves_in_two_scans():
    rig = Rig(gone=4)
    rig.put(2, 0, [20, 21, 22])
    rig.cycle(2)
    ch = rig.scanner.changes
    rig.take(2, 0, [20, 21])
    rig.put(2, 1, [20, 21])
    rig.cycle(2)
    assert rig.scanner.loc[20] == 5 and rig.scanner.loc[21] == 5 and rig.scanner.loc[22] == 4
    assert rig.scanner.changes == ch + 2


def test_tile_in_two_places_is_flagged_and_stays_home():
    rig = Rig()
    rig.put(0, 0, [30])
    rig.cycle(2)
    rig.put(3, 0, [30])  # a duplicated tag on seat 3's rack
    rig.cycle(3)
    sc = rig.scanner
    assert sc.loc[30] == 0 and sc.dual[30] == 1 and sc.dual_seat() in (0, 3)
    rig.take(3, 0, [30])
    rig.cycle(4)
    assert sc.dual[30] == 0 and sc.loc[30] == 0


def test_unknown_tag_needs_two_scans():
    rig = Rig()
    rig.sims[1].put(1, b"\x99\x88\x77\x66\x55\x44\x04\xe0")
    rig.cycle()
    assert rig.scanner.unknown_seat() == -1
    rig.cycle()
    assert rig.scanner.unknown_seat() == 1
    rig.sims[1].set_tags(1, [])
    rig.cycle()
    assert rig.scanner.unknown_seat() == -1


def test_filter_survives_missed_and_phantom_reads():
    rig = Rig(miss_rate=0.05, phantom_rate=0.02)
    for s in range(4):
        rig.put(s, 0, range(s * 14, s * 14 + 13))
    rig.cycle(8)  # arrival needs two reads in a row; misses can delay it
    sc = rig.scanner
    for _ in range(30):
        rig.cycle()
        for s in range(4):
            for t in range(s * 14, s * 14 + 13):
                assert sc.loc[t] == 2 * s
    assert sc.unknown_seat() == -1
    assert sum(sim.phantoms for sim in rig.sims) > 0


def test_bad_parameters():
    rig = Rig(seats=1)
    raises(ValueError, Scanner, rig.readers, rig.enroll, 0, 3)


def on_rack(seat, tiles):
    """A Rig (gone 8) and its scanner with tiles settled on seat's rack."""
    rig = Rig(gone=8)
    rig.put(seat, 0, tiles)
    rig.cycle(2)
    return rig, rig.scanner


def test_a_laid_tile_is_confirmed_by_one_ask_not_a_second_read():
    rig, sc = on_rack(0, [1, 2])
    rig.put(0, 0, [3])
    sc.scan_place(0)
    scans = sc.scans
    t = sc.unsettled(0)
    assert t == 3 and sc.in_flux(0) == 1 and sc.loc[3] == NOWHERE
    sc.settle(0, t)
    assert sc.loc[3] == 0 and sc.pending == 0 and sc.scans == scans  # asked, not read
    assert sc.unsettled(0) == 108


def test_a_read_leaves_its_flux_as_the_walks_would_count_it():
    # update() counts what in_flux() and unsettled() would give in its own walk
    from mjsim.chipsim.rng import XorShift32

    rig = Rig(miss_rate=0.2)
    sc = rig.scanner
    r = XorShift32(5)
    where = {}
    fluxed = 0
    for step in range(120):
        t = r.next() % 24
        p = r.next() % 8
        if t in where:
            rig.take(where[t] >> 1, where[t] & 1, [t])
            del where[t]
        if r.next() % 3:
            rig.put(p >> 1, p & 1, [t])
            where[t] = p
        q = r.next() % 8
        sc.scan_place(q)
        assert sc.flux == sc.in_flux(q) and sc.flux_first == sc.unsettled(q), step
        fluxed += sc.flux > 0
    assert fluxed > 10  # reads that left tiles in flux, not only quiet ones
    rig.readers[1].busy_polls = 5
    rig.sims[1].unplug()
    sc.scan_place(2)  # an unreadable place: its flux by the walk
    assert sc.errors[1] == 1  # seat 1's reader
    assert sc.flux == sc.in_flux(2) and sc.flux_first == sc.unsettled(2)


def test_a_lifted_tile_is_gone_after_its_asks():
    rig, sc = on_rack(0, [40, 41])
    ch = sc.changes
    rig.take(0, 0, [40])
    sc.scan_place(0)
    assert sc.miss[40] == 1 and sc.miss[41] == 0 and sc.unsettled(0) == 40
    sc.settle(0, 40)  # asked by UID at the rack, the tray, the rack: 7 more misses
    assert sc.loc[40] == NOWHERE and sc.loc[41] == 0 and sc.miss[41] == 0
    assert sc.changes == ch + 1 and sc.unsettled(0) == 108


def test_a_lifted_tile_is_gone_only_once_its_tray_missed_as_many_asks():
    rig, sc = on_rack(0, [42])
    rig.take(0, 0, [42])
    sc.scan_place(0)
    asked = rig.sims[0].requests
    sc.settle(0, 42)  # a 杠 laid on the tray and missed by one ask would read as a discard
    assert rig.sims[0].requests - asked == 6 + 7 + 1  # the rack, the tray, the rack
    assert sc.loc[42] == NOWHERE


def test_a_tile_laid_from_the_rack_on_the_tray_moves_there():
    rig, sc = on_rack(1, [44, 45])
    rig.take(1, 0, [44])
    rig.put(1, 1, [44])
    sc.scan_place(2)
    sc.settle(2, 44)
    assert sc.loc[44] == 3 and sc.cand[44] == NOWHERE and sc.loc[45] == 2


def test_an_ask_puts_right_a_read_that_missed_a_tile():
    rig, sc = on_rack(1, [50])
    sc.miss[50] = 1  # as after a missed read
    assert sc.unsettled(2) == 50
    sc.settle(2, 50)
    assert sc.miss[50] == 0 and sc.loc[50] == 2


def test_a_tile_moved_from_another_place_needs_its_old_place_to_miss_it():
    rig = Rig(gone=8)
    rig.put(2, 0, [52])
    rig.put(3, 0, [53])
    rig.cycle(2)
    sc = rig.scanner
    rig.take(2, 0, [52])
    rig.put(3, 1, [52])  # seat 2's tile laid on seat 3's tray
    rig.put(3, 1, [53])  # seat 3's own, and still on its rack (a duplicated tag)
    sc.scan_place(7)
    assert sc.in_flux(7) == 2
    sc.settle(7, 52)
    sc.settle(7, 53)
    assert sc.loc[52] == 7  # its old place missed it: moved
    assert sc.loc[53] == 6 and sc.cand[53] == 7 and sc.cand_n[53] == 1  # left to the reads


def test_a_move_is_not_taken_when_its_old_place_cannot_be_asked():
    rig, sc = on_rack(1, [55])
    rig.take(1, 0, [55])
    rig.put(2, 0, [55])
    sc.scan_place(4)
    sc.skip = 2  # seat 1's reader down: its rack cannot say the tile left
    sc.settle(4, 55)
    assert sc.loc[55] == 2 and sc.dual[55] == 0 and sc.cand[55] == 4


def test_a_tile_seen_once_on_the_tray_is_asked_there_to_end_its_move():
    rig, sc = on_rack(0, [56])
    rig.take(0, 0, [56])
    rig.put(0, 1, [56])
    sc.scan_place(1)  # the tray sees it once
    sc.scan_place(0)  # the rack misses it once
    assert sc.cand[56] == 1 and sc.unsettled(0) == 56
    sc.settle(0, 56)
    assert sc.loc[56] == 1 and sc.cand[56] == NOWHERE


def test_an_ask_that_fails_is_no_evidence():
    rig, sc = on_rack(0, [54])
    sc.miss[54] = 1
    sc.skip = 1  # seat 0's reader down: not asked
    assert not sc.ask(0, 54, 3)
    assert sc.miss[54] == 1 and sc.loc[54] == 0


def test_a_tile_seen_once_elsewhere_is_moving_not_gone():
    rig = Rig(gone=3)
    rig.put(2, 0, [60])
    rig.cycle(2)
    sc = rig.scanner
    rig.take(2, 0, [60])
    rig.put(2, 1, [60])
    sc.scan_place(4)
    sc.scan_place(4)
    sc.scan_place(5)  # the tray has seen it once
    sc.scan_place(4)  # the rack's third miss: gone, were it not on its way
    assert sc.loc[60] == 4 and sc.cand[60] == 5
    sc.scan_place(5)
    assert sc.loc[60] == 5 and sc.changes


def seen_once_then_missed(home, there):
    """Seat 0's tile 57 moved from antenna `home` to `there`, read in the order
    of seed 120's 补杠 (issue 38): home misses it in a read and six asks,
    `there` answers the seventh ask, its next ask misses (5 % of requests
    do), home's last ask misses. The tile was then gone, and the answer
    forgotten: a discard."""
    rig = Rig(gone=8)
    rig.put(0, home, [57, 58])
    rig.cycle(2)
    sc = rig.scanner
    rig.take(0, home, [57])
    rig.put(0, there, [57])
    sc.scan_place(home)
    assert not sc.ask(home, 57, 6) and sc.miss[57] == 7
    assert sc.ask(there, 57, 7) and sc.cand[57] == there and sc.cand_n[57] == 1
    rig.take(0, there, [57])  # the next ask there misses it
    assert not sc.ask(there, 57, 1)
    rig.put(0, there, [57])
    assert not sc.ask(home, 57, 1)
    assert sc.loc[57] == home and sc.cand[57] == there  # moving, not gone
    assert sc.unsettled(home) == 57  # still in flux: the table waits
    assert sc.ask(there, 57, 1) and sc.loc[57] == there and sc.cand[57] == NOWHERE


def test_a_tile_seen_once_on_the_tray_is_not_gone_when_the_next_ask_misses_it():
    seen_once_then_missed(0, 1)  # a 补杠 (or a 暗杠's tile) laid on the tray


def test_a_tile_moved_back_to_the_rack_is_not_gone_when_the_next_ask_misses_it():
    seen_once_then_missed(1, 0)  # a 提's wild, or a tile put back from the tray


def test_a_tile_laid_on_the_tray_is_settled_there_though_an_ask_there_missed_it():
    # the same through settle(), as the controller reads: the tile is taken
    # off the tray for the one ask after the ask that found it
    rig, sc = on_rack(0, [59])
    rig.take(0, 0, [59])
    rig.put(0, 1, [59])
    script = []

    def idle():  # after each read or ask of seat 0's reader
        if rig.sims[0].ant.value() != 1:
            return
        if not script:  # the tray answered this ask: it misses the next one
            rig.take(0, 1, [59])
            script.append(1)
        elif len(script) == 1:
            rig.put(0, 1, [59])
            script.append(2)

    sc.idle = idle
    sc.scan_place(0)
    sc.settle(0, 59)
    assert script == [1, 2]
    assert sc.loc[59] != NOWHERE and sc.pending == 1  # not a discard: still moving
    while sc.unsettled(0) == 59:
        sc.settle(0, 59)
    assert sc.loc[59] == 1 and sc.pending == 0


def test_a_tile_seen_once_on_the_tray_and_then_missed_there_as_long_is_gone():
    # the same wait ends: a false answer at the tray (a garbled one counts as
    # there) delays a discard by the tray's `gone` misses, no more
    rig, sc = on_rack(0, [61])
    rig.take(0, 0, [61])
    sc.scan_place(0)
    assert not sc.ask(0, 61, 6)
    rig.put(0, 1, [61])
    assert sc.ask(1, 61, 1) and sc.cand[61] == 1
    rig.take(0, 1, [61])
    n = 0
    while sc.unsettled(0) == 61 and n < 20:
        sc.settle(0, 61)
        n += 1
    assert sc.loc[61] == NOWHERE and sc.cand[61] == NOWHERE and sc.pending == 0
    assert n <= 8


def test_reads_of_the_rack_alone_do_not_make_a_lifted_tile_gone():
    # however many whole reads of the rack miss it (read again and again for
    # strays), the tray must have missed it as often: then it is gone
    rig, sc = on_rack(0, [62])
    rig.take(0, 0, [62])
    rig.put(0, 1, [62])
    for _ in range(12):
        sc.scan_place(0)
    assert sc.loc[62] == 0 and sc.unsettled(0) == 62
    sc.settle(0, 62)  # the tray is asked: it is there
    assert sc.loc[62] == 1
    rig.take(0, 1, [62])
    for _ in range(12):
        sc.scan_place(1)
    assert sc.loc[62] == 1
    for _ in range(7):
        sc.scan_place(0)  # the rack's reads count as its seat's other antenna's
    sc.scan_place(1)
    assert sc.loc[62] == NOWHERE

"""The controller read off a scripted table (in-process, simulated chips):
deal, 换三张, 定缺 by keys, a void-suit discard refused then put right, and
alerts for out-of-turn, wrong count, unknown tag and a refused claim key.
Runs under CPython and MicroPython."""

from drivers import buttons as B
from gamekit import snapshot
from sichuan import game as G
from sichuan import handlog
from storage_util import scratch
from table import alerts
from tablekit import TableRig

HANDS = (range(0, 14), range(14, 27), range(27, 40), range(40, 53))
GIVE = ((0, 1, 2), (14, 15, 16), (27, 28, 29), (40, 41, 42))


def opening(logs=None, que0=B.TONG):
    """Deal, exchange (next seat), 定缺 (seat 0's suit by key que0); returns
    the rig at seat 0's first discard."""
    r = TableRig(logs=logs)
    r.frame(2)
    for s in range(4):
        r.put(s, 0, HANDS[s])
        assert r.until(lambda s=s: r.ctl.accepted == s + 1)
        assert r.ctl.last_action[:2] == (G.DEAL, s)
    assert r.ctl.game.phase == G.PH_EXCHANGE and r.text(0) == "C3  "
    for s in range(4):
        r.take(s, 0, GIVE[s])
        assert r.until(lambda s=s: r.ctl.accepted == 5 + s)
        assert r.ctl.last_action[:2] == (G.EXCHANGE, s)
    for s in range(4):  # the three tiles go to the next seat
        r.put((s + 1) % 4, 0, GIVE[s])
    assert r.ctl.game.phase == G.PH_DINGQUE
    assert r.settle()
    for s, key in ((0, que0), (1, B.TIAO), (2, B.TIAO), (3, B.TIAO)):
        r.press(s, key)
        assert r.until(lambda s=s: r.ctl.last_action[:2] == (G.DINGQUE, s))
    g = r.ctl.game
    assert g.phase == G.PH_DISCARD and g.turn == 0 and g.void[0] == que0 - B.WAN
    assert r.settle()
    return r


def test_deal_exchange_dingque_from_the_table():
    r = opening()
    g = r.ctl.game
    assert g.hand[0][10] == 3  # 2p x3 came from seat 3
    assert r.ctl.accepted == 12
    assert "." in r.text(0)  # the 缺 suit point


def test_void_discard_refused_then_put_right():
    r = opening()
    g = r.ctl.game
    before = snapshot(g)
    r.take(0, 0, [3])  # a 1m, while 2p (the void suit) is still held
    assert r.until(lambda: r.ctl.alerts.code[0] == alerts.VOID)
    assert r.text(0) == "quE " and snapshot(g) == before
    r.put(0, 0, [3])
    assert r.until(lambda: r.ctl.alerts.code[0] == 0)
    assert snapshot(g) == before
    r.take(0, 0, [40])
    assert r.until(lambda: r.ctl.accepted == 13)
    assert r.ctl.last_action[:3] == (G.DISCARD, 0, 10)


def test_out_of_turn_count_tag_and_refused_key():
    r = opening()
    r.take(0, 0, [40])
    assert r.until(lambda: r.ctl.game.phase == G.PH_DRAW)
    assert r.ctl.game.turn == 1 and r.settle()
    n = r.ctl.accepted
    r.put(2, 0, [100])  # seat 2 draws out of turn
    assert r.until(lambda: r.ctl.alerts.code[2] == alerts.TURN)
    assert r.text(2) == "turn"
    r.take(2, 0, [100])
    assert r.until(lambda: not r.ctl.alerts.any(), 200)
    r.put(1, 0, [100, 101])  # two tiles drawn at once
    assert r.until(lambda: r.ctl.alerts.code[1] == alerts.COUNT)
    r.take(1, 0, [101])
    assert r.until(lambda: r.ctl.accepted == n + 1, 200)
    assert r.ctl.last_action[:3] == (G.DRAW, 1, 25)
    r.table.readers[3].put(1, b"\x11\x22\x33\x44\x55\x66\x02\xe0")
    assert r.until(lambda: r.ctl.alerts.code[3] == alerts.TAG)
    r.table.readers[3].set_tags(1, [])
    assert r.until(lambda: not r.ctl.alerts.any(), 200)
    r.press(3, B.PENG)  # nothing to claim
    assert r.until(lambda: r.ctl.alerts.code[3] == alerts.REFUSED)
    assert r.ctl.accepted == n + 1


def test_full_flash_refuses_a_new_hand_and_says_why():
    import os

    from table.controller import FULL, PLAY
    from table.logstore import LOW_SPACE, LogStore

    folder = scratch("full")
    logs = LogStore(folder, reserve=1 << 40)  # more free space than any flash has
    r = TableRig(logs=logs)
    r.frame(3)
    assert r.ctl.state == FULL and r.ctl.why_not == LOW_SPACE
    assert [r.text(s) for s in range(4)] == ["FULL"] * 4
    r.put(0, 0, HANDS[0])  # tiles dealt anyway: nothing is accepted
    r.frame(8)
    assert r.ctl.accepted == 0 and logs.list() == []
    r.take(0, 0, HANDS[0])
    logs.reserve = 0  # the host took the logs
    r.frame(60)
    # the hand has begun; its log opens with its first record (no log for a
    # table switched off before the deal)
    assert r.ctl.state == PLAY and logs.list() == [] and r.ctl.log is None
    r.put(0, 0, HANDS[0])
    assert r.until(lambda: r.ctl.accepted == 1)
    assert logs.list() == [1]
    log = logs.open_log(1)
    types = [rt for _, _, rt, _ in log.records()]
    log.close()
    assert types == [5, 1, 2]  # the link to the log before, the hand log header, the deal
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    os.rmdir(folder)


def test_a_table_switched_off_before_the_deal_leaves_no_log():
    import os

    from table.controller import PLAY
    from table.logstore import LogStore

    folder = scratch("off")
    logs = LogStore(folder)
    r = TableRig(logs=logs)
    r.frame(3)
    assert r.ctl.state == PLAY and logs.list() == []  # waiting for the deal
    # off and on again: a new controller on the same flash, nothing to pull
    logs = LogStore(folder)
    assert logs.list() == [] and not logs.repairs
    r = TableRig(logs=logs)
    r.frame(3)
    r.put(0, 0, HANDS[0])
    assert r.until(lambda: r.ctl.accepted == 1)
    assert logs.list() == [1] and r.ctl.log_id == 1
    log = logs.open_log(1)
    types = [rt for _, _, rt, _ in log.records()]
    log.close()
    assert types == [5, 1, 2]  # the link, the head, the deal
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    os.rmdir(folder)


def test_no_hand_without_an_enrollment_map():
    from table.controller import IDLE
    from table.enroll import Enrollment

    r = TableRig()
    r.ctl.scanner.enroll = Enrollment()
    r.frame(3)
    assert r.ctl.state == IDLE and r.ctl.game is None
    assert [r.text(s) for s in range(4)] == ["Enr "] * 4


def test_alerts_are_logged_with_the_hand():
    import os

    from table.controller import REC_ALERT
    from table.logstore import LogStore

    folder = scratch("alog")
    logs = LogStore(folder)
    r = TableRig(logs=logs)
    r.frame(2)
    r.put(0, 0, range(0, 15))  # one tile too many for the dealer
    assert r.until(lambda: r.ctl.alerts.code[0] == alerts.COUNT, 120)
    log = logs.open_log(logs.list()[-1])
    recs = [(rt, p) for _, _, rt, p in log.records()]
    log.close()
    assert (REC_ALERT, recs[-1][1]) == recs[-1] and recs[-1][1][:2] == bytes((0, alerts.COUNT))
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    os.rmdir(folder)


def test_a_new_match_logs_its_own_rules():
    # the host starts a match under other rules between hands: the next hand's
    # game and log header follow them (the rules' CRC is kept per match)
    from sichuan import presets

    r = TableRig()
    r.frame(2)
    first = r.ctl.game
    rs = presets.get("chengdu")
    assert rs.crc() != r.rs.crc()
    r.ctl.new_match(rs)
    r.frame(2)
    g = r.ctl.game
    assert g is first and g.rs is rs  # built again in place, under the new rules
    assert handlog.decode(r.ctl.writer.buf)[0][0] == rs.crc()  # the log header's rules


def test_a_new_match_with_fewer_players_deals_to_three_seats():
    # sanren: three players at seats 0..2, no 万 (physical tiles 0..35)
    from sichuan import presets

    r = TableRig()
    r.frame(2)
    r.ctl.new_match(presets.get("sanren"))
    r.frame(2)
    assert r.ctl.np == 3 and r.ctl.game.np == 3
    assert handlog.decode(r.ctl.writer.buf)[0][1] == 3  # the log header's player count
    for s, tiles in enumerate((range(36, 50), range(50, 63), range(63, 76))):
        r.put(s, 0, tiles)
        assert r.until(lambda s=s: r.ctl.accepted == s + 1)
        assert r.ctl.last_action[:2] == (G.DEAL, s)
    assert r.ctl.game.phase != G.PH_DEAL


def test_a_move_is_on_the_displays_before_its_record_is_logged():
    # the board's log sync takes ~50 ms (LittleFS copies the file's last block)
    from table.logstore import LogStore

    r = opening(LogStore(scratch("shownfirst")))
    log = r.ctl.log
    append = log.append
    colon = []

    def spy(rtype, payload):
        colon.append(r.table.displays[0].colon())
        return append(rtype, payload)

    log.append = spy
    assert r.table.displays[0].colon()  # seat 0's turn
    r.take(0, 0, [40])
    assert r.until(lambda: r.ctl.last_action[:2] == (G.DISCARD, 0), 200)
    assert colon and not colon[0]  # its turn was over on the display when logged
    log.close()


def test_at_its_turn_the_rack_is_read_and_the_tray_asked():
    # the turn seat's tray is left out of the focus (its reads would delay the
    # rack's); a 暗杠 laid there is found by the asks that follow the rack's read
    r = opening(que0=B.TIAO)  # holds no 条: a 杠 is open to it
    f = r.ctl.focus()
    assert f & 1 and not f & 2 and not f >> 16 & 2
    r.take(0, 0, [4, 5, 6, 7])  # 2m x4
    r.put(0, 1, [4, 5, 6, 7])
    assert r.until(lambda: r.ctl.accepted == 13)
    assert r.ctl.last_action[:3] == (G.ANGANG, 0, 1)
    assert r.ctl.alerts.code[0] == 0


def places_read(r, cycles):
    """How often each place (seat * 2 + antenna) is read whole in `cycles`
    scan cycles with nothing moved."""
    sc = r.ctl.scanner
    scan = sc.scan_place
    reads = [0] * 8

    def spy(p):
        reads[p] += 1
        return scan(p)

    sc.scan_place = spy
    for _ in range(cycles):
        r.ctl.scan_cycle()
    sc.scan_place = scan
    return reads


def test_while_a_discard_is_awaited_the_rest_of_the_table_is_read_every_fourth_cycle():
    # each read elsewhere puts the rack's next read off by a read, where the
    # discard shows: one place in turn every fourth cycle; at a draw, whose
    # display is not awaited, every other cycle
    r = opening()
    assert places_read(r, 28) == [28] + [1] * 7  # the discard awaited at seat 0
    r.take(0, 0, [40])  # the discard
    assert r.until(lambda: r.ctl.game.phase == G.PH_DRAW and r.ctl.game.turn == 1)
    reads = places_read(r, 28)
    assert reads[2] == 28 and sum(reads) == 28 + 14  # the draw awaited at seat 1


def test_at_the_exchange_the_trays_are_read_every_other_cycle():
    r = TableRig()
    r.frame(2)
    for s in range(4):
        r.put(s, 0, HANDS[s])
    assert r.until(lambda: r.ctl.accepted == 4)
    assert places_read(r, 8) == [8, 1, 8, 1, 8, 1, 8, 1]


def test_a_tile_laid_on_the_tray_is_no_discard_when_the_rack_reads_keep_seeing_strays():
    # Each read of the rack sees a new stray UID (phantom reads of a noisy
    # antenna): the controller reads it again and again (an unknown tag seen
    # once may be a tag laid there), and eight whole reads that missed the
    # lifted tile made it gone before its tray was asked: a discard, where the
    # tile lies on the tray (issue 38). Gone needs the tray's misses too.
    r = opening()
    sim = r.table.readers[0]
    stray = [b"\x01\x00\x00\x00\x00\x00\x02\xe0"]

    def idle():  # after each read and ask: a new stray on the rack
        sim.remove(0, stray[0])
        stray[0] = bytes((stray[0][0] + 1,)) + stray[0][1:]
        sim.put(0, stray[0])

    sim.put(0, stray[0])
    r.ctl.scanner.idle = idle
    r.take(0, 0, [40])
    r.put(0, 1, [40])  # on the tray: no 杠, so a wrong count, not a discard
    r.frame(4)
    r.ctl.scanner.idle = None
    sim.remove(0, stray[0])
    assert r.ctl.accepted == 12 and r.ctl.scanner.loc[40] == 1
    assert r.until(lambda: r.ctl.alerts.code[0] == alerts.COUNT)
    r.take(0, 1, [40])  # off the tray: now the discard
    assert r.until(lambda: r.ctl.accepted == 13, 200)
    assert r.ctl.last_action[:3] == (G.DISCARD, 0, 10)

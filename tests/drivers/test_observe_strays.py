"""Tiles out of place that the observer missed (a review, session 12; each
test fails on the code before it): a won tile back in play, strays while a
碰 is owed, and a 血流 winner's later discard of the won face."""

from drivers import buttons as B
from sichuan import game as G
from table import alerts
from tablekit import TableRig

# hands after 换三张 (dealer first) and the three faces each received; all 缺条
FINAL = ["88m3p456p789p44p66p9p", "111m234m567m99m12p", "234m567m8m12p5789p",
         "1m99m2345m12p5p7p8p3p"]  # seat 1 waits on 3p
FINAL2 = ["88m3p456p789p44p66p9p", "111m234m567m9m333p", "234m567m8m12p5789p",
          "1m99m2345m12p5p7p8p9p"]  # seat 1 holds three 3p
RECV = ["456p", "234m", "567m", "345m"]
D3P = 44  # seat 0's 3p (face 11): the first discard


def faces(s):
    out, digits = [], []
    for ch in s:
        if ch.isdigit():
            digits.append(int(ch))
        else:
            base = {"m": 0, "p": 9, "s": 18}[ch]
            out += [base + d - 1 for d in digits]
            digits = []
    return out


def opening(final, preset="xuezhan"):
    used = set()

    def tile(f):
        for t in range(4 * f, 4 * f + 4):
            if t not in used:
                used.add(t)
                return t
        raise ValueError(f)

    phys = [[tile(f) for f in faces(final[s])] for s in range(4)]
    recv = []
    for s in range(4):
        pool = list(phys[s])
        rt = []
        for f in faces(RECV[s]):
            t = next(x for x in pool if x >> 2 == f)
            pool.remove(t)
            rt.append(t)
        recv.append(rt)
    give = [recv[(s + 1) % 4] for s in range(4)]
    dealt = [[t for t in phys[s] if t not in recv[s]] + give[s] for s in range(4)]
    r = TableRig(preset).deal_and_exchange(dealt, give)
    for s in range(4):
        r.press(s, B.TIAO)
        assert r.until(lambda s=s: r.ctl.last_action[:2] == (G.DINGQUE, s))
    assert r.ctl.game.phase == G.PH_DISCARD and r.settle()
    return r


def seat1_wins_on_3p():
    r = opening(FINAL)
    r.take(0, 0, [D3P])
    assert r.until(lambda: r.ctl.game.phase == G.PH_CLAIM)
    r.press(1, B.HU)
    assert r.until(lambda: r.ctl.game.phase == G.PH_DRAW and r.ctl.game.turn == 2)
    assert r.settle()
    return r


def test_won_tile_put_back_as_a_draw_is_alerted():
    # the 3p seat 1 won on comes back onto seat 2's rack as its "draw"
    r = seat1_wins_on_3p()
    n = r.ctl.accepted
    r.put(2, 0, [D3P])
    assert r.until(lambda: r.ctl.alerts.code[2] == alerts.FIFTH, 80)
    assert r.ctl.accepted == n


def test_a_winners_tile_moved_to_another_rack_is_alerted():
    # 血战, a tile off the winner's rack lands on seat 2's rack
    r = seat1_wins_on_3p()
    n = r.ctl.accepted
    r.take(1, 0, [0])
    r.put(2, 0, [0])
    r.frame(80)  # (a 2PLC flickers while seat 1's rack is not yet re-read)
    assert r.ctl.alerts.any() and not r.ctl.settled()  # the tile still lies there
    assert r.ctl.accepted == n


def test_peng_owed_does_not_hide_a_discard_taken_back():
    # the discard goes back on seat 0's rack and 碰 is pressed at once
    r = opening(FINAL2)
    r.take(0, 0, [D3P])
    assert r.until(lambda: r.ctl.game.phase == G.PH_CLAIM)
    r.put(0, 0, [D3P])
    r.frame(3)
    r.press(1, B.PENG)
    r.take(1, 0, [45, 46])
    r.put(1, 1, [45, 46])
    assert r.until(lambda: r.ctl.alerts.code[0] == alerts.COUNT, 100)


def test_peng_owed_does_not_hide_stray_tiles():
    # while seat 1 owes its 碰, its discard lands on seat 2's rack and
    # seat 3 grabs three wall tiles: alerted
    r = opening(FINAL2)
    r.take(0, 0, [D3P])
    assert r.until(lambda: r.ctl.game.phase == G.PH_CLAIM)
    r.press(1, B.PENG)
    assert r.until(lambda: r.ctl.game.turn == 1 and r.ctl.game.phase == G.PH_DISCARD)
    r.take(1, 0, [45, 46])
    r.put(1, 1, [45, 46])
    r.put(3, 0, [100, 101, 102])
    assert r.until(lambda: r.ctl.alerts.code[3] == alerts.COUNT, 100)


def test_xueliu_discard_of_a_won_face_is_not_swallowed():
    # 血流, seat 1 自摸s 3p (46) and leaves it on the rack; later it draws the last
    # 3p (47) and throws it: a discard, not "laying aside another copy"
    r = opening(FINAL, "xueliu")
    g = r.ctl.game
    r.take(0, 0, [68])
    assert r.until(lambda: g.phase == G.PH_DRAW and g.turn == 1)
    r.put(1, 0, [46])
    assert r.until(lambda: g.phase == G.PH_DISCARD and g.turn == 1) and r.settle()
    r.press(1, B.HU)
    assert r.until(lambda: g.phase == G.PH_DRAW and g.turn == 2) and r.settle()
    for s, t in ((2, 100), (3, 101), (0, 102)):
        r.put(s, 0, [t])
        assert r.until(lambda s=s: g.phase == G.PH_DISCARD and g.turn == s) and r.settle()
        r.take(s, 0, [t])
        assert r.until(lambda s=s: g.turn == (s + 1) % 4 and g.phase == G.PH_DRAW) and r.settle()
    r.put(1, 0, [47])
    assert r.until(lambda: g.phase == G.PH_DISCARD and g.turn == 1) and r.settle()
    n = r.ctl.accepted
    r.take(1, 0, [47])
    r.frame(80)
    assert r.ctl.accepted == n + 1 and r.ctl.last_action[:3] == (G.DISCARD, 1, 11)

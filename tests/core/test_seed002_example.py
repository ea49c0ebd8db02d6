"""Seed 002's worked example (算例：一手血战到底从开局算到流局), played in full.

Seats 0..3 are 甲乙丙丁, in play order; 甲 deals. Rules: preset `xuezhan`.
  1. 乙 摸到第四张 9 筒，暗杠。甲、丙、丁各付 2 分。
  2. 丙 自摸 5 万胡清一色，2 番，基本值 4。甲、乙、丁各付 4 + 1 = 5 分，丙离场。
  3. 之后没人再胡，牌墙摸完。甲 定缺条，手里还压着 5 条、7 条、8 条，是花猪。
     乙 没听牌。丁 是七对，听 4 条。
  4. 查花猪，甲付乙、丙、丁各 16 分。查叫，乙付丁 4 分（七对 2 番）。乙 没听牌，
     把暗杠收的 6 分退回甲、丙、丁各 2 分。 ... 四家合计正好是 0。
The hands are built to be consistent with that story: full 13/14-tile deals,
a 换三张 (each to the next seat), 定缺, and every one of the 55 wall tiles drawn.
"""

from gamekit import f_, faces, located, ok, pays, snapshot
from sichuan import game as G
from sichuan import handlog, presets
from sichuan.settle import (
    CK_HUAZHU,
    CK_NOT_READY,
    CK_READY,
    EV_CHECK,
    EV_HAND_END,
    EV_PROMPT,
    EV_WIN,
    PAY_CHAJIAO,
    PAY_GANG_AN,
    PAY_HUAZHU,
    PAY_TUIGANG,
    PAY_ZIMO,
)

JIA, YI, BING, DING = 0, 1, 2, 3

# Hands after the exchange (甲 holds 14 as dealer).
AFTER = (
    "1156m 7m 3445 7p 5789s",   # 甲: void 条, keeps 5条7条8条, discards 9条 first
    "1357p 999p 444s 169s",     # 乙: void 万, three 9筒 (the fourth comes), not ready
    "1234m 6789m 234m 99m",     # 丙: void 筒, 清一色 waiting 5万 (46 kanchan)
    "1122 66 88p 22 66s 4s",    # 丁: void 万, 七对 waiting 4条
)
GIVES = ("135p", "678m", "112p", "344p")  # seat s gives GIVES[s] to seat s+1


def _counts(text):
    from sichuan import tiles
    return tiles.parse(text)


def _dealt(s):
    c = _counts(AFTER[s])
    for f in faces(GIVES[(s - 1) % 4]):
        c[f] -= 1
    for f in faces(GIVES[s]):
        c[f] += 1
    return c


def _wall():
    """The 55 wall tiles in draw order, as the story needs them."""
    left = bytearray(b"\x04" * 27)
    for s in range(4):
        for f in faces(AFTER[s]):
            left[f] -= 1
    left[f_("9p")] -= 1
    left[f_("5m")] -= 1
    tiao = [f for f in range(18, 27) for _ in range(left[f])]
    other = [f for f in range(18) for _ in range(left[f])]
    assert len(tiao) == 21 and len(other) == 32
    order = [f_("9p"), other.pop(), f_("5m")]  # 乙 draw + replacement, 丙's 5万
    seat = DING
    while tiao or other:
        if seat == JIA:
            order.append(tiao.pop())  # 甲 draws 条 and throws it (void first)
        else:
            order.append(other.pop() if other else tiao.pop())
        seat = (seat + 1) % 4 if seat != YI else DING  # 丁 甲 乙 (丙 has left)
    assert len(order) == 55
    return order


def _play():
    rs = presets.get("xuezhan")
    g = G.Game(rs, dealer=JIA, direction=G.DIR_NEXT)
    log = handlog.Writer(rs.crc(), 4, JIA, G.DIR_NEXT, 0)
    evs = []
    t = [0]

    def do(a):
        t[0] += 1500
        a = (a[0], a[1], a[2], t[0])
        ev = ok(g, a)
        log.record(a, ev)
        evs.extend(ev)
        return ev

    def pass_all():
        while g.phase == G.PH_CLAIM:
            for s in range(4):
                m = g.prompt_mask(s)
                if m:
                    assert m == 2, m  # only 碰 offers: nobody else can win
                    do((G.PASS, s, -1))

    for s in range(4):
        do((G.DEAL, s, _dealt(s)))
    for s in range(4):
        do((G.EXCHANGE, s, faces(GIVES[s])))
    for s in range(4):
        assert bytes(g.hand[s]) == bytes(_counts(AFTER[s])), s
    for s, suit in ((JIA, 2), (YI, 0), (BING, 1), (DING, 0)):
        do((G.DINGQUE, s, suit))
    wall = _wall()
    do((G.DISCARD, JIA, f_("9s")))
    do((G.DRAW, YI, wall.pop(0)))
    do((G.ANGANG, YI, f_("9p")))
    r = wall.pop(0)
    do((G.DRAW, YI, r))
    do((G.DISCARD, YI, r))
    pass_all()
    do((G.DRAW, BING, wall.pop(0)))
    do((G.HU, BING, -1))
    while g.phase != G.PH_END:
        if g.phase == G.PH_DRAW:
            f = wall.pop(0)
            s = g.turn
            do((G.DRAW, s, f))
            do((G.DISCARD, s, f))
        else:
            pass_all()
    assert not wall
    return rs, g, evs, log


def test_worked_example_payments_are_the_seeds():
    rs, g, evs, log = _play()
    P = pays(evs)
    kong = [(p, YI, 2, PAY_GANG_AN) for p in (JIA, BING, DING)]
    zimo = [(p, BING, 5, PAY_ZIMO) for p in (JIA, YI, DING)]
    huazhu = [(JIA, r, 16, PAY_HUAZHU) for r in (YI, BING, DING)]
    chajiao = [(YI, DING, 4, PAY_CHAJIAO)]
    refund = [(YI, p, 2, PAY_TUIGANG) for p in (JIA, BING, DING)]
    assert P == kong + zimo + huazhu + chajiao + refund
    # 乙 "这一手还小赢 7 分"; "四家合计正好是 0"
    assert g.delta == [-53, 7, 31, 15]
    assert sum(g.delta) == 0


def test_worked_example_win_and_checks():
    rs, g, evs, log = _play()
    wins = [e for e in evs if e[0] == EV_WIN]
    assert len(wins) == 1 and wins[0][1] == BING and wins[0][2] == 2  # 清一色 2 番
    assert wins[0][4] == -1 and wins[0][5] == f_("5m")
    checks = [e[1:] for e in evs if e[0] == EV_CHECK]
    assert checks == [(JIA, CK_HUAZHU, -1), (YI, CK_NOT_READY, -1), (DING, CK_READY, 2)]
    end = [e for e in evs if e[0] == EV_HAND_END]
    assert end == [(EV_HAND_END, G.END_WALL, (-53, 7, 31, 15))]
    assert g.wall == 0 and sum(g.seen) == 108
    assert bytes(located(g)) == bytes(g.seen)
    assert any(e[0] == EV_PROMPT for e in evs)  # 碰 offers were passed


def test_worked_example_log_replays():
    rs, g, evs, log = _play()
    g2 = handlog.replay(rs, log.buf)
    assert g2.delta == g.delta and snapshot(g2) == snapshot(g)
    head, recs = handlog.decode(log.buf)
    nact = len([r for r in recs if r[0] == handlog.REC_ACTION])
    # per-action bytes, excluding the 8 deal/exchange records with tile lists
    small = len(log.buf) - handlog.HEADER_LEN
    for r in recs:
        if r[0] == handlog.REC_ACTION and r[1][0] in (G.DEAL, G.EXCHANGE):
            small -= 2 + len(r[1][2]) + 2
        elif r[0] == handlog.REC_PAY:
            small -= 3
    nsmall = nact - 8
    assert small < 8 * nsmall

"""Match.new_game(direction, old): the table builds each hand's Game again in
place (table.controller), so it must be exactly a new Game of that hand."""

from gamekit import play, snapshot
from sichuan import game as G
from sichuan import handlog, presets

# the variants whose games carry the most state: 血流, 宜宾 wilds, 叫马,
# 断卡根 and a three-player table
NAMES = ("xueliu", "yibin", "chengdu_jiaoma", "duankagen", "sanren")


def test_a_game_built_again_in_place_is_a_new_game():
    for name in NAMES:
        rs = presets.get(name)
        m = G.Match(rs)
        old = play(rs, 11)  # a finished hand: every part of the state used
        assert old.phase == G.PH_END
        again = m.new_game(G.DIR_NEXT, old)
        assert again is old
        assert snapshot(again) == snapshot(m.new_game(G.DIR_NEXT)), name


def test_a_hand_played_on_a_reused_game_ends_as_on_a_new_one():
    for name in NAMES:
        rs = presets.get(name)
        m = G.Match(rs)
        first = play(rs, 5)
        reused = play(rs, 6, game=m.new_game(G.DIR_NEXT, first))
        fresh = play(rs, 6)
        assert reused.phase == G.PH_END
        assert snapshot(reused) == snapshot(fresh), name
        assert list(reused.delta) == list(fresh.delta)


def test_a_log_writer_reuses_its_buffer_from_the_start():
    old = bytearray(b"junk left by the last hand" * 40)
    w1 = handlog.Writer(0x12345678, 4, 1, G.DIR_NEXT, 99, old)
    w2 = handlog.Writer(0x12345678, 4, 1, G.DIR_NEXT, 99)
    assert w1.buf is old
    assert bytes(w1.buf) == bytes(w2.buf)
    for a in ((G.DRAW, 1, 5, 150), (G.DISCARD, 1, 7, 900)):
        w1.action(a)
        w2.action(a)
    assert bytes(w1.buf) == bytes(w2.buf)

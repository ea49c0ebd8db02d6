"""Every 下叫 (wait) example of seeds 001 and 003, section 下叫类型, as a test.

Seed 001 = /work/shared/seeds/001_fd02efa51184eb0d.txt (simplified),
seed 003 = /work/shared/seeds/003_83aef70c3fe47f1e.txt (traditional, same
examples). Each test quotes the rule's words. The seed hands are written the
seed's way (ranks then suit word, with spaces) and parsed by sichuan.tiles.

缺门: every example holds only one or two suits, so each one is checked with
void = -1, with each absent suit as the void (same waits), and with a present
suit as the void (no wait: seed 002 "缺门没打完不能胡").

Some examples are a full 13-tile hand, some a fragment (the other groups being
melds); a fragment of 3n+1 tiles is checked as it stands. Two 坎倒板 examples
print 16 tiles (one group too many); those are checked with one group dropped,
each way, and as the bare fragment.
"""

from sichuan import shape, tiles

P = tiles.parse


def _faces(text):
    c = P(text)
    return [f for f in range(27) if c[f]]


def _suits(c):
    return [s for s in range(3) if sum(c[s * 9:s * 9 + 9])]


def _check(hand, expect):
    """waits(hand) == expect with no void and with each absent suit void;
    no waits at all with a present suit void."""
    c = P(hand)
    want = _faces(expect)
    got = shape.waits(c)
    assert got == want, (hand, [tiles.name(f) for f in got], expect)
    present = _suits(c)
    for s in range(3):
        w = shape.waits(c, s)
        if s in present:
            assert w == [], (hand, s, w)
        else:
            assert w == want, (hand, s, w)
    n = tiles.total(c)
    assert n % 3 == 1 and n <= 13, hand
    # every wait really wins, and nothing else does
    for f in range(27):
        if c[f] >= 4:
            continue
        c[f] += 1
        assert shape.is_win(c) == (f in want), (hand, tiles.name(f))
        c[f] -= 1


def test_kazhang():
    """seed 001/003 卡张:
    "一个搭子缺中间一张。如123 46 万 123 66 789条，胡五万。"
    """
    _check("123 46 万 123 66 789条", "5m")
    _check("123 46 萬 123 66 789條", "5m")  # seed 003's traditional characters


def test_liangbiansuo():
    """seed 001/003 两边梭:
    "已有三个搭子和一对将，等第四个搭子。如123 567 万 123 56 99条，胡47条。"
    """
    _check("123 567 万 123 56 99条", "47s")


def test_bianzhang_full_hand():
    """seed 001/003 边张:
    "两边梭，但是由于靠在边上，导致只有一张可胡。...如234 66 789万 123 89条，胡7条。"
    """
    _check("234 66 789万 123 89条", "7s")


def test_bianzhang_fragments():
    """seed 001/003 边张: "如12万胡3万的叫或89万胡7万的叫" (fragments: the other
    groups are melds, a pair completes the 3n+1 tiles)."""
    _check("12万 55筒", "3m")
    _check("89万 55筒", "7m")


def test_liangmian_fragment_seed002():
    """seed 002: "听四五万两头的两面（3 万、6 万最多 8 张）" """
    _check("45万 11筒", "36m")


def test_dandiao():
    """seed 001/003 单钓:
    "已经有四个搭子，等一张做将，如123 456 789万，345 7筒，胡7筒。"
    """
    _check("123 456 789万 345 7筒", "7p")


def test_duichujiao():
    """seed 001/003 对出叫:
    "碰胡，已有三个搭子和两个对子，等第四个搭子。如123 567 万 123 55 99条，胡5条和9条。"
    """
    _check("123 567 万 123 55 99条", "59s")


def test_ganchangjiao_five_tiles():
    """seed 001/003 赶场叫:
    "147,258,369的叫。...5,7,8张连牌可成叫。五张牌如34567万 123 678 99筒，胡258万。"
    """
    _check("34567万 123 678 99筒", "258m")


def test_ganchangjiao_seven_tiles():
    """seed 001/003 赶场叫:
    "七张牌如1234567万 123 789筒，胡147万；2344567万 123 789筒，也胡147万。"
    """
    _check("1234567万 123 789筒", "147m")
    _check("2344567万 123 789筒", "147m")
    _check("2344567萬 123789筒", "147m")  # seed 003 writes "123789筒"


def test_ganchangjiao_eight_tiles():
    """seed 001/003 赶场叫: "8张牌如12345678万，胡369万。" (a fragment of 8; with a
    pair beside it, and as a 13-tile hand)."""
    _check("12345678万 99筒", "369m")
    _check("12345678万 123 99筒", "369m")


def test_kandaoban_adjacent_one():
    """seed 001/003 坎倒板: "三张一样的牌和相邻或相间的一张牌...相邻的一张如：2223 678 789万
    123 456筒，当看作222 3时，单钓3万，看作22 23时，两边梭胡14万，所以胡14万带3万。"
    The printed hand has 16 tiles; checked as the fragment and with one group dropped."""
    _check("2223万", "134m")
    _check("2223 789万 123 456筒", "134m")
    _check("2223 678万 123 456筒", "134m")


def test_kandaoban_gapped_one():
    """seed 001/003 坎倒板: "相间的一张如：2224 678 789万 123 456筒，当看作222 4时，单钓4万，
    看作22 24时，胡卡3万，所以胡3万4万。" (16 tiles printed; as above)"""
    _check("2224万", "34m")
    _check("2224 789万 123 456筒", "34m")
    _check("2224 678万 123 456筒", "34m")


def test_kandaoban_adjacent_two():
    """seed 001/003 坎倒板: "相邻的两张如：22234 77万 123 456筒，当看做222 34 77时，两边梭25万，
    当看做 22 234 77时，对子胡2万7万，所以胡25万带7万。" """
    _check("22234 77万 123 456筒", "257m")


def test_kandaoban_ganchang_four_waits():
    """seed 001/003 坎倒板赶场叫: "当两个下叫宽的牌型遇到一起时，下的叫就可以胡非常多的牌。
    如：11123456万 123 55筒，胡147万带5筒。" """
    _check("11123456万 123 55筒", "147m5p")


def test_kandaoban_ganchang_six_waits():
    """seed 001/003 坎倒板赶场叫:
    "又如，1112345678万 123筒，胡258带369万"
    """
    _check("1112345678万 123筒", "235689m")


def test_jiulian_all_nine_each_suit():
    """seed 001/003 坎倒板赶场叫:
    "最特殊的是1112345678999万（筒、条），胡123456789万（筒、条）"
    """
    _check("1112345678999万", "123456789m")
    _check("1112345678999筒", "123456789p")
    _check("1112345678999条", "123456789s")


def test_qidui_wait_with_four_seed002():
    """seed 002 (picture caption): "七对听 8 筒，四张 5 筒拆成两对" """
    _check("5555筒 11 33 77 99万 8筒", "8p")


def test_fifth_copy_is_no_wait():
    """Issue 2: "A wait that needs a fifth copy is not a wait." rules-notes: "A wait
    on a fifth copy does not exist." The 单钓 of seed 001 with 7筒 also 碰'd: the
    concealed 7p is the fourth copy."""
    c = P("123 456 789万 7筒")
    assert shape.waits(c) == _faces("7p")
    lim = bytearray(27)
    lim[tiles.parse_tile("7p")] = 3  # 碰 of 7p
    assert shape.waits(c, -1, lim) == []
    assert shape.waits(c, 2, lim) == []


def test_dead_wait_is_still_a_wait_seed002():
    """seed 002: "本站只看牌形，听的那几张就算已经全被打出来、碰走了，也算听牌" -- copies
    out of the hand (discarded, or in others' melds) do not remove a wait; only
    the hand's own copies do (limit)."""
    c = P("46万 66条")  # the 卡张 fragment; three melds, one of them 碰 5万
    lim = bytearray(27)
    lim[tiles.parse_tile("5m")] = 3  # the fourth 5m is still to come: a wait
    assert shape.waits(c, -1, lim) == _faces("5m")

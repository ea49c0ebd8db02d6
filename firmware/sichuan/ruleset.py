"""Rulesets: a fixed, versioned list of integer parameters, a name and a CRC.

A ruleset in RAM is a `Ruleset`: `rs[P_CAP]` reads parameter P_CAP. Its
blob (what the table stores and the host pushes) is:

    b"SR" | format version (1 byte) | name length (1) | name (UTF-8)
    | parameter count (1) | values (int16 little-endian each)
    [format 3 only: house pattern count (1) | program length (2, LE) |
     program | names length (2, LE) | names]  | CRC32 (4, LE)

The CRC32 covers everything before it. A blob with a bad CRC, an unknown
version, a wrong count or a value out of range is refused with the reason.
A ruleset with no house patterns is written as format 2, byte for byte as
before they existed (its CRC, the id logs record, is unchanged); one with
house patterns (sichuan.pattern, docs/patterns.md) as format 3, which a
table whose firmware predates them refuses as an unknown version. The
program is the patterns' integer form; names holds, per pattern, its id
and its name, each as a length byte and UTF-8 (the host shows them; the
board only carries them).

Fan values are doublings (log2 of the multiplier): the base a discarder pays
is 2**min(fan, cap). A rule text that counts from 1 (1番 = x1) keeps its own
numbers on screen through P_FAN_SHOWN_OFFSET. NONE (-1) marks a pattern a
ruleset does not have.
"""

import struct
from binascii import crc32

from micropython import const

FORMAT_VERSION = const(2)  # 2: the 断卡根 parameters after jgd_absorbs_dd
HOUSE_VERSION = const(3)   # 3: format 2 and house patterns
NONE = const(-1)
AT_CAP = const(63)  # a fan value meaning "the cap itself" (满格)

# Pattern ids: stable, in this order (they name the P_FAN_* parameters too).
PATTERNS = (
    "pinghu", "duiduihu", "qidui", "longqidui", "qingyise", "jingoudiao",
    "daiyaojiu", "jiangdui", "qingdui", "qingqidui", "qinglongqidui",
    "qingdaiyao", "qingjingoudiao", "menqing", "duanyaojiu", "gen",
    "gangshanghua", "gangshangpao", "qiangganghu", "haidi", "juezhang",
    "tianhu", "dihu", "zimo",
)
NPATTERNS = const(24)
PINGHU = const(0)
DUIDUIHU = const(1)
QIDUI = const(2)
LONGQIDUI = const(3)
QINGYISE = const(4)
JINGOUDIAO = const(5)
DAIYAOJIU = const(6)
JIANGDUI = const(7)
QINGDUI = const(8)
QINGQIDUI = const(9)
QINGLONGQIDUI = const(10)
QINGDAIYAO = const(11)
QINGJINGOUDIAO = const(12)
MENQING = const(13)
DUANYAOJIU = const(14)
GEN = const(15)
GANGSHANGHUA = const(16)
GANGSHANGPAO = const(17)
QIANGGANGHU = const(18)
HAIDI = const(19)
JUEZHANG = const(20)
TIANHU = const(21)
DIHU = const(22)
ZIMO = const(23)

# Parameters: (name, min, max, default). Defaults are the `xuezhan` preset
# (seed 002). The id of a parameter is its index; P_FAN0 + pattern id is the
# fan value of a pattern. Never reorder: append and bump FORMAT_VERSION.
_SPEC = (
    # "name min max default", one parameter a line, in id order
    # -- the table and the deal
    "players 2 5 4\n"                 # seats that play
    "suits 1 7 7\n"                   # bitmask of suits in play: 1 m, 2 p, 4 s
    "hand_size 7 13 13\n"             # tiles dealt to a non-dealer
    "mode 0 1 0\n"                    # 0 血战到底, 1 血流成河
    "xueliu_lock 0 1 1\n"             # 血流: hand locked after the first win (seed 002)
    "huansanzhang 0 1 1\n"            # 换三张
    "hsz_dirs 1 7 7\n"                # allowed directions: 1 clockwise, 2 counter, 4 across
    "dingque 0 2 1\n"                 # 0 no void (断卡根), 1 定缺 declared, 2 缺一门 undeclared
                                      #   (a win lacks some suit; 花猪 holds all three)
    # -- scoring
    "fan_shown_offset 0 1 0\n"        # shown fan = doublings + offset (1: 平胡 is 1番)
    "cap -1 15 4\n"                   # 封顶 in doublings; -1 no cap
    "zimo_bonus 0 1 1\n"              # 自摸加底: each payer adds this (加番 is fan.zimo)
    "base_points 1 1000 1\n"          # 底分: points per unit
    "gen_in_longqidui 0 1 1\n"        # 1: the four in 龙七对 also counts as 根
    "tianhu_alone 0 1 0\n"            # 1: 天胡/地胡 do not combine with other patterns
    "menqing_zimo_only 0 1 0\n"       # 门清 only on a self-draw (seed 000 成都)
    # -- kongs (刮风下雨)
    "gang_zhi 0 32 2\n"               # 直杠: the discarder pays
    "gang_zhi_others 0 32 0\n"        # 毛毛雨: each other payer also pays
    "gang_bu 0 32 1\n"                # 补杠: each payer pays
    "gang_an 0 32 2\n"                # 暗杠: each payer pays
    "bugang_when 0 2 0\n"             # 0 any time, 1 late 补杠 earns nothing, 2 late 补杠 illegal
    "gang_payers 0 2 0\n"             # who pays kongs and self-draws: 0 players still in the
                                      #   hand, 1 all other seats, 2 those who have not won
    "zhuanyi 0 3 0\n"                 # 呼叫转移: 0 off, 1 each winner gets it all, 2 ceil split
                                      #   (discarder pays rounding), 3 even split
    "zhuanyi_chain 0 1 0\n"           # chained kongs transfer together
    "diangang_hua 0 2 0\n"            # 点杠花: 0 self-draw, 1 the kong giver pays for all, 2 a
                                      #   discard win on the giver
    "qianggang 0 1 1\n"               # 抢杠胡 allowed on a 补杠
    "haidi_gang 0 1 0\n"              # the last tile may be konged
    "gang_no_fan 0 1 0\n"             # 杠进不杠出: kongs earn no money (宜宾)
    # -- claims and passes
    "guoshou 0 3 0\n"                 # 过手胡: 0 none, 1 same tile, 2 same or lower fan, 3 any
                                      #   tile, each until the player's next draw
    "last4_forced 0 1 0\n"            # 最后四张必胡
    # -- end of the hand (流局)
    "huazhu -1 999 16\n"              # 查花猪: paid to each payee; -1 the cap value, 0 off
    "huazhu_payees 0 1 0\n"           # 0 every non-花猪 (winners too), 1 only those still in
    "chajiao 0 2 1\n"                 # 查大叫: 0 off, 1 pay the largest value, 2 the smallest
    "sijiao 0 1 1\n"                  # 死叫 counts as ready
    "tuigang 0 1 1\n"                 # 退杠钱 by a player not ready
    "tuigang_first 0 1 0\n"           # refund before the 查叫 payments (T/TFMJ order)
    "huazhu_chajiao 0 1 0\n"          # a 花猪 also pays 查叫 to ready players
    # -- the match
    "dealer_next 0 4 0\n"             # 0 first winner (multi-win: discarder), 1 discarder, self-
                                      #   draw or 流局 keeps, 2 rotate, 3 keep always, 4 drawn at
                                      #   random by the table each hand
    "hands 1 99 8\n"                  # hands per match
    "start_points -999 9999 100\n"
    "max_winners 1 4 3\n"             # 血战: the hand ends at this many winners
    # -- variants (issue 6; defined now so the format stays)
    "tingyong 0 8 0\n"                # 宜宾 听用 wild tiles: how many faces' copies (0 off)
    "benjin_fan -1 15 -1\n"           # 宜宾 本金
    "wu_tingyong_fan -1 15 -1\n"      # 宜宾 无听用
    "baohu 0 2 0\n"                   # 断卡根 报胡; 2 二合一: four pairs (a 请胡 wait) may
                                      #   报胡 too, and a 报胡 seat may 请胡
    "baohu_fan -1 15 -1\n"
    "qinghu 0 1 0\n"                  # 断卡根 请胡
    "xiaohu 0 2 1\n"                  # 小胡 (no-fan win): 0 no, 1 allowed, 2 as 0 but a self-
                                      #   draw while a seat is 报胡 (only 报胡 seats pay)
    "ka_fan -1 15 -1\n"               # 断卡根 卡: each 456 run held at a self-draw
    "yingka_fan -1 15 -1\n"           # 断卡根 硬卡
    "jiaoma 0 1 0\n"                  # 叫马
    # -- scoring, continued
    "jgd_absorbs_dd 0 1 0\n"          # 金钩钓 replaces 对对胡 instead of adding to it
    # -- 断卡根 (issue 6)
    "haidi_claim 0 1 1\n"             # the last tile's discard may be claimed (碰/杠); 0:
                                      #   "海底牌不能碰杠"
    "qinghupao_fan -1 15 -1\n"        # 请胡炮: winning on another's 请胡 discard adds this
    "baohu_pay_fan 0 15 0\n"          # a 报胡 seat that pays before it won adds this much fan
    "zimo_payers 0 3 3\n"             # who pays a self-draw: 0..2 as gang_payers, 3 the same
                                      #   seats as gang_payers
    # -- 宜宾 (issue 6)
    "guopeng 0 1 0\n"                 # 过碰不碰: a passed 碰 of a face, not again until one's
                                      #   draw
    "peng_no_kong 0 1 0\n"            # 碰后不准立即杠牌: no kong in the turn of a 碰
)

# Fan values of the patterns, appended after _SPEC (doublings).
_FAN_DEFAULTS = (
    0, 1, 2, NONE, 2, 1, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
    1, 1, NONE, 1, 1, NONE, NONE, NONE, NONE,
)

P_PLAYERS = const(0)
P_SUITS = const(1)
P_HAND_SIZE = const(2)
P_MODE = const(3)
P_XUELIU_LOCK = const(4)
P_HUANSANZHANG = const(5)
P_HSZ_DIRS = const(6)
P_DINGQUE = const(7)
P_FAN_SHOWN_OFFSET = const(8)
P_CAP = const(9)
P_ZIMO_BONUS = const(10)
P_BASE_POINTS = const(11)
P_GEN_IN_LONGQIDUI = const(12)
P_TIANHU_ALONE = const(13)
P_MENQING_ZIMO_ONLY = const(14)
P_GANG_ZHI = const(15)
P_GANG_ZHI_OTHERS = const(16)
P_GANG_BU = const(17)
P_GANG_AN = const(18)
P_BUGANG_WHEN = const(19)
P_GANG_PAYERS = const(20)
P_ZHUANYI = const(21)
P_ZHUANYI_CHAIN = const(22)
P_DIANGANG_HUA = const(23)
P_QIANGGANG = const(24)
P_HAIDI_GANG = const(25)
P_GANG_NO_FAN = const(26)
P_GUOSHOU = const(27)
P_LAST4_FORCED = const(28)
P_HUAZHU = const(29)
P_HUAZHU_PAYEES = const(30)
P_CHAJIAO = const(31)
P_SIJIAO = const(32)
P_TUIGANG = const(33)
P_TUIGANG_FIRST = const(34)
P_HUAZHU_CHAJIAO = const(35)
P_DEALER_NEXT = const(36)
P_HANDS = const(37)
P_START_POINTS = const(38)
P_MAX_WINNERS = const(39)
P_TINGYONG = const(40)
P_BENJIN_FAN = const(41)
P_WU_TINGYONG_FAN = const(42)
P_BAOHU = const(43)
P_BAOHU_FAN = const(44)
P_QINGHU = const(45)
P_XIAOHU = const(46)
P_KA_FAN = const(47)
P_YINGKA_FAN = const(48)
P_JIAOMA = const(49)
P_JGD_ABSORBS_DD = const(50)
P_HAIDI_CLAIM = const(51)
P_QINGHUPAO_FAN = const(52)
P_BAOHU_PAY_FAN = const(53)
P_ZIMO_PAYERS = const(54)
P_GUOPENG = const(55)
P_PENG_NO_KONG = const(56)
P_FAN0 = const(57)
NPARAMS = const(81)  # P_FAN0 + NPATTERNS

MODE_XUEZHAN = const(0)
MODE_XUELIU = const(1)


def _rows():
    """(pid, name, min, max, default) of each parameter before the fan values.

    Parsed from _SPEC as needed: the table stays text in flash and costs no
    heap (rulesets are checked at boot and when pushed, never in play)."""
    pid = 0
    for line in _SPEC.split("\n"):
        f = line.split("#", 1)[0].split()
        if f:
            yield pid, f[0], int(f[1]), int(f[2]), int(f[3])
            pid += 1


def _row(pid):
    for row in _rows():
        if row[0] == pid:
            return row
    raise IndexError("no parameter %d" % pid)


def param_name(pid):
    """`cap` for P_CAP; `fan.qingyise` for P_FAN0 + QINGYISE."""
    if pid >= P_FAN0:
        return "fan." + PATTERNS[pid - P_FAN0]
    return _row(pid)[1]


def param_id(name):
    """Parameter id of a name (`cap`, `fan.qingyise`); KeyError names it."""
    if name.startswith("fan."):
        pat = name[4:]
        for i in range(NPATTERNS):
            if PATTERNS[i] == pat:
                return P_FAN0 + i
    else:
        for row in _rows():
            if row[1] == name:
                return row[0]
    raise KeyError("unknown ruleset parameter %r" % name)


def bounds(pid):
    """(min, max) of a parameter."""
    if pid >= P_FAN0:
        return (NONE, AT_CAP)
    row = _row(pid)
    return (row[2], row[3])


def default(pid):
    if pid >= P_FAN0:
        return _FAN_DEFAULTS[pid - P_FAN0]
    return _row(pid)[4]


def _in_range(name, v, lo, hi):
    if v < lo or v > hi:
        raise ValueError("%s = %d is out of range %d..%d" % (name, v, lo, hi))


class Ruleset:
    """A named, validated list of NPARAMS integers; index it with P_* ids."""

    def __init__(self, name="xuezhan", values=None, house=(0, b"", b"")):
        self.name = name
        if values is None:
            values = [row[4] for row in _rows()] + list(_FAN_DEFAULTS)
        self.values = list(values)
        self.check()
        self.set_house(*house)

    def set_house(self, n, prog, names):
        """Give the ruleset n house patterns: their program and names
        (sichuan.pattern); ValueError if they are not ones the core can score."""
        self.house_n = n
        self.house_prog = prog
        self.house_names = names
        self.house = None  # the scoring module, while there are patterns
        if n:
            # imported by the first ruleset that has house patterns (a table
            # that has none holds none of it), as game imports wild
            from . import pattern

            pattern.check(prog, n, names)
            self.house = pattern

    def __getitem__(self, pid):
        return self.values[pid]

    def set(self, pid, value):
        """Set one parameter; ValueError (naming it) if out of range."""
        lo, hi = bounds(pid)
        if not isinstance(value, int) or value < lo or value > hi:
            raise ValueError("%s = %r is out of range %d..%d" % (param_name(pid), value, lo, hi))
        self.values[pid] = value

    def fan(self, pattern):
        """Fan value (doublings) of a pattern id, NONE if the ruleset lacks it."""
        return self.values[P_FAN0 + pattern]

    def check(self):
        if len(self.values) != NPARAMS:
            raise ValueError("ruleset has %d parameters, expected %d" % (len(self.values), NPARAMS))
        for pid, name, lo, hi, _ in _rows():
            _in_range(name, self.values[pid], lo, hi)
        for i in range(NPATTERNS):
            _in_range("fan." + PATTERNS[i], self.values[P_FAN0 + i], NONE, AT_CAP)
        nb = len(self.name.encode())
        if nb == 0 or nb > 32:
            raise ValueError("ruleset name must be 1..32 bytes")

    def copy(self, name=None):
        return Ruleset(self.name if name is None else name, self.values,
                       (self.house_n, self.house_prog, self.house_names))

    def to_blob(self):
        name = self.name.encode()
        version = HOUSE_VERSION if self.house else FORMAT_VERSION
        head = b"SR" + bytes((version, len(name))) + name + bytes((NPARAMS,))
        body = head + struct.pack("<%dh" % NPARAMS, *self.values)
        if self.house:
            body += self.house.section(self)
        return body + struct.pack("<I", crc32(body) & 0xFFFFFFFF)

    def crc(self):
        """CRC32 of the blob: the id a log records for the ruleset in force."""
        return struct.unpack("<I", self.to_blob()[-4:])[0]

    def __eq__(self, other):
        if not isinstance(other, Ruleset):
            return False
        return (self.name == other.name and self.values == other.values
                and self.house_prog == other.house_prog and self.house_names == other.house_names)


def from_blob(blob):
    """Ruleset of a blob; ValueError with the reason if it is not acceptable."""
    blob = bytes(blob)
    if len(blob) < 9:
        raise ValueError("ruleset blob too short (%d bytes)" % len(blob))
    body, tail = blob[:-4], blob[-4:]
    if struct.unpack("<I", tail)[0] != crc32(body) & 0xFFFFFFFF:
        raise ValueError("ruleset blob CRC mismatch")
    if body[:2] != b"SR":
        raise ValueError("not a ruleset blob (bad magic)")
    version = body[2]
    if version != FORMAT_VERSION and version != HOUSE_VERSION:
        raise ValueError("unknown ruleset format version %d" % version)
    n = body[3]
    if 4 + n + 1 > len(body):
        raise ValueError("ruleset blob name overruns the blob")
    try:
        name = body[4 : 4 + n].decode()
    except UnicodeError:
        raise ValueError("ruleset name is not UTF-8") from None
    count = body[4 + n]
    if count != NPARAMS:
        raise ValueError("ruleset blob has %d parameters, expected %d" % (count, NPARAMS))
    end = 5 + n + 2 * NPARAMS
    house = (0, b"", b"")
    if version == HOUSE_VERSION:
        from . import pattern

        house = pattern.unpack(body, end)
    elif len(body) != end:
        raise ValueError("ruleset blob length %d is wrong" % len(blob))
    values = struct.unpack("<%dh" % NPARAMS, body[5 + n : end])
    return Ruleset(name, values, house)


def tiles_in_play(rs):
    """Tiles of the set: 36 per suit in play (108, or 72 without one suit)."""
    m = rs[P_SUITS]
    return 36 * ((m & 1) + (m >> 1 & 1) + (m >> 2 & 1))


def playable(rs):
    """(True, "") if a hand can be dealt and played under rs at all, else
    (False, reason). The host checks it for every command that reads a
    ruleset; table_can_run starts with it, so the words are the same."""
    dealt = rs[P_PLAYERS] * rs[P_HAND_SIZE] + 1 + rs[P_JIAOMA]
    tiles = tiles_in_play(rs)
    if dealt > tiles:
        return False, "the deal needs %d tiles but only %d are in play" % (dealt, tiles)
    if rs[P_HUANSANZHANG] and rs[P_HSZ_DIRS] == 4 and rs[P_PLAYERS] != 4:
        return False, "hsz_dirs = 4: 换三张 across needs 4 players, not %d" % rs[P_PLAYERS]
    return True, ""


def table_can_run(rs, seats=4, shows_wild=False):
    """(True, "") if a table can run ruleset rs, else (False, reason).

    seats: the seats the table has (4 for the reference table; 叫马 needs no
    seat); shows_wild: the table can show which faces are 听用 (宜宾 wild
    tiles). The controller calls this before it accepts a ruleset and the
    host's `rules push` before it sends one, so both refuse with the same words.
    """
    n = rs[P_PLAYERS]
    if n > seats:
        return False, "players = %d but the table has %d seats" % (n, seats)
    if rs[P_TINGYONG] and not shows_wild:
        return False, "tingyong = %d: this table cannot show the 听用 wild tiles" % rs[P_TINGYONG]
    return playable(rs)

"""Names and texts of the rules core's codes, for people and for JSON.

The core (firmware/sichuan) carries codes only: on the board every byte of
.mpy counts and the table shows alert codes (table.alerts), not these texts.
Index each tuple by its code; tests/host/test_names.py checks the lengths
against the core's last code.
"""

# Seats as every command prints them: the table's own seat names (its seat
# labels are 东南西北); scripts also take 甲乙丙丁, E S W N, 东南西北 and 1-4.
SEAT_NAMES = ("East", "South", "West", "North", "Fifth")


def seat_name(s):
    """The name of seat s (0-based) in output."""
    return SEAT_NAMES[s] if 0 <= s < len(SEAT_NAMES) else "seat %d" % (s + 1)


# sichuan.game action kinds (16 is the hand log's payment tag, not an action).
ACTION_NAMES = ("deal", "exchange", "dingque", "draw", "discard", "peng", "zhigang",
                "bugang", "angang", "hu", "pass", "ma", "baohu", "qinghu", "benjin", "fei",
                "", "ti")

# sichuan.game phases.
PHASE_NAMES = ("deal", "exchange", "dingque", "draw", "discard", "claim", "rob", "end")

# sichuan.meld kinds.
KIND_NAMES = ("peng", "zhigang", "bugang", "angang")

# sichuan.settle event kinds and pay reasons.
EVENT_NAMES = ("accepted", "refused", "pay", "prompt", "win", "hand_end", "phase",
               "exchanged", "voids", "check", "ma")
PAY_NAMES = ("gang_zhi", "gang_maomao", "gang_bu", "gang_an", "dianpao", "zimo",
             "qianggang", "bao", "zhuanyi", "huazhu", "chajiao", "tuigang")
PAY_ZH = ("直杠", "毛毛雨", "补杠 刮风", "暗杠 下雨", "点炮", "自摸", "抢杠胡", "点杠花 包",
          "呼叫转移", "查花猪", "查叫", "退杠钱")

# sichuan.settle EV_CHECK statuses (流局): JSON names and 汉字.
CHECK_NAMES = ("ready", "not_ready", "huazhu")
CHECK_ZH = ("听牌", "没叫", "花猪")

# sichuan.fan win flags, bit i: the JSON name and the 汉字.
WIN_FLAGS = (("zimo", "自摸"), ("gangshanghua", "杠上花"), ("gangshangpao", "杠上炮"),
             ("qiangganghu", "抢杠胡"), ("haidi", "海底"), ("juezhang", "绝张"),
             ("tianhu", "天胡"), ("dihu", "地胡"), ("baohu", "报胡"), ("qinghu", "请胡"),
             ("qinghupao", "请胡炮"), ("benjin", "本金"), ("nowild", "无听用"))


def flags_of(flags, zh=False):
    """The names (zh: the 汉字) of the win flags set in `flags`."""
    return [w[1 if zh else 0] for i, w in enumerate(WIN_FLAGS) if flags >> i & 1]


# sichuan.claims refusal reasons: display text and stable keys.
REASONS = (
    "ok", "not your turn", "must discard the void suit first",
    "cannot claim while holding the void suit", "not a win", "tile not held",
    "not now (wrong phase)", "passed win: not until your next draw (过手胡)",
    "hand locked after a win (血流)", "no tiles left in the wall",
    "a fifth copy of that tile", "no such seat", "no such tile",
    "wrong number of tiles", "the three tiles must be one suit",
    "already done", "nothing to claim", "must win in the last four tiles",
    "no such suit", "seat has left the hand",
    "补杠 only with the tile just drawn", "cannot meld the void suit",
    "unknown action", "the hand is over", "小胡 (a win with no fan) cannot win here",
    "the hand must be ready (报胡 / 请胡)", "a 听用 wild tile cannot be discarded or melded",
)
REASON_KEYS = (
    "OK", "NOT_YOUR_TURN", "MUST_DISCARD_VOID", "VOID_HELD_NO_CLAIM", "NOT_A_WIN",
    "NOT_HELD", "BAD_PHASE", "GUOSHOU", "LOCKED", "NO_TILES_LEFT", "FIFTH_COPY",
    "BAD_SEAT", "BAD_TILE", "BAD_COUNT", "NOT_ONE_SUIT", "ALREADY_DONE", "NO_CLAIM",
    "MUST_WIN", "BAD_SUIT", "HAS_LEFT", "BUGANG_LATE", "VOID_TILE", "BAD_ACTION",
    "HAND_OVER", "XIAOHU", "NOT_READY", "WILD_TILE",
)


# table.alerts codes (the firmware's own NAMES; tests/host/test_names.py checks
# they are the same): what a seat's display shows, by name.
ALERT_NAMES = ("none", "void-suit discard", "out of turn", "unknown tag", "tile in two places",
               "fifth copy", "wrong tile count", "claim refused", "flash full", "reader fault",
               "keys fault", "display fault", "RF field fault")


# the patterns' Chinese names, in sichuan.ruleset.PATTERNS order
PATTERN_ZH = (
    "平胡", "对对胡", "七对", "龙七对", "清一色", "金钩钓", "带幺九", "将对", "清对",
    "清七对", "清龙七对", "清带幺", "清金钩钓", "门清", "断幺九", "根", "杠上花",
    "杠上炮", "抢杠胡", "海底", "绝张", "天胡", "地胡", "自摸",
)

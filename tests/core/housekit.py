"""House patterns in the core's integer form, for the dual-interpreter tests.

MicroPython reads no TOML: the five example files of examples/rules/house/
are written here as the rulesets their compiled blobs are (the program of
sichuan.pattern, conditions in the compiler's order: sorted), and
tests/host/test_housepat.py checks that each file compiles to exactly this.
"""

from sichuan import pattern as P
from sichuan import presets
from sichuan import ruleset as R


def pattern(value, conds, absorbs=0, house=0, pinghu=True):
    """One pattern's program bytes; conds: (part, op, a, b) tuples; pinghu:
    it ends 平胡 (the compiler's default for all but parts of how the win
    came and of fours)."""
    if pinghu:
        absorbs |= 1 << R.PINGHU
    out = bytes((value, len(conds), absorbs & 255, absorbs >> 8 & 255, absorbs >> 16, house))
    for c in sorted(conds):
        out += bytes(c)
    return out


def names(*pairs):
    out = b""
    for pid, name in pairs:
        for text in (pid, name):
            b = text.encode()
            out += bytes((len(b),)) + b
    return out


def ruleset(name, pats, ids, base="xuezhan", **params):
    """A ruleset on `base` with these params (by name) and house patterns."""
    rs = presets.get(base).copy(name)
    for k, v in params.items():
        rs.set(R.param_id(k.replace("__", ".")), v)
    prog = b""
    for p in pats:
        prog += p
    rs.set_house(len(pats), prog, names(*ids))
    return rs


def ranks(text):
    """The rank bits of "258" (rank r is bit r - 1)."""
    m = 0
    for c in text:
        m |= 1 << (int(c) - 1)
    return m


def yitiaolong():
    return ruleset("yitiaolong", [pattern(1, [(P.STRAIGHT, P.RANGE, 1, 1)])],
                   [("yitiaolong", "一条龙")])


def jiaxinwu():
    mid = P.W_MIDDLE
    return ruleset("jiaxinwu", [pattern(1, [(P.WIN_RANK, P.ANY, ranks("5"), 0),
                                            (P.ROLE, P.ANY, mid, 0),
                                            (P.ROLE, P.NONE, 31 & ~mid, 0)])],
                   [("jiaxinwu", "夹心五")])


def haidilaoyue():
    from sichuan import fan

    return ruleset("haidilaoyue", [pattern(1, [(P.HOW, P.ALL, fan.ZIMO | fan.HAIDI, 0)],
                                           pinghu=False)],
                   [("haidilaoyue", "海底捞月")])


def duanyao_menqing():
    """The built-ins 门清 and 断幺九 as house patterns, which replace them."""
    notes = 511 & ~ranks("2345678")
    return ruleset("duanyao-menqing", [
        pattern(1, [(P.SHOWN, P.RANGE, 0, 0), (P.READING, P.ANY, P.R_GROUPS, 0)]),
        pattern(1, [(P.H_RANKS, P.NONE, notes & 255, notes >> 8),
                    (P.COUNTED, 0, R.JIANGDUI, 0)]),
    ], [("menqing", "门清"), ("duanyaojiu", "断幺九")], cap=5, base_points=2,
        fan__menqing=R.NONE, fan__duanyaojiu=R.NONE)


def menqing_duanyao():
    """examples/rules/menqing-duanyao.toml: the same house with the built-ins."""
    rs = presets.get("xuezhan").copy("menqing-duanyao")
    for k, v in (("cap", 5), ("base_points", 2), ("fan.menqing", 1), ("fan.duanyaojiu", 1)):
        rs.set(R.param_id(k), v)
    return rs


def sanyuan_free():
    edge = P.W_EDGE
    return ruleset("sanyuan-free", [pattern(1, [(P.WAITS, P.RANGE, 1, 1),
                                                (P.ROLE, P.ANY, edge, 0),
                                                (P.ROLE, P.NONE, 31 & ~edge, 0)])],
                   [("bianzhang", "边张")])


EXAMPLES = (("yitiaolong", yitiaolong), ("jiaxinwu", jiaxinwu),
            ("haidilaoyue", haidilaoyue), ("duanyao-menqing", duanyao_menqing),
            ("sanyuan-free", sanyuan_free))

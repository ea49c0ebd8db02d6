"""`mjtable rules show|compile|push|pull`: rulesets, and the table's.

    mjtable rules show PRESET|FILE           every parameter with its meaning
    mjtable rules compile FILE.toml -o OUT.bin
    mjtable rules push PRESET|FILE [--port P] [--key HEX] [--wait S]
    mjtable rules pull [-o OUT.bin] [--port P]
Pushing needs the table key (see mjtable.link.port).
"""

import argparse

from sichuan import ruleset

from mjtable import BadInput, seconds, write_file
from mjtable.link import port as findport
from mjtable.rules import housepat, paramdoc, rulefile
from mjtable.rules.names import PATTERN_ZH
from mjtable.tableops import rules as tablerules

# `mjtable rules --help`: a rule file and its house patterns (docs/patterns.md)
EPILOG = """\
A rule file (TOML) starts from a preset and changes parameters by name
(`mjtable rules show PRESET` lists them):

    base = "xuezhan"        # required: the preset (or rule file) to start from
    name = "friday"         # optional: the ruleset's name (default: the file's)
    cap = 5                 # 封顶 in doublings; "none" for no cap
    [fan]
    menqing = 1             # a built-in pattern's doublings; "none", "cap" (满格)

and may define house patterns of its own, up to 8, each a table:

    [pattern.yitiaolong]    # its id (calc's JSON names it so)
    name = "一条龙"          # what the tools show (default: the id)
    fan = 1                 # the doublings it adds, 0..15, or "cap"
    straight = true         # 123 456 789 of one suit, as three runs

A pattern counts when every part it names holds (up to 8 parts):
  the tiles   hand.suits = 1          how many suits (1 is 清一色; "1..2", "2+")
              hand.ranks = "2-8"      every tile one of these ranks (断幺九)
              hand.has = "19"         some tile one of these ranks
              hand.fours = "1+"       faces held four times (根)
              concealed.suits, concealed.ranks, concealed.has: of the tiles in hand
              straight = true         123 456 789 of one suit as runs (一条龙)
              terminals = true        every group and the pair hold a 1 or 9 (带幺九)
  the reading reading = "对对"         对对 pungs, 顺子 runs, 七对 pairs, 搭子 groups
              pair = "258"            the pair (将) is one of these ranks
  the melds   melds.peng = 0          also minggang (直杠, 补杠), angang, gang, all,
              melds.shown = 0         shown (碰 and 明杠: 门清)
  the win     win.rank = 5            the winning tile's rank
              win.as = "卡张"          卡张 middle, 边张 edge, 两边 open, 单钓 single,
                                      对出 (a pung of a pair); a list: any of them
              win.only = true         ... and it plays no other role
              win.waits = 1           the hand waited on this many tiles
              win.by = ["自摸", "海底"] all of: 自摸 点炮 杠上花 杠上炮 抢杠 海底 绝张
                                      天胡 地胡; "not 海底" for not
  others      absorbs = ["gen"]       these do not count when it does
              absorbed_by = "qingyise"  it does not count when that does
A pattern named as a built-in (`[pattern.menqing]`) replaces it. A pattern
that can never count, contradicts itself or asks too much is refused, naming
its line; one above the cap, or that the cap makes worthless, is a warning.
Examples: examples/rules/house/*.toml; the guide: docs/patterns.md.
"""


def add_parsers(sub):
    p = sub.add_parser("rules", help="show or compile rulesets",
                       description="Show a ruleset or compile a rule file to a blob.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION")
    rsub.required = True
    s = rsub.add_parser("show", help="the whole ruleset as a readable table")
    s.add_argument("spec", metavar="PRESET|FILE",
                   help="preset name, .toml rule file or compiled blob")
    s.set_defaults(func=show)
    c = rsub.add_parser("compile", help="compile a .toml rule file into a ruleset blob")
    c.add_argument("spec", metavar="FILE.toml", help="rule file (or a preset name)")
    c.add_argument("-o", "--output", metavar="OUT.bin", required=True, help="blob to write")
    c.set_defaults(func=compile_)
    u = rsub.add_parser("push", help="send a ruleset to the table (activated when whole and valid)")
    u.add_argument("spec", metavar="PRESET|FILE", help="preset, .toml rule file or blob")
    findport.add_arguments(u)
    u.add_argument("--wait", type=seconds, default=60.0,
                   help="seconds to wait for a hand in play to end (default 60)")
    u.set_defaults(func=push)
    q = rsub.add_parser("pull", help="read the table's active ruleset")
    findport.add_arguments(q, key=False)
    q.add_argument("-o", "--output", metavar="OUT.bin", help="write the blob here")
    q.set_defaults(func=pull)


def _meaning(name, v):
    """The parameter's meaning, and what its current value selects if it names a mode."""
    doc = paramdoc.PARAM_DOC.get(name, "")
    chosen = paramdoc.VALUE_DOC.get(name, {}).get(v)
    return "%s: %s" % (doc, chosen) if chosen else doc


# Patterns before this id are hand shapes (the hand's own fan, shown with the
# offset: 平胡 1番 in 成都 counting); from it on they add doublings (根 +1).
_FIRST_ADDON = ruleset.MENQING


def _fan_cells(rs, pattern):
    """(doublings, shown fan, multiplier) cells of a pattern's value."""
    v = rs.fan(pattern)
    if v == ruleset.NONE:
        return ("-", "-", "not in this ruleset")
    if v == ruleset.AT_CAP:
        return ("cap", "cap", "满格: the cap itself")
    if pattern >= _FIRST_ADDON:
        return (str(v), "+%d" % v, "x%d" % (1 << v))
    return (str(v), str(v + rs[ruleset.P_FAN_SHOWN_OFFSET]), "x%d" % (1 << v))


def show_text(rs, base=None):
    """The readable table of a ruleset (what `rules show` prints).

    base: the preset a rule file starts from; values that differ get a `*`.
    """
    blob = rs.to_blob()
    out = [
        "ruleset  %s" % rs.name,
        "CRC      %08X  (blob %d bytes, format %d)" % (rs.crc(), len(blob), blob[2]),
    ]
    if base is not None:
        out.append("base     %s  (* marks a value the file changes)" % base.name)
    out += ["", "parameters"]

    def mark(pid):
        return "*" if base is not None and base[pid] != rs[pid] else " "

    rows = []
    for pid in range(ruleset.P_FAN0):
        name = ruleset.param_name(pid)
        lo, hi = ruleset.bounds(pid)
        rows.append((name, str(rs[pid]) + mark(pid), "%d..%d" % (lo, hi),
                     _meaning(name, rs[pid])))
    w0 = max(len(r[0]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    out.append("  %-*s  %6s  %-*s  %s" % (w0, "name", "value ", w2, "range", "meaning"))
    for r in rows:  # the CJK text is last so it cannot break the alignment
        out.append("  %-*s  %6s  %-*s  %s" % (w0, r[0], r[1], w2, r[2], r[3]))
    out.append("")
    out.append("fan (a win's base is %d x 2^min(doublings, cap); a hand shape shows"
               " doublings + %d, an extra adds its doublings)"
               % (rs[ruleset.P_BASE_POINTS], rs[ruleset.P_FAN_SHOWN_OFFSET]))
    out.append("  %-14s  %s  %10s  %5s  %s" % ("pattern", "名称\u3000\u3000", "doublings ",
                                               "shown", "value"))
    for i, pat in enumerate(ruleset.PATTERNS):
        d, s, x = _fan_cells(rs, i)
        d += mark(ruleset.P_FAN0 + i)
        zh = PATTERN_ZH[i] + "\u3000" * (4 - len(PATTERN_ZH[i]))
        out.append("  %-14s  %s  %10s  %5s  %s" % (pat, zh, d, s, x))
    out += _house_lines(rs)
    return "\n".join(out)


def _house_lines(rs):
    """The house patterns, each as its rule file would define it."""
    if not rs.house_n:
        return []
    out = ["", "house patterns (docs/patterns.md; each adds its doublings when all its parts"
           " hold)"]
    for pid, name, v, parts in housepat.describe(rs):
        value = "cap" if v == ruleset.AT_CAP else "+%d" % v
        out.append("  %-14s  %s  %s" % (pid, name, value))
        for text in parts:
            out.append("      " + text)
    return out


def show(args):
    print(show_text(rulefile.load(args.spec), rulefile.base_of(args.spec)))
    return 0


def compile_(args):
    rs = rulefile.load(args.spec)
    blob = rs.to_blob()
    write_file(args.output, blob)
    print("%s: ruleset %s, %d bytes, CRC %08X" % (args.output, rs.name, len(blob), rs.crc()))
    return 0


def push(args):
    rs = rulefile.load(args.spec)
    # the table refuses with the same words; say it first (this firmware shows
    # the 听用: the 本金 lies face up on the dealer's tray)
    ok, why = ruleset.table_can_run(rs, shows_wild=True)
    if not ok:
        raise BadInput("%s: %s" % (args.spec, why))
    link = findport.connect(args, need_key=True)
    tablerules.push(link, rs, args.wait)
    d = link.info()
    if d.get("rules_crc", "").lower() != "%08x" % rs.crc():
        raise BadInput("the table took the ruleset but reports CRC %s" % d.get("rules_crc"))
    tablerules.remember(rs)
    word, when = tablerules.takes_effect(d, rs)
    print("table %s: ruleset %s %s (CRC %08X, %d bytes): %s"
          % (findport.table_name(link), rs.name, word, rs.crc(), len(rs.to_blob()), when))
    return 0


def pull(args):
    link = findport.connect(args)
    rs, blob = tablerules.pull(link)
    if args.output:
        write_file(args.output, blob)
        print("%s: ruleset %s, %d bytes, CRC %08X" % (args.output, rs.name, len(blob), rs.crc()))
    else:
        print(show_text(rs))
    return 0

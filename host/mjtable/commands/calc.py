"""`mjtable waits` and `mjtable calc`: the referee's calculator.

The host parses and validates the arguments into a request (see mp_calc),
one engine computes the result dicts (CPython in-process, or MicroPython in
a subprocess), and the host prints them: JSON with a fixed key order, or a
readable text. Exit codes: 0 done, 1 `calc` found no win, 2 bad input.
"""

import argparse
import json
import shlex
import sys

from sichuan import fan, meld, ruleset, tiles

from mjtable import BadInput
from mjtable.referee import mp_calc, mpengine
from mjtable.referee.winfmt import pattern_zh
from mjtable.rules import rulefile
from mjtable.rules.names import PATTERN_ZH

# Chinese names of the pattern ids, in sichuan.ruleset.PATTERNS order.
SUIT_ZH = "万筒条"
MELD_ZH = ("碰", "杠", "补杠", "暗杠")

# Result keys in the order they are printed, whatever order an engine made.
KEY_ORDER = ("win", "fan", "base", "self_drawn_each", "patterns", "waits", "values", "reason",
             "error")

# (option, dest, WIN flag name in sichuan.fan, help)
WIN_FLAGS = (
    ("--self-drawn", "self_drawn", "ZIMO", "自摸: won on one's own draw"),
    ("--kong-replacement", "kong_replacement", "GANGSHANGHUA",
     "杠上花: won on the replacement tile after a kong (implies --self-drawn)"),
    ("--after-kong-discard", "after_kong_discard", "GANGSHANGPAO",
     "杠上炮: won on the discard a player made after a kong"),
    ("--robbed-kong", "robbed_kong", "QIANGGANG", "抢杠胡: won on the tile another added to a 碰"),
    ("--last-tile", "last_tile", "HAIDI", "海底: won on the last tile of the wall"),
    ("--heavenly", "heavenly", "TIANHU",
     "天胡: the dealer won on the tiles dealt (implies --self-drawn)"),
    ("--earthly", "earthly", "DIHU",
     "地胡: a non-dealer won on its first draw (implies --self-drawn)"),
)
MELD_OPTS = (
    ("--pung", "pung", meld.PENG, "碰 of tile T (repeatable)"),
    ("--kong", "kong", meld.ZHIGANG, "open kong (直杠) of tile T (repeatable)"),
    ("--concealed-kong", "concealed_kong", meld.ANGANG, "暗杠 of tile T (repeatable)"),
)
# What a batch line may set; the same options on the command line are defaults.
LINE_DESTS = ("hand", "void", "rules", "win", "pung", "kong", "concealed_kong", "values") + tuple(
    w[1] for w in WIN_FLAGS
)


class _LineParser(argparse.ArgumentParser):
    """A parser for one batch line: raises BadInput instead of exiting."""

    def error(self, message):
        raise BadInput(message)

    def exit(self, status=0, message=None):
        raise BadInput(message or "bad arguments")


def _add_call_args(p, calc, line):
    """Options of one waits/calc call; `line`: for a batch line (HAND required)."""
    p.add_argument("hand", metavar="HAND", nargs=None if line else "?",
                   help="concealed tiles, e.g. 1112345678999m or 一二三万"
                   + (" (without the winning tile)" if calc else ""))
    if calc:
        p.add_argument("--win", metavar="T", help="the winning tile, e.g. 5m")
    p.add_argument("--void", metavar="m|p|s", help="定缺: the void suit (m p s or 万 筒 条)")
    for opt, dest, _kind, hlp in MELD_OPTS:
        p.add_argument(opt, dest=dest, metavar="T", action="append", default=[], help=hlp)
    if calc:
        for opt, dest, _flag, hlp in WIN_FLAGS:
            p.add_argument(opt, dest=dest, action="store_true", help=hlp)
    else:
        p.add_argument("--values", action="store_true",
                       help="each wait's value won on a discard: fan, base and patterns")
    p.add_argument("--rules", metavar="PRESET|FILE",
                   help="preset name, .toml rule file or compiled blob (default xuezhan)")


def add_parsers(sub):
    for name, calc, hlp in (
        ("waits", False, "下叫: the tiles a waiting hand wins on"),
        ("calc", True, "fan and points of a winning hand"),
    ):
        p = sub.add_parser(name, help=hlp, description=hlp)
        _add_call_args(p, calc, False)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--batch", metavar="FILE",
                       help="one call's arguments per line ('-' for stdin); prints JSON lines")
        p.add_argument("--engine", choices=("cpython", "micropython"), default="cpython",
                       help="interpreter running the rules core (default cpython)")
        p.set_defaults(func=run, calc=calc)


# -- from arguments to a request


class _Rules:
    """Rulesets by --rules spec, loaded once per run (a batch repeats them)."""

    def __init__(self):
        self.cache = {}

    def get(self, spec):
        rs = self.cache.get(spec)
        if rs is None:
            rs = self.cache[spec] = rulefile.load(spec)
        return rs


def _tile(opt, text):
    try:
        return tiles.parse_tile(text)
    except ValueError as e:
        raise BadInput("%s %s: %s" % (opt, text, e)) from None


def _win_flags(args, melds):
    """WIN flags bitmask of the flags; BadInput if they contradict each other."""
    flags = 0
    for _opt, dest, name, _hlp in WIN_FLAGS:
        if getattr(args, dest):
            flags |= getattr(fan, name)
    if flags & fan.GANGSHANGHUA:
        flags |= fan.ZIMO  # a kong's replacement tile is always self-drawn
        if not any(meld.is_gang(m) for m in melds):
            raise BadInput("--kong-replacement needs a kong (--kong or --concealed-kong)")
    if flags & (fan.TIANHU | fan.DIHU):
        if flags & fan.TIANHU and flags & fan.DIHU:
            raise BadInput("--heavenly (天胡, the dealer) and --earthly (地胡, a non-dealer)"
                           " exclude each other")
        if melds or flags & (fan.GANGSHANGHUA | fan.HAIDI):
            raise BadInput("天胡/地胡 are won on the dealt tiles and the first draw: no melds,"
                           " no --kong-replacement, no --last-tile")
        flags |= fan.ZIMO
    discard_only = flags & (fan.GANGSHANGPAO | fan.QIANGGANG)
    if flags & fan.ZIMO and discard_only:
        raise BadInput("a self-drawn win cannot also be --after-kong-discard or --robbed-kong")
    if discard_only == fan.GANGSHANGPAO | fan.QIANGGANG:
        raise BadInput("--after-kong-discard and --robbed-kong exclude each other")
    return flags


def build_request(args, calc, rules):
    """(ruleset, request dict) of one call's parsed arguments; BadInput if bad."""
    rs = rules.get(args.rules)
    if args.hand is None:
        raise BadInput("HAND is required (the concealed tiles, e.g. 1112345678999m)")
    try:
        counts = tiles.parse(args.hand)
    except ValueError as e:
        raise BadInput("HAND %s: %s" % (args.hand, e)) from None
    void = -1
    if args.void is not None:
        try:
            void = tiles.suit_index(args.void)
        except ValueError as e:
            raise BadInput("--void: %s" % e) from None
    melds = []
    copies = bytearray(counts)
    for opt, dest, kind, _hlp in MELD_OPTS:
        for text in getattr(args, dest):
            f = _tile(opt, text)
            m = meld.make(kind, f)
            melds.append(m)
            copies[f] += meld.size(m)
    win = -1
    if calc:
        if args.win is None:
            raise BadInput("calc needs --win T (the winning tile)")
        win = _tile("--win", args.win)
        copies[win] += 1
    _check_counts(rs, counts, melds, copies, calc)
    req = {"cmd": "calc" if calc else "waits", "counts": list(counts), "melds": melds,
           "void": void, "win": win, "flags": _win_flags(args, melds) if calc else 0}
    if not calc and args.values:
        req["values"] = True
    return rs, req


def _check_counts(rs, counts, melds, copies, calc):
    need = rs[ruleset.P_HAND_SIZE] - 3 * len(melds)
    if need < 1:
        raise BadInput("%d melds leave no concealed tiles in a %d-tile hand"
                       % (len(melds), rs[ruleset.P_HAND_SIZE]))
    n = tiles.total(counts)
    if n != need:
        raise BadInput("HAND has %d tiles; with %d meld%s it needs %d%s"
                       % (n, len(melds), "" if len(melds) == 1 else "s", need,
                          " (the winning tile goes in --win)" if calc else ""))
    for f in range(27):
        if copies[f] > 4:
            raise BadInput("%d copies of %s counting melds%s (there are four)"
                           % (copies[f], tiles.name(f), " and --win" if calc else ""))


# -- engines and output


def compute(engine, items):
    """Result dicts of (ruleset, request) items, in order, on the chosen engine."""
    if engine == "micropython":
        reqs = []
        for rs, req in items:
            r = dict(req)
            r["rules"] = rs.to_blob().hex()
            reqs.append(r)
        return mpengine.run(reqs)
    out = []
    for rs, req in items:
        try:
            out.append(mp_calc.compute(rs, req))
        except ValueError as e:  # as mp_calc.serve reports it
            out.append({"error": str(e)})
    return out


def canonical(d):
    """The result with keys in KEY_ORDER and patterns in pattern-id order."""
    out = {}
    for k in KEY_ORDER + tuple(sorted(k for k in d if k not in KEY_ORDER)):
        if k in d:
            v = d[k]
            if k == "patterns":
                v = {p: v[p] for p in sorted(v, key=_pattern_rank)}
            elif k == "values":  # in the waits' order, each as calc prints it
                v = {w: canonical(v[w]) for w in d["waits"]}
            out[k] = v
    return out


def _value_text(rs, v):
    """`2 番, base 4: 清一色 qingyise +2` (a wait's value won on a discard)."""
    if not v["win"]:
        return "no win: " + v.get("reason", "")
    pats = ", ".join("%s %s %+d" % (pattern_zh(n, rs), n, d) for n, d in v["patterns"].items())
    return "%d 番, base %d: %s" % (v["fan"], v["base"], pats)


def _pattern_rank(p):
    return (ruleset.PATTERNS.index(p), p) if p in ruleset.PATTERNS else (99, p)


def dumps(d):
    return json.dumps(canonical(d), ensure_ascii=False)


def _exit_code(res):
    if "error" in res:
        return 2
    return 1 if res.get("win") is False else 0


def run(args):
    if args.batch is not None:
        return run_batch(args)
    rules = _Rules()
    rs, req = build_request(args, args.calc, rules)
    res = compute(args.engine, [(rs, req)])[0]
    if "error" in res:
        raise BadInput(res["error"])
    if args.json:
        print(dumps(res))
    else:
        print(human(rs, req, res))
    return _exit_code(res)


# -- batch


def _line_parser(args):
    p = _LineParser(prog="mjtable %s" % ("calc" if args.calc else "waits"), add_help=False)
    _add_call_args(p, args.calc, True)
    p.set_defaults(**{k: v for k, v in vars(args).items() if k in LINE_DESTS and k != "hand"})
    return p


def _read_lines(path):
    try:
        if path == "-":
            return sys.stdin.read().splitlines()
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeError) as e:
        raise BadInput("--batch %s: cannot read: %s" % (path, e)) from None


def run_batch(args):
    """One JSON line per call line, in order; exit 2 if any line was bad."""
    if args.hand is not None:
        raise BadInput("HAND and --batch exclude each other (put hands in the batch file)")
    parser = _line_parser(args)
    rules = _Rules()
    results = []  # per call line: a result dict, or None to fill from the engine
    items = []
    for no, line in enumerate(_read_lines(args.batch), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            items.append(build_request(parser.parse_args(shlex.split(line)), args.calc, rules))
            results.append(None)
        except (BadInput, ValueError) as e:  # ValueError: shlex on an open quote
            results.append({"error": "line %d: %s" % (no, e)})
    computed = iter(compute(args.engine, items))
    bad = False
    for res in results:
        if res is None:
            res = next(computed)
        bad = bad or "error" in res
        print(dumps(res))
    return 2 if bad else 0


# -- readable output


def _hand_line(rs, req):
    counts = bytearray(req["counts"])
    parts = [tiles.to_text(counts)]
    if req["cmd"] == "calc":
        parts[0] += " + " + tiles.name(req["win"])
    for m in req["melds"]:
        parts.append("%s %s" % (MELD_ZH[meld.kind(m)], tiles.name(meld.face(m))))
    text = "hand: " + ", ".join(parts)
    if req["void"] >= 0:
        text += "  缺%s" % SUIT_ZH[req["void"]]
    return text + "  (rules %s)" % rs.name


def human(rs, req, res):
    lines = [_hand_line(rs, req)]
    if req["cmd"] == "waits":
        w = res["waits"]
        if w:
            lines.append("waits (下叫): %s" % " ".join(w))
        else:
            lines.append("waits (下叫): none, the hand is not ready (没叫)")
        for tile, v in canonical(res).get("values", {}).items():
            lines.append("  %-3s %s" % (tile, _value_text(rs, v)))
        return "\n".join(lines)
    if not res["win"]:
        lines.append("not a win: %s" % res.get("reason", ""))
        return "\n".join(lines)
    flags = [PATTERN_ZH[ruleset.PATTERNS.index(n)] for n, f in (
        ("zimo", fan.ZIMO), ("gangshanghua", fan.GANGSHANGHUA),
        ("gangshangpao", fan.GANGSHANGPAO), ("qiangganghu", fan.QIANGGANG),
        ("haidi", fan.HAIDI), ("tianhu", fan.TIANHU), ("dihu", fan.DIHU)) if req["flags"] & f]
    if flags:
        lines[0] += "  " + " ".join(flags)
    pats = canonical(res)["patterns"]
    width = max([len(n) for n in pats] + [8])
    lines.append("patterns (doublings):")
    for name, v in pats.items():
        zh = pattern_zh(name, rs)
        lines.append("  %s%s %-*s %+d" % (zh, "\u3000" * (4 - len(zh)), width, name, v))
    total = sum(pats.values())
    cap = rs[ruleset.P_CAP]
    note = "%d doubling%s" % (total, "" if total == 1 else "s")
    if 0 <= cap < total:
        note += ", capped at %d" % cap
    note += ": x%d" % (res["base"] // rs[ruleset.P_BASE_POINTS])
    lines.append("fan: %d  (%s)" % (res["fan"], note))
    lines.append("base (a discarder pays): %d" % res["base"])
    if "self_drawn_each" in res:
        lines.append("self-drawn, each payer pays: %d" % res["self_drawn_each"])
    return "\n".join(lines)

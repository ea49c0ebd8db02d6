"""House patterns in rule files: `[pattern.ID]` tables, compiled to the
core's integer form (sichuan.pattern) and read back for `rules show`.

    [pattern.jiaxinwu]
    name = "夹心五"          # shown by the host (default: the id)
    fan = 1                  # doublings it adds, 0..15, or "cap" (满格)
    win.rank = 5             # won on a 5 ...
    win.as = "卡张"          # ... the middle of a run (4-5-6) ...
    win.only = true          # ... and in no other role

The parts a pattern may name, and what each compiles to, are KEYS below;
docs/patterns.md is the hobbyist's guide. `compile_table` refuses, naming
the key (the caller turns the key into a line), a pattern that cannot be
scored: a part it does not know, a value out of range, parts that
contradict each other (it could never count), or more than the core
scores (sichuan.pattern MAXHOUSE patterns, MAXCOND conditions each).
"""

import difflib
import json

from sichuan import fan
from sichuan import pattern as P
from sichuan import ruleset as R

# the one import up the layers (docs/decisions.md, "The layout"): the ids
# live in referee.patnames because MicroPython's calc and simcore need them
# beside them, and a rule file must not reuse one
from mjtable.referee.patnames import EXTRA_NAMES, house_list

# key path (inside a pattern) -> (kind, part, lo, hi): the bounds of a count
COUNTS = {
    ("hand", "suits"): (P.H_SUITS, 1, 3),
    ("concealed", "suits"): (P.C_SUITS, 1, 3),
    ("hand", "fours"): (P.FOURS, 0, 7),
    ("melds", "peng"): (P.PENG, 0, 4),
    ("melds", "minggang"): (P.MINGGANG, 0, 4),
    ("melds", "angang"): (P.ANGANG, 0, 4),
    ("melds", "gang"): (P.GANGS, 0, 4),
    ("melds", "shown"): (P.SHOWN, 0, 4),
    ("melds", "all"): (P.MELDS, 0, 4),
    ("win", "waits"): (P.WAITS, 1, 27),
}
RANKS = {  # key -> (part, op): every tile one of these ranks, or some tile
    ("hand", "ranks"): (P.H_RANKS, P.NONE),
    ("hand", "has"): (P.H_RANKS, P.ANY),
    ("concealed", "ranks"): (P.C_RANKS, P.NONE),
    ("concealed", "has"): (P.C_RANKS, P.ANY),
    ("pair",): (P.PAIR, P.ANY),
    ("win", "rank"): (P.WIN_RANK, P.ANY),
}
FLAGS = {("straight",): P.STRAIGHT, ("terminals",): P.TERMINALS}
WORDS = {("reading",), ("win", "as"), ("win", "by")}
OTHER = {("name",), ("fan",), ("win", "only"), ("absorbs",), ("absorbed_by",)}
KEYS = set(COUNTS) | set(RANKS) | set(FLAGS) | WORDS | OTHER

READINGS = (("pungs", "对对", P.R_PUNGS), ("runs", "顺子", P.R_RUNS),
            ("pairs", "七对", P.R_PAIRS), ("groups", "搭子", P.R_GROUPS))
READING_WORDS = {"对对胡": P.R_PUNGS, "碰碰胡": P.R_PUNGS, "平": P.R_RUNS}
ROLES = (("middle", "卡张", P.W_MIDDLE), ("edge", "边张", P.W_EDGE),
         ("open", "两边", P.W_OPEN), ("single", "单钓", P.W_SINGLE),
         ("pung", "对出", P.W_PUNG))
ROLE_WORDS = {"坎张": P.W_MIDDLE, "夹张": P.W_MIDDLE, "两边梭": P.W_OPEN,
              "单吊": P.W_SINGLE, "对倒": P.W_PUNG}
# how a win came: (english, 汉字, flag); "点炮" / "discard" is "not 自摸"
HOWS = (("self-drawn", "自摸", fan.ZIMO), ("kong-replacement", "杠上花", fan.GANGSHANGHUA),
        ("after-kong-discard", "杠上炮", fan.GANGSHANGPAO),
        ("robbed-kong", "抢杠", fan.QIANGGANG), ("last-tile", "海底", fan.HAIDI),
        ("last-copy", "绝张", fan.JUEZHANG), ("heavenly", "天胡", fan.TIANHU),
        ("earthly", "地胡", fan.DIHU))
HOW_WORDS = {"抢杠胡": fan.QIANGGANG, "杠上开花": fan.GANGSHANGHUA, "和绝张": fan.JUEZHANG}
# flags that pay a built-in pattern of their own (for the "worthless" warning)
_FLAG_PATTERN = ((fan.ZIMO, R.ZIMO), (fan.GANGSHANGHUA, R.GANGSHANGHUA),
                 (fan.GANGSHANGPAO, R.GANGSHANGPAO), (fan.QIANGGANG, R.QIANGGANGHU),
                 (fan.HAIDI, R.HAIDI), (fan.JUEZHANG, R.JUEZHANG), (fan.TIANHU, R.TIANHU),
                 (fan.DIHU, R.DIHU))
# 平胡 is a win with no pattern of the hand; as 根 and the built-in ways of
# winning (自摸, 杠上花, 海底 ...) stand beside it, so do house patterns that
# name only those parts. Any other house pattern takes its place.
_ADDS_TO_PINGHU = (P.HOW, P.FOURS, P.COUNTED)
_QING = (R.QINGYISE, R.QINGDUI, R.QINGQIDUI, R.QINGLONGQIDUI, R.QINGDAIYAO,
         R.QINGJINGOUDIAO)
ID_BYTES = 16
NAME_BYTES = 24
ALL_RANKS = 511


def short(v, n=40):
    """repr(v) cut to about n characters, saying how long it was: a message
    echoes what was written, not ten megabytes of it."""
    s = repr(v)
    if len(s) <= n:
        return s
    if isinstance(v, str):
        return "%s... (%d characters)" % (s[:n], len(v))
    if isinstance(v, (list, dict)):
        return "%s... (%d items)" % (s[:n], len(v))
    return "%s... (%d characters written)" % (s[:n], len(s))


class _Pattern:
    """One pattern as it is compiled: its conditions and what it absorbs."""

    def __init__(self, pid, table):
        self.id = pid
        self.table = table
        self.conds = []  # (part, op, a, b)
        self.absorbs = 0  # built-in bits
        self.house = 0    # house bits
        self.value = 0
        self.name = pid


class Compiler:
    """Compiles the `pattern` table of a rule file into rs; `err(path, msg)`
    raises BadInput naming where the key path is; `warn(path, msg)` notes a
    warning the same way; `set_keys`: the parameter ids the file set."""

    def __init__(self, rs, err, warn, set_keys):
        self.rs = rs
        self.err = err
        self.warn = warn
        self.set_keys = set_keys

    def compile(self, table):
        if not isinstance(table, dict):
            self.err(("pattern",), "expected tables [pattern.ID] (one per pattern), got %s"
                     % short(table))
        if len(table) > P.MAXHOUSE:
            ids = list(table)
            self.err(("pattern", ids[P.MAXHOUSE]), "too costly: %d patterns; a ruleset holds at"
                     " most %d (the table scores each on every win)" % (len(ids), P.MAXHOUSE))
        pats = [self._one(pid, t) for pid, t in table.items()]
        ids = [p.id for p in pats]
        for p in pats:
            self._absorbs(p, ids, pats)
        self._close(pats)
        for p in pats:
            self._check_cap(p)
        prog = bytearray()
        names = bytearray()
        for p in pats:
            prog += bytes((p.value, len(p.conds), p.absorbs & 255, p.absorbs >> 8 & 255,
                           p.absorbs >> 16, p.house))
            for c in sorted(p.conds):
                prog += bytes(c)
            for text in (p.id, p.name):
                b = text.encode()
                names += bytes((len(b),)) + b
        try:
            self.rs.set_house(len(pats), bytes(prog), bytes(names))
        except ValueError as e:  # the core's own check: the compiler made a bad program
            self.err(("pattern",), "the core refuses the compiled patterns: %s" % e)

    # -- one pattern

    def _one(self, pid, t):
        at = ("pattern", pid)
        b = pid.encode()
        if not 1 <= len(b) <= ID_BYTES or any(c.isspace() or c in "\"'.\\" or ord(c) < 32
                                               for c in pid):
            self.err(at, "pattern id %s: 1..%d bytes, no spaces, quotes or dots (it is the"
                     " pattern's id in calc's JSON)" % (short(pid), ID_BYTES))
        if pid in EXTRA_NAMES:
            self.err(at, "pattern id %r is the core's own %s value; choose another id"
                     % (pid, pid))
        if pid in R.PATTERNS:  # a definition replaces the built-in of that id
            pidx = R.P_FAN0 + R.PATTERNS.index(pid)
            if pidx in self.set_keys and self.rs[pidx] != R.NONE:
                self.err(at, "[pattern.%s] replaces the built-in %s, which fan.%s also sets;"
                         " keep one" % (pid, pid, pid))
            self.rs.set(pidx, R.NONE)
        if not isinstance(t, dict):
            self.err(at, "expected a table of parts (fan = 1, win.by = \"自摸\", ...), got %s"
                     % short(t))
        p = _Pattern(pid, t)
        self._keys(at, t, ())
        self._value(at, p, t)
        self._parts(at, p, t)
        self._never(at, p)
        if any(c[0] not in _ADDS_TO_PINGHU for c in p.conds):
            p.absorbs |= 1 << R.PINGHU  # a pattern of the hand: no longer 平胡
        return p

    def _keys(self, at, t, prefix):
        for k, v in t.items():
            key = prefix + (k,)
            if isinstance(v, dict) and key not in KEYS:
                self._keys(at, v, key)
            elif key not in KEYS:
                dotted = [".".join(x) for x in sorted(KEYS)]
                near = difflib.get_close_matches(".".join(key), dotted, n=2, cutoff=0.6)
                self.err(at + key, "unknown part %s%s (parts: %s)" % (
                    short(".".join(key)), " (did you mean %s?)" % " or ".join(repr(n) for n in near)
                    if near else "", " ".join(dotted)), True)

    def _value(self, at, p, t):
        if "fan" not in t:
            self.err(at, "pattern %s has no fan (the doublings it adds, e.g. fan = 1)" % p.id)
        v = t["fan"]
        if isinstance(v, str) and v.strip().lower() == "cap":
            p.value = R.AT_CAP
        elif isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 15:
            self.err(at + ("fan",), "%s is not a value (doublings 0..15, or \"cap\")" % short(v))
        else:
            p.value = v
        name = t.get("name", p.id)
        if not isinstance(name, str) or not 1 <= len(name.encode()) <= NAME_BYTES:
            self.err(at + ("name",), "expected a string of 1..%d bytes, got %s"
                     % (NAME_BYTES, short(name)))
        p.name = name

    def _get(self, t, key):
        for k in key:
            if not isinstance(t, dict) or k not in t:
                return None
            t = t[k]
        return t

    def _parts(self, at, p, t):
        for key, (part, lo, hi) in COUNTS.items():
            v = self._get(t, key)
            if v is not None:
                a, b = self._count(at + key, v, lo, hi)
                p.conds.append((part, P.RANGE, a, b))
        for key, (part, op) in RANKS.items():
            v = self._get(t, key)
            if v is not None:
                m = self._ranks(at + key, v)
                if op == P.NONE:
                    m = ALL_RANKS & ~m
                    if not m:
                        continue  # every rank: no condition
                p.conds.append((part, op, m & 255, m >> 8))
        for key, part in FLAGS.items():
            v = self._get(t, key)
            if v is not None:
                if not isinstance(v, bool):
                    self.err(at + key, "%s: write true or false (no quotes)" % short(v))
                p.conds.append((part, P.RANGE, int(v), int(v)))
        v = t.get("reading")
        if v is not None:
            m = self._words(at + ("reading",), v, READINGS, READING_WORDS, "readings")
            p.conds.append((P.READING, P.ANY, m, 0))
        self._win(at, p, t)

    def _win(self, at, p, t):
        role = self._get(t, ("win", "as"))
        only = self._get(t, ("win", "only"))
        if role is not None:
            m = self._words(at + ("win", "as"), role, ROLES, ROLE_WORDS, "roles")
            p.conds.append((P.ROLE, P.ANY, m, 0))
            if only is not None and not isinstance(only, bool):
                self.err(at + ("win", "only"), "%s: write true or false" % short(only))
            if only:
                rest = 31 & ~m
                if rest:
                    p.conds.append((P.ROLE, P.NONE, rest, 0))
        elif only is not None:
            self.err(at + ("win", "only"), "win.only needs win.as (the role it must be"
                     " alone in, e.g. win.as = \"卡张\")")
        how = self._get(t, ("win", "by"))
        if how is not None:
            must, mustnot = self._how(at + ("win", "by"), how)
            if must:
                p.conds.append((P.HOW, P.ALL, must & 255, must >> 8))
            if mustnot:
                p.conds.append((P.HOW, P.NONE, mustnot & 255, mustnot >> 8))
        if len(p.conds) > P.MAXCOND:
            self.err(at, "too costly: %d conditions; a pattern has at most %d"
                     % (len(p.conds), P.MAXCOND))

    def _count(self, key, v, lo, hi):
        """(a, b) of a count: 2, "2+" (at least), "0..2" (between)."""
        a = b = None
        if isinstance(v, int) and not isinstance(v, bool):
            a = b = v
        elif isinstance(v, str):
            s = v.strip()
            try:
                if s.endswith("+"):
                    a, b = int(s[:-1]), hi
                elif ".." in s:
                    a, b = (int(x) for x in s.split("..", 1))
                else:
                    a = b = int(s)
            except ValueError:
                a = None
        if a is None:
            self.err(key, "%s is not a count (write 2, \"2+\" for at least 2, or \"0..2\")"
                     % short(v))
        if a > b:
            self.err(key, "%s: never matchable, %d is more than %d" % (short(v), a, b))
        if b < lo or a > hi:
            self.err(key, "%s: never matchable, the count is always %d..%d" % (short(v), lo, hi))
        return max(a, lo), min(b, hi)

    def _ranks(self, key, v):
        """Bits (rank 1 = bit 0) of "2-8", "258", 5 or [1, 9]."""
        if isinstance(v, int) and not isinstance(v, bool):
            v = [v]
        if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                       for x in v):
            text = " ".join(str(x) for x in v)
        elif isinstance(v, str):
            text = v
        else:
            text = None
        m = 0
        prev = None
        dash = False
        for c in (text or "?"):
            if c in "123456789":
                r = int(c)
                if dash:
                    if prev is None or r < prev:
                        text = None
                        break
                    for x in range(prev, r + 1):
                        m |= 1 << (x - 1)
                    dash = False
                m |= 1 << (r - 1)
                prev = r
            elif c in "-~" and prev is not None and not dash:
                dash = True
            elif c not in " ,":
                text = None
                break
        if text is None or dash or not m:
            self.err(key, "%s is not a set of ranks (write \"2-8\", \"258\", 5 or [1, 9])"
                     % short(v))
        return m

    def _words(self, key, v, table, more, what):
        """Bits of one word or a list of words (any of them) from table."""
        items = v if isinstance(v, list) else [v]
        m = 0
        for w in items:
            bit = None
            if isinstance(w, str):
                s = w.strip()
                bit = more.get(s)
                for en, zh, b in table:
                    if s.lower() == en or s == zh:
                        bit = b
            if bit is None:
                self.err(key, "%s is not one of the %s: %s" % (
                    short(w), what, ", ".join("%s (%s)" % (zh, en) for en, zh, _ in table)))
            m |= bit
        if not items:
            self.err(key, "an empty list: name at least one")
        return m

    def _how(self, key, v):
        """(must, must not) flags of win.by's words; "not X" negates X."""
        must = mustnot = 0
        for w in (v if isinstance(v, list) else [v]):
            s = w.strip() if isinstance(w, str) else ""
            neg = s.lower().startswith("not ")
            if neg:
                s = s[4:].strip()
            flag = HOW_WORDS.get(s)
            for en, zh, f in HOWS:
                if s.lower() == en or s == zh:
                    flag = f
            if s in ("点炮", "放炮", "discard"):
                flag, neg = fan.ZIMO, not neg
            if flag is None:
                self.err(key, "%s is not how a win comes: %s, 点炮 (discard), or \"not\" and"
                         " one of them" % (short(w), ", ".join(
                             "%s (%s)" % (zh, en) for en, zh, _ in HOWS)))
            if neg:
                mustnot |= flag
            else:
                must |= flag
        return must, mustnot

    # -- absorbs

    def _absorbs(self, p, ids, pats):
        at = ("pattern", p.id)
        for key in ("absorbs", "absorbed_by"):
            v = p.table.get(key)
            if v is None:
                continue
            for x in (v if isinstance(v, list) else [v]):
                if not isinstance(x, str) or not (x in ids or x in R.PATTERNS):
                    self.err(at + (key,), "%s is no pattern id (built-in: %s; this file's: %s)"
                             % (short(x), " ".join(R.PATTERNS), " ".join(ids)))
                if x == p.id:
                    self.err(at + (key,), "%s %s itself" % (p.id, key.replace("_", " ")))
                if x in ids:
                    d = ids.index(x)
                    if key == "absorbs":
                        p.house |= 1 << d
                    else:
                        pats[d].house |= 1 << ids.index(p.id)
                    continue
                b = R.PATTERNS.index(x)  # one the ruleset lacks never counts: no matter
                if key == "absorbs":
                    p.absorbs |= 1 << b
                else:
                    p.conds.append((P.COUNTED, 0, b, 0))
                    if len(p.conds) > P.MAXCOND:
                        self.err(at, "too costly: %d conditions; a pattern has at most %d"
                                 % (len(p.conds), P.MAXCOND))

    def _close(self, pats):
        """Absorbing is transitive; a pattern absorbing itself is a contradiction."""
        changed = True
        while changed:
            changed = False
            for p in pats:
                m = p.house
                for d, q in enumerate(pats):
                    if p.house >> d & 1:
                        m |= q.house
                if m != p.house:
                    p.house = m
                    changed = True
        for d, p in enumerate(pats):
            if p.house >> d & 1:
                others = [q.id for e, q in enumerate(pats) if e != d and p.house >> e & 1
                          and q.house >> d & 1]
                self.err(("pattern", p.id, "absorbs"), "contradictory: %s and %s absorb each"
                         " other" % (p.id, " and ".join(others)))

    # -- never matchable

    def _never(self, at, p):
        """BadInput naming the first part that rules the pattern out."""
        rs = self.rs
        c = {}
        for part, op, a, b in p.conds:
            c.setdefault((part, op), []).append((a, b))

        def rng(part, lo, hi):
            for a, b in c.get((part, P.RANGE), ()):
                lo, hi = max(lo, a), min(hi, b)
            return lo, hi

        def bits(part, op):
            m = 0
            for a, b in c.get((part, op), ()):
                m |= a | b << 8
            return m

        def never(key, why):
            self.err(at + key, "never matchable: %s" % why)

        suits = bin(rs[R.P_SUITS]).count("1")
        if rs[R.P_DINGQUE]:
            suits = min(suits, 2)
        hs = rng(P.H_SUITS, 1, 3)
        if hs[0] > suits:
            never(("hand", "suits"), "a winning hand holds at most %d suit%s under this ruleset"
                  " (suits in play, 缺一门)" % (suits, "" if suits == 1 else "s"))
        if rng(P.C_SUITS, 1, 3)[0] > hs[1]:
            never(("concealed", "suits"), "the concealed tiles hold no more suits than the hand")
        hand_ok = ALL_RANKS & ~bits(P.H_RANKS, P.NONE)
        conc_ok = hand_ok & ~bits(P.C_RANKS, P.NONE)
        for key, part, ok in ((("hand", "has"), P.H_RANKS, hand_ok),
                              (("concealed", "has"), P.C_RANKS, conc_ok)):
            for a, b in c.get((part, P.ANY), ()):
                if not (a | b << 8) & ok:
                    never(key, "no tile may have those ranks (hand.ranks, concealed.ranks)")
        win = bits(P.WIN_RANK, P.ANY) or ALL_RANKS
        if not win & conc_ok:
            never(("win", "rank"), "the winning tile is one of the tiles, whose ranks are"
                  " limited (hand.ranks, concealed.ranks)")
        self._never_reading(c, rng, bits, never, hand_ok, win)
        self._never_how(c, rng, bits, never)

    def _never_reading(self, c, rng, bits, never, hand_ok, win):
        rs = self.rs
        reading = bits(P.READING, P.ANY) or 15
        groups = reading & (P.R_PUNGS | P.R_GROUPS | P.R_RUNS)
        melds = self._melds(rng)
        if melds is None:
            never(("melds",), "no number of 碰, 明杠 and 暗杠 gives these counts")
        lo_melds = melds
        if lo_melds and not reading & (P.R_PUNGS | P.R_GROUPS):
            never(("reading",), "seven pairs and four runs have no melds")
        straight = rng(P.STRAIGHT, 0, 1)[0]
        if straight:
            if not reading & (P.R_GROUPS | P.R_RUNS):
                never(("straight",), "123 456 789 is three runs: a pungs or pairs reading has"
                      " none")
            if lo_melds > (rs[R.P_HAND_SIZE] - 9) // 3:
                never(("straight",), "123 456 789 takes 9 of the concealed tiles")
            if hand_ok != ALL_RANKS:
                never(("straight",), "123 456 789 holds every rank, and hand.ranks leaves"
                      " some out")
        if rng(P.TERMINALS, 0, 1)[0] and not hand_ok & 0x101:
            never(("terminals",), "every group holds a 1 or a 9, and hand.ranks allows"
                  " neither")
        roles = (bits(P.ROLE, P.ANY) or 31) & ~bits(P.ROLE, P.NONE)
        can = P.W_OPEN | P.W_SINGLE | P.W_PUNG
        if win & 0x0FE:
            can |= P.W_MIDDLE
        if win & 0x044:
            can |= P.W_EDGE
        if not groups:
            can &= P.W_SINGLE
        elif not reading & (P.R_GROUPS | P.R_RUNS):
            can &= P.W_SINGLE | P.W_PUNG
        if not roles & can:
            never(("win", "as"), "the winning tile cannot take that role on those ranks"
                  " (卡张 2-8, 边张 3 or 7) in those readings (七对: 单钓 only)")
        if rs[R.P_TINGYONG] and (c.get((P.ROLE, P.ANY)) or c.get((P.WIN_RANK, P.ANY))
                                 or (P.WAITS, P.RANGE) in c):
            never(("win",), "with 听用 wild tiles (tingyong) the winning tile's face is not"
                  " known, so win.rank, win.as and win.waits never hold")

    def _melds(self, rng):
        """The fewest melds of a count matching every meld range; None if none."""
        top = self.rs[R.P_HAND_SIZE] // 3
        best = None
        for pg in range(top + 1):
            for mg in range(top + 1 - pg):
                for ag in range(top + 1 - pg - mg):
                    vals = {P.PENG: pg, P.MINGGANG: mg, P.ANGANG: ag, P.MELDS: pg + mg + ag,
                            P.SHOWN: pg + mg, P.GANGS: mg + ag}
                    if all(rng(k, 0, 4)[0] <= x <= rng(k, 0, 4)[1] for k, x in vals.items()):
                        if best is None or pg + mg + ag < best:
                            best = pg + mg + ag
        return best

    def _never_how(self, c, rng, bits, never):
        must = bits(P.HOW, P.ALL)
        mustnot = bits(P.HOW, P.NONE)
        if must & (fan.GANGSHANGPAO | fan.QIANGGANG):
            mustnot |= fan.ZIMO
        if must & (fan.TIANHU | fan.DIHU):
            must |= fan.ZIMO
        if must & fan.GANGSHANGHUA and self.rs[R.P_DIANGANG_HUA] != 2:
            must |= fan.ZIMO  # 点杠花 as a discard win (diangang_hua 2) is not 自摸
        key = ("win", "by")
        for group in ((fan.GANGSHANGHUA, fan.GANGSHANGPAO, fan.QIANGGANG),
                      (fan.TIANHU, fan.DIHU, fan.GANGSHANGHUA, fan.GANGSHANGPAO,
                       fan.QIANGGANG, fan.HAIDI)):
            hits = [f for f in group if must & f]
            if len(hits) > 1 and not (hits == [fan.GANGSHANGPAO, fan.HAIDI]
                                      or hits == [fan.GANGSHANGHUA, fan.HAIDI]):
                never(key, "those ways of winning exclude each other")
        if must & mustnot:
            never(key, "it asks for a way of winning and its opposite")
        if must & fan.GANGSHANGHUA and rng(P.GANGS, 0, 4)[1] == 0:
            never(key, "杠上花 follows a kong of one's own, and melds.gang is 0")
        if must & (fan.TIANHU | fan.DIHU) and self._melds(rng):
            never(key, "天胡 and 地胡 are won on the dealt tiles, before any meld")

    # -- the cap

    def _check_cap(self, p):
        rs = self.rs
        cap = rs[R.P_CAP]
        at = ("pattern", p.id, "fan")
        where_cap = "cap = %d" % cap
        if p.value != R.AT_CAP and 0 <= cap < p.value:
            self.warn(at, "%s (fan = %d) is above %s: a win pays at most %d"
                      % (p.id, p.value, where_cap, cap))
        implied = self._implied(p)
        how = sum(a | b << 8 for part, op, a, b in p.conds if part == P.HOW and op == P.ALL)
        if rs[R.P_TIANHU_ALONE] and how & (fan.TIANHU | fan.DIHU):
            self.warn(at, "%s is never paid: 天胡/地胡 do not combine with other patterns"
                      " (tianhu_alone = 1)" % p.id)
        elif 0 <= cap <= implied[0] and p.value:
            self.warn(at, "%s is worthless under %s: %s alone already reach%s it"
                      % (p.id, where_cap, implied[1] or "every win", "" if implied[1] and
                         " and " in implied[1] else "es"))

    def _implied(self, p):
        """(doublings, names) of the built-ins that count whenever p counts."""
        rs = self.rs
        total = 0
        names = []
        how = 0
        for part, op, a, b in p.conds:
            if part == P.HOW and op == P.ALL:
                how |= a | b << 8
            if part == P.H_SUITS and op == P.RANGE and b == 1:
                vals = [rs.fan(q) for q in _QING if rs.fan(q) != R.NONE]
                if vals:
                    total += min(fan.at_cap(rs) if v == R.AT_CAP else v for v in vals)
                    names.append("清一色")
        for flag, q in _FLAG_PATTERN:
            v = rs.fan(q)
            if how & flag and v != R.NONE:
                total += fan.at_cap(rs) if v == R.AT_CAP else v
                names.append("fan.%s" % R.PATTERNS[q])
        return total, " and ".join(names)


# -- reading a compiled ruleset back


def _toml(v):
    """v as a rule file writes it."""
    if isinstance(v, list):
        return "[%s]" % ", ".join(_toml(x) for x in v)
    return json.dumps(v, ensure_ascii=False)


def _rank_text(m):
    ranks = [r + 1 for r in range(9) if m >> r & 1]
    return ranks[0] if len(ranks) == 1 else "".join(str(r) for r in ranks)


def _word_text(m, table):
    w = [zh for _en, zh, b in table if m & b]
    return w[0] if len(w) == 1 else w


def describe(rs):
    """Per house pattern (id, name, value, [part text]): its definition read
    back from the program, as a rule file would write it."""
    ids = house_list(rs)
    out = []
    p = rs.house_prog
    i = 0
    for d in range(rs.house_n):
        v, k = p[i], p[i + 1]
        ab = p[i + 2] | p[i + 3] << 8 | p[i + 4] << 16
        parts = []
        only = None
        for j in range(i + 6, i + 6 + 4 * k, 4):
            part, op, a, b = p[j:j + 4]
            m = a | b << 8
            parts.append(_cond_text(part, op, a, b, m))
            if part == P.ROLE and op == P.NONE:
                only = parts.pop()
        if only:
            parts.append(only)
        absorbs = [R.PATTERNS[x] for x in range(R.NPATTERNS) if ab >> x & 1]
        absorbs += [ids[x][0] for x in range(rs.house_n) if p[i + 5] >> x & 1]
        if absorbs:
            parts.append("absorbs = %s" % _toml(absorbs))
        out.append((ids[d][0], ids[d][1], v, parts))
        i += 6 + 4 * k
    return out


def _cond_text(part, op, a, b, m):
    counts = {v[0]: (".".join(k), v[2]) for k, v in COUNTS.items()}
    ranks = {v: ".".join(k) for k, v in RANKS.items()}
    if part == P.COUNTED:
        return "absorbed_by = %s" % _toml(R.PATTERNS[a])
    if part in counts:
        key, hi = counts[part]
        return "%s = %s" % (key, a if a == b else '"%d+"' % a if b == hi else '"%d..%d"' % (a, b))
    if (part, op) in ranks:
        return "%s = %s" % (ranks[(part, op)], _toml(_rank_text(ALL_RANKS & ~m if op == P.NONE
                                                                 else m)))
    if part == P.STRAIGHT:
        return "straight = %s" % ("true" if a else "false")
    if part == P.TERMINALS:
        return "terminals = %s" % ("true" if a else "false")
    if part == P.READING:
        return "reading = %s" % _toml(_word_text(m, READINGS))
    if part == P.ROLE:
        return "win.as = %s" % _toml(_word_text(m, ROLES)) if op == P.ANY else "win.only = true"
    if part == P.HOW:
        w = [zh for _en, zh, f in HOWS if m & f]
        if op == P.NONE:
            w = ["点炮" if x == "自摸" else "not " + x for x in w]
        return "win.by = %s" % _toml(w[0] if len(w) == 1 else w)
    return "part %d op %d %d %d" % (part, op, a, b)

"""A referee's hand script: parse it, play it through the game engine.

The format (README.md, "Settling a disputed hand", has the full description):

    # comments and blank lines are ignored
    rules xuezhan                 规则 xuezhan     (preset or rule file)
    dealer 甲                     庄 甲            (default: seat 1 / 甲)
    甲 hand 1156m7m34457p5789s    甲 手牌 ...      (dealer 14 tiles, others 13)
    甲 换三张 135p                 (optional; without them hands are after the exchange)
    甲 定缺 条                     (needed when the ruleset declares voids)
    甲 打 9s
    乙 暗杠 9p                     (乙 drew the fourth 9筒: the draw is implied)
    乙 打 3m                       (the replacement, drawn and thrown: implied)
    丙 自摸 5m
    流局                           (the wall is played out: 荒庄)
    流局 过                        (... with the wins its last tiles offer passed)

Seats: 甲乙丙丁, E S W N, East South West North, 东南西北 or 1-4, in play
order (output names them East South West North). A line holds one seat and
one or more actions; tiles use the calculator's notation. Draws
that do not matter may be left out: a turn the script skips is filled with a
tile drawn and thrown at once (chosen from the tiles nobody has seen, never
one that would let anyone win or claim when another exists, never a tile the
script names later), and an open claim not written is a 过.

`run(text)` returns a Result or raises ScriptError("line N: ..."), in which
case nothing is reported (the caller prints only a finished Result).
"""

from sichuan import claims, shape, tiles
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.settle import EV_ACCEPTED, EV_CHECK, EV_HAND_END, EV_PAY, EV_WIN

from mjtable import BadInput
from mjtable.referee import winfmt
from mjtable.rules import names, rulefile
from mjtable.rules.names import REASONS

SEAT_WORDS = ("甲乙丙丁", "ESWN", "东南西北", "1234")
SEAT_FULL = ("east", "south", "west", "north")  # as the output names them

# verb words -> verb id
V_HAND, V_GIVE, V_QUE, V_DRAW, V_DISCARD, V_PENG, V_GANG, V_ZHIGANG, V_ANGANG, \
    V_BUGANG, V_HU, V_ZIMO, V_PASS = range(13)
VERBS = {
    "hand": V_HAND, "手牌": V_HAND, "起手": V_HAND, "配牌": V_HAND,
    "exchange": V_GIVE, "换三张": V_GIVE, "换": V_GIVE,
    "void": V_QUE, "定缺": V_QUE, "缺": V_QUE, "que": V_QUE,
    "draw": V_DRAW, "摸": V_DRAW,
    "discard": V_DISCARD, "打": V_DISCARD, "出": V_DISCARD,
    "peng": V_PENG, "pung": V_PENG, "碰": V_PENG,
    "kong": V_GANG, "gang": V_GANG, "杠": V_GANG,
    "zhigang": V_ZHIGANG, "直杠": V_ZHIGANG, "明杠": V_ZHIGANG,
    "angang": V_ANGANG, "暗杠": V_ANGANG,
    "bugang": V_BUGANG, "补杠": V_BUGANG, "巴杠": V_BUGANG, "加杠": V_BUGANG,
    "弯杠": V_BUGANG,
    "hu": V_HU, "win": V_HU, "胡": V_HU, "和": V_HU,
    "zimo": V_ZIMO, "自摸": V_ZIMO,
    "pass": V_PASS, "过": V_PASS,
}
VERB_ZH = ("手牌", "换三张", "定缺", "摸", "打", "碰", "杠", "直杠", "暗杠", "补杠", "胡", "自摸",
           "过")
TILE_REQUIRED = (V_DRAW, V_DISCARD, V_ANGANG, V_BUGANG)
TILE_OPTIONAL = (V_PENG, V_GANG, V_ZHIGANG, V_HU, V_ZIMO)
CLAIM_VERBS = (V_PENG, V_ZHIGANG, V_PASS)
HEADERS = {"rules": "rules", "规则": "rules", "dealer": "dealer", "庄": "dealer",
           "庄家": "dealer", "direction": "direction", "方向": "direction"}
DIRECTIONS = {"next": G.DIR_NEXT, "下家": G.DIR_NEXT, "逆时针": G.DIR_NEXT,
              "counter-clockwise": G.DIR_NEXT, "prev": G.DIR_PREV, "上家": G.DIR_PREV,
              "顺时针": G.DIR_PREV, "clockwise": G.DIR_PREV, "across": G.DIR_ACROSS,
              "对家": G.DIR_ACROSS}
END_WORDS = ("流局", "荒庄", "exhaust", "wall-out", "end")
# `流局 过`: the wall ran out with winning tiles in it, each win passed
END_PASS_WORDS = ("过", "pass")


class ScriptError(BadInput):
    """A bad script line: the message names the line."""


class Step:
    """One action of the script: line number, seat, verb, tile (face, or -1),
    counts (hand/exchange), suit (定缺), and the source text for messages."""

    def __init__(self, line, seat, verb, face=-1, counts=None, suit=-1, text=""):
        self.line = line
        self.seat = seat
        self.verb = verb
        self.face = face
        self.counts = counts
        self.suit = suit
        self.text = text


class Script:
    def __init__(self):
        self.rules = None       # (line, spec)
        self.dealer = 0
        self.direction = None   # (line, dir) or None
        self.steps = []         # Step, or ("end", line, wins passed: `流局 过`)


def seat_of(word, line):
    w = word.rstrip(":：")
    if w.lower() in SEAT_FULL:
        return SEAT_FULL.index(w.lower())
    for words in SEAT_WORDS:
        if len(w) == 1 and w in words:
            return words.index(w)
        if len(w) == 1 and w.upper() in words:
            return words.index(w.upper())
    raise ScriptError("line %d: %r is not a seat (East South West North, E S W N, 甲乙丙丁,"
                      " 东南西北 or 1-4)"
                      % (line, word))


def _tile(word, line):
    try:
        return tiles.parse_tile(word)
    except ValueError as e:
        raise ScriptError("line %d: %r is not a tile: %s" % (line, word, e)) from None


def _looks_like_tile(word):
    try:
        tiles.parse_tile(word)
        return True
    except ValueError:
        return False


def parse(text):
    """Script of a text; ScriptError naming the first bad line."""
    sc = Script()
    seen_action = False
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        # `甲：打 5m，碰` and full-width spaces: separators like spaces
        words = line.replace("：", " ").replace(":", " ").replace("，", " ").replace(
            "、", " ").split()
        head = words[0].lower().rstrip(":：")
        if head in HEADERS:
            if seen_action:
                raise ScriptError("line %d: %s must come before the hands and actions"
                                  % (no, words[0]))
            _header(sc, HEADERS[head], words, no)
            continue
        if head in END_WORDS and (len(words) == 1 or (
                len(words) == 2 and words[1].lower() in END_PASS_WORDS)):
            sc.steps.append(("end", no, len(words) == 2))
            seen_action = True
            continue
        seen_action = True
        seat = seat_of(words[0], no)
        _actions(sc, seat, words[1:], no, line)
    return sc


def _header(sc, key, words, no):
    if len(words) != 2:
        raise ScriptError("line %d: %s takes one value" % (no, words[0]))
    v = words[1]
    if key == "rules":
        sc.rules = (no, v)
    elif key == "dealer":
        sc.dealer = seat_of(v, no)
    else:
        d = DIRECTIONS.get(v.lower())
        if d is None:
            raise ScriptError("line %d: direction %r: use next, prev or across (下家 上家 对家)"
                              % (no, v))
        sc.direction = (no, d)


def _actions(sc, seat, words, no, text):
    if not words:
        raise ScriptError("line %d: %s does what? (e.g. 打 5m, 碰, 胡, 过)" % (no, text))
    i = 0
    while i < len(words):
        w = words[i]
        verb = VERBS.get(w.lower())
        if verb is None:
            raise ScriptError("line %d: %r is not an action (摸 打 碰 杠 暗杠 补杠 胡 自摸 过 "
                              "定缺 换三张 手牌)" % (no, w))
        i += 1
        rest = words[i:]
        if verb in (V_HAND, V_GIVE):
            if not rest:
                raise ScriptError("line %d: %s needs tiles" % (no, w))
            try:
                counts = tiles.parse("".join(rest))
            except ValueError as e:
                raise ScriptError("line %d: %s %s: %s" % (no, w, " ".join(rest), e)) from None
            sc.steps.append(Step(no, seat, verb, counts=counts, text=text))
            return
        if verb == V_QUE:
            if not rest:
                raise ScriptError("line %d: 定缺 needs a suit (m p s or 万 筒 条)" % no)
            try:
                suit = tiles.suit_index(rest[0])
            except ValueError as e:
                raise ScriptError("line %d: 定缺 %s: %s" % (no, rest[0], e)) from None
            sc.steps.append(Step(no, seat, verb, suit=suit, text=text))
            i += 1
            continue
        face = -1
        if verb in TILE_REQUIRED:
            if not rest:
                raise ScriptError("line %d: %s needs a tile (e.g. %s 5m)" % (no, w, w))
            face = _tile(rest[0], no)
            i += 1
        elif verb in TILE_OPTIONAL and rest and _looks_like_tile(rest[0]):
            face = _tile(rest[0], no)
            i += 1
        sc.steps.append(Step(no, seat, verb, face=face, text=text))


# ----- running ---------------------------------------------------------------


class Result:
    """What a script did. events: (line, filled, event) for every engine event
    (filled: made by a filled turn or an implied 过); game: the final Game."""

    def __init__(self, rs, game, events, filled, rules_note, lines=None, patterns=()):
        self.lines = lines or {}  # line number -> its text without the comment
        self.patterns = list(patterns)  # per win, in order: winfmt.win_patterns
        self.rs = rs
        self.game = game
        self.events = events
        self.filled = filled
        self.rules_note = rules_note

    def payments(self):
        return [(ln, e) for ln, _f, e in self.events if e[0] == EV_PAY]

    def wins(self):
        return [(ln, e) for ln, _f, e in self.events if e[0] == EV_WIN]

    def checks(self):
        return [(ln, e) for ln, _f, e in self.events if e[0] == EV_CHECK]

    def end(self):
        for _ln, _f, e in self.events:
            if e[0] == EV_HAND_END:
                return e[1]
        return -1


seat_name = names.seat_name


class Runner:
    def __init__(self, sc, rs):
        self.sc = sc
        self.rs = rs
        self.np = rs[R.P_PLAYERS]
        d = sc.direction[1] if sc.direction else G.DIR_NEXT
        if rs[R.P_HUANSANZHANG] and sc.direction is None:
            d = _first_direction(rs)
        try:
            self.g = G.Game(rs, sc.dealer, d)
        except ValueError as e:
            ln = sc.direction[0] if sc.direction else 1
            raise ScriptError("line %d: %s" % (ln, e)) from None
        self.events = []
        self.patterns = []  # of each win, scored just after it
        self.last = None  # the last action applied
        self.last_filled = False  # ... and whether a filled turn made it (passes aside)
        self.filled = 0
        self.t = 0
        # tiles later lines name: kept out of filled turns (reserved copies)
        self.reserved = bytearray(27)
        self.named = bytearray(27)
        for st in sc.steps:
            if isinstance(st, Step) and st.face >= 0:
                self.reserved[st.face] += 1
                self.named[st.face] += 1

    # -- engine calls

    def apply(self, a, line, text, filled=False):
        self.t += 1000
        a = (a[0], a[1], a[2], self.t)
        ev = self.g.apply(a)
        if ev[0][0] != EV_ACCEPTED:
            raise ScriptError("line %d: %s refused: %s" % (line, text, self._why(a, ev[0][2])))
        for e in ev:
            self.events.append((line, filled, e))
            if e[0] == EV_WIN:
                self.patterns.append(winfmt.win_patterns(self.g, e))
        self.last = a
        if a[0] != G.PASS:
            self.last_filled = filled
        return ev

    def _why(self, a, reason):
        g = self.g
        msg = REASONS[reason] if 0 <= reason < len(REASONS) else str(reason)
        if reason == claims.BAD_COUNT and a[0] == G.DEAL:
            want = self.rs[R.P_HAND_SIZE] + (1 if a[1] == g.dealer else 0)
            msg += " (%s holds %d%s)" % (seat_name(a[1]), want,
                                         " as the dealer" if a[1] == g.dealer else "")
        elif reason == claims.BAD_PHASE:
            msg += " (now: %s)" % self._now()
        return msg

    def _now(self):
        g = self.g
        ph = g.phase
        if ph == G.PH_DEAL:
            return "dealing: every seat's hand first"
        if ph == G.PH_EXCHANGE:
            return "换三张: every seat gives three"
        if ph == G.PH_DINGQUE:
            return "定缺: every seat declares its void"
        if ph == G.PH_DRAW:
            return "%s to draw" % seat_name(g.turn)
        if ph == G.PH_DISCARD:
            return "%s to discard" % seat_name(g.turn)
        if G.claim_open(ph):
            return "claims on %s's %s" % (seat_name(g.pseat), tiles.name(g.pend))
        return "the hand is over"

    # -- filling

    def free(self, f):
        return 4 - self.g.seen[f] - self.reserved[f]

    def _pick(self, s, line, pass_wins=False):
        """A tile seat s may draw and throw at once without changing anything
        that matters; ScriptError if none is left. pass_wins (`流局 过`): a
        tile that hands a win may be taken when no other is left; the win is
        passed (the engine refuses that pass where a win is forced)."""
        g = self.g
        rs = self.rs
        h = g.hand[s]
        v = g.void[s]
        need_void = v < 3 and claims.void_held(g, s)
        forced = rs[R.P_LAST4_FORCED] and g.wall - 1 < 4
        best = -1
        bkey = None
        for f in range(27):
            if not rs[R.P_SUITS] >> (f // 9) & 1 or self.free(f) <= 0:
                continue
            if need_void and f // 9 != v:
                continue
            h[f] += 1
            selfwin = not claims.void_held(g, s) and shape.is_win(h, v if v < 3 else -1)
            h[f] -= 1
            if selfwin and forced:
                continue
            hu = peng = 0
            for k in range(1, self.np):
                t = (s + k) % self.np
                m = claims.discard_mask(g, t, f)
                if m & claims.C_HU:
                    hu = 1
                elif m:
                    peng = 1
            if hu and not pass_wins:
                continue
            key = (hu, self.named[f] > 0, self._wanted(s, f), peng, selfwin, -self.free(f), f)
            if bkey is None or key < bkey:
                best, bkey = f, key
        if best < 0:
            if need_void:
                why = " (%s holds its void suit and no %s is left)" % (seat_name(s), "万筒条"[v])
            else:
                why = "; %s" % self._winners_left(s)
            raise ScriptError("line %d: cannot fill %s's turn before this line: no tile to "
                              "draw and throw%s; write the draws%s" % (
                                  line, seat_name(s), why,
                                  "" if need_void or pass_wins else
                                  ", or end with `流局 过` if the wall ran out with those "
                                  "wins passed"))
        return best

    def _winners_left(self, s):
        """The tiles nobody has seen, and who would win on each if seat s drew
        it: `left 5m x2 (乙 丙 胡), 1s (丁 自摸)`."""
        g = self.g
        parts = []
        for f in range(27):
            n = 4 - g.seen[f]
            if n <= 0 or not self.rs[R.P_SUITS] >> (f // 9) & 1:
                continue
            who = []
            h = g.hand[s]
            h[f] += 1
            if not claims.void_held(g, s) and shape.is_win(h, g.void[s] if g.void[s] < 3 else -1):
                who.append("%s 自摸" % seat_name(s))
            h[f] -= 1
            for k in range(1, self.np):
                t = (s + k) % self.np
                if claims.discard_mask(g, t, f) & claims.C_HU:
                    who.append("%s 胡" % seat_name(t))
            if self.reserved[f]:
                who.append("named by a later line")
            parts.append("%s%s%s" % (tiles.name(f), " x%d" % n if n > 1 else "",
                                     " (%s)" % ", ".join(who) if who else ""))
        return "tiles left: %s" % (", ".join(parts) or "none")

    def _wanted(self, s, f):
        """1 if another seat holding its void suit needs tiles of f's suit."""
        g = self.g
        for t in range(self.np):
            if t != s and g.void[t] == f // 9 and claims.void_held(g, t):
                return 1
        return 0

    def fill_turn(self, line, pass_wins=False):
        g = self.g
        s = g.turn
        f = self._pick(s, line, pass_wins)
        self.filled += 1
        self.apply((G.DRAW, s, f), line, "filled turn", True)
        self.apply((G.DISCARD, s, f), line, "filled turn", True)

    def pass_one(self, line, text):
        """Answer 过 for the first open prompt after the discarder."""
        g = self.g
        for k in range(1, self.np + 1):
            t = (g.pseat + k) % self.np
            if g.prompt_mask(t):
                r = g.check((G.PASS, t, -1, 0))
                if r:
                    raise ScriptError("line %d: %s may not pass %s's %s (%s); write its 胡"
                                      % (line, seat_name(t), seat_name(g.pseat),
                                         tiles.name(g.pend), REASONS[r]))
                self.apply((G.PASS, t, -1), line, "implied 过", True)
                return
        raise ScriptError("line %d: no open claim to pass" % line)  # not reached

    def play_out(self, line, pass_wins=False):
        """流局: fill every remaining turn until the wall is empty (pass_wins:
        `流局 过`, see _pick)."""
        g = self.g
        if g.phase == G.PH_END:
            raise ScriptError("line %d: 流局, but the hand is already over" % line)
        if g.phase < G.PH_DRAW:
            raise ScriptError("line %d: 流局 refused: %s" % (line, self._now()))
        while g.phase != G.PH_END:
            if G.claim_open(g.phase):
                self.pass_one(line, "流局")
            elif g.phase == G.PH_DRAW:
                self.fill_turn(line, pass_wins)
            else:
                raise ScriptError("line %d: %s is to discard before the wall runs out; "
                                  "write what %s threw" % (line, seat_name(g.turn),
                                                           seat_name(g.turn)))
        if g.end != G.END_WALL:
            raise ScriptError("line %d: 流局, but the hand ended with its last winner" % line)

    # -- one step

    def _release(self, st):
        """The line's own tile is no longer kept out of filled turns."""
        if st.face >= 0 and self.reserved[st.face]:
            self.reserved[st.face] -= 1
            self.named[st.face] -= 1

    def step(self, st):
        g = self.g
        s = st.seat
        if s >= self.np:
            raise ScriptError("line %d: %s is not a seat of this %d-player ruleset"
                              % (st.line, seat_name(s), self.np))
        v = st.verb
        text = st.text
        if v == V_HAND:
            return self.apply((G.DEAL, s, st.counts), st.line, text)
        if v == V_GIVE:
            fs = [f for f in range(27) for _ in range(st.counts[f])]
            return self.apply((G.EXCHANGE, s, fs), st.line, text)
        if v == V_QUE:
            return self.apply((G.DINGQUE, s, st.suit), st.line, text)
        if g.phase < G.PH_DRAW:
            raise ScriptError("line %d: %s refused: the hand has not started (%s)"
                              % (st.line, text, self._now()))
        # the turns before this line are filled while its tile is still kept
        # out of them (a filled turn taking it would make the line a fifth copy)
        self._reach(st)
        self._release(st)
        return self._act(st)

    def _is_claim(self, st):
        g = self.g
        if st.verb in CLAIM_VERBS:
            return True
        if st.verb in (V_HU, V_GANG):  # on a discard / robbed 补杠, not one's own turn
            if not G.claim_open(g.phase) or st.seat == g.pseat:
                return False
            # prompted, or naming no other tile: a claim (the engine says why not)
            return bool(g.prompt_mask(st.seat)) or st.face < 0 or st.face == g.pend
        return False

    def _reach(self, st):
        """Fill what the script left out until seat st.seat can do st."""
        g = self.g
        s = st.seat
        for _ in range(400):
            ph = g.phase
            if ph == G.PH_END:
                return  # the engine refuses: the hand is over
            if G.claim_open(ph):
                # a filled turn's discard is never claimed: the script did not write it
                if self._is_claim(st) and not self.last_filled:
                    return
                self.pass_one(st.line, st.text)
                continue
            self._late_claim(st)
            if self._is_claim(st):
                return  # nothing to claim: the engine says so
            if g.status[s] & claims.ST_LEFT:
                raise ScriptError("line %d: %s refused: %s has won and left the hand"
                                  % (st.line, st.text, seat_name(s)))
            if ph == G.PH_DISCARD:
                if g.turn != s:
                    raise ScriptError("line %d: %s is to discard first; write what %s threw"
                                      % (st.line, seat_name(g.turn), seat_name(g.turn)))
                return
            if g.turn != s:  # PH_DRAW of another seat: a turn the script skipped
                if g.wall <= 0:
                    return
                self.fill_turn(st.line)
                continue
            self._implied_draw(st)
            return
        raise ScriptError("line %d: too many turns to fill" % st.line)

    def _late_claim(self, st):
        """A claim written on a discard that opened no claim window: say why."""
        a = self.last
        v = st.verb
        if a is None or a[0] != G.DISCARD or a[1] == st.seat or self.g.phase != G.PH_DRAW:
            return
        if v not in (V_HU, V_PENG, V_GANG, V_ZHIGANG, V_PASS):
            return
        f = a[2]
        if st.face >= 0 and st.face != f:
            return  # a tile of its own turn (自摸 5m, 杠 9p)
        bit = claims.C_HU if v == V_HU else (claims.C_PENG if v == V_PENG else claims.C_GANG)
        r = claims.claim_reason(self.g, st.seat, bit, f) if v != V_PASS else 0
        why = REASONS[r] if r else "no claim was open on it"
        raise ScriptError("line %d: %s refused: %s (%s's %s)"
                          % (st.line, st.text, why, seat_name(a[1]), tiles.name(f)))

    def _implied_draw(self, st):
        """s is to draw and the line does something else: the tile it names was drawn."""
        g = self.g
        v = st.verb
        f = st.face
        if v == V_DRAW:
            return
        if v in (V_PASS, V_PENG, V_ZHIGANG):
            return
        if f < 0:
            raise ScriptError("line %d: %s is to draw first; write %s 摸 T (or name the tile: "
                              "%s %s T)" % (st.line, seat_name(st.seat), seat_name(st.seat),
                                            seat_name(st.seat), VERB_ZH[v]))
        if v == V_ANGANG and g.hand[st.seat][f] == 4:
            raise ScriptError("line %d: %s holds four %s already; write the tile drawn (摸)"
                              % (st.line, seat_name(st.seat), tiles.name(f)))
        self.apply((G.DRAW, st.seat, f), st.line, "%s 摸 %s (implied)" % (
            seat_name(st.seat), tiles.name(f)))

    def _act(self, st):
        g = self.g
        s = st.seat
        v = st.verb
        f = st.face
        line = st.line
        if v == V_DRAW:
            return self.apply((G.DRAW, s, f), line, st.text)
        if v == V_DISCARD:
            return self.apply((G.DISCARD, s, f), line, st.text)
        if v == V_PASS:
            return self.apply((G.PASS, s, -1), line, st.text)
        claiming = G.claim_open(g.phase)
        if claiming and f >= 0 and f != g.pend and v in (V_PENG, V_GANG, V_ZHIGANG, V_HU):
            raise ScriptError("line %d: %s refused: the tile on the table is %s, not %s"
                              % (line, st.text, tiles.name(g.pend), tiles.name(f)))
        if v == V_PENG:
            return self.apply((G.PENG, s, -1), line, st.text)
        if v == V_ZHIGANG or (v == V_GANG and claiming):
            return self.apply((G.ZHIGANG, s, -1), line, st.text)
        if v == V_GANG:
            if f < 0:
                raise ScriptError("line %d: 杠 on one's own turn needs the tile (杠 9p)" % line)
            kind = G.ANGANG if g.hand[s][f] >= 4 else G.BUGANG
            return self.apply((kind, s, f), line, st.text)
        if v == V_ANGANG:
            return self.apply((G.ANGANG, s, f), line, st.text)
        if v == V_BUGANG:
            return self.apply((G.BUGANG, s, f), line, st.text)
        if v == V_ZIMO and claiming:
            raise ScriptError("line %d: 自摸 is a win on one's own draw; on %s's discard "
                              "write 胡" % (line, seat_name(g.pseat)))
        if v in (V_HU, V_ZIMO) and not claiming and f >= 0 and g.drawn >= 0 and f != g.drawn:
            raise ScriptError("line %d: %s refused: %s drew %s, not %s"
                              % (line, st.text, seat_name(s), tiles.name(g.drawn),
                                 tiles.name(f)))
        return self.apply((G.HU, s, f), line, st.text)


def _first_direction(rs):
    for d in (G.DIR_NEXT, G.DIR_PREV, G.DIR_ACROSS):
        if rs[R.P_HSZ_DIRS] & d:
            return d
    return G.DIR_NEXT


def load_rules(sc, default, base=None):
    """The script's ruleset; a rule file named in it is looked for next to the
    script first (base: the script's directory)."""
    import os

    spec = sc.rules[1] if sc.rules else default
    if sc.rules and base and not os.path.isabs(spec) and os.path.exists(os.path.join(base, spec)):
        spec = os.path.join(base, spec)
    try:
        return rulefile.load(spec)
    except BadInput as e:
        raise ScriptError("line %d: %s" % (sc.rules[0], e) if sc.rules else str(e)) from None


def run(text, default_rules="xuezhan", base=None):
    """Play a script; Result, or ScriptError naming the line. base: the
    script's directory (rule files named in it are looked for there first)."""
    sc = parse(text)
    rs = load_rules(sc, default_rules, base)
    note = ""
    gives = [st for st in sc.steps if isinstance(st, Step) and st.verb == V_GIVE]
    if rs[R.P_HUANSANZHANG] and not gives:
        rs.set(R.P_HUANSANZHANG, 0)  # the hands are given after the exchange
        note = "hands after 换三张"
    elif gives and not rs[R.P_HUANSANZHANG]:
        raise ScriptError("line %d: this ruleset has no 换三张" % gives[0].line)
    if sc.direction and not gives:
        raise ScriptError("line %d: direction without 换三张 lines" % sc.direction[0])
    run_ = Runner(sc, rs)
    for st in sc.steps:
        if isinstance(st, tuple):
            run_.play_out(st[1], st[2])
        else:
            run_.step(st)
    last = sc.steps[-1] if sc.steps else None
    while G.claim_open(run_.g.phase):  # claims left unwritten at the end: 过
        run_.pass_one(last.line if isinstance(last, Step) else last[1], "end")
    lines = {}
    for no, raw in enumerate(text.splitlines(), 1):
        lines[no] = raw.split("#", 1)[0].strip()
    return Result(rs, run_.g, run_.events, run_.filled, note, lines, run_.patterns)

"""Archived hands as the engine sees them: the log's hand-log bytes, the ruleset
it was played under, and a re-run of its actions through sichuan.game (the
table's own rules core on CPython). Used by replay, rescore and export."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sichuan import game as G
from sichuan import handlog, meld, tiles
from sichuan import ruleset as R
from sichuan.settle import CK_READY, EV_ACCEPTED, EV_CHECK, EV_PAY, EV_WIN

from mjtable import BadInput
from mjtable.logs import logfmt
from mjtable.referee import winfmt
from mjtable.rules import names, rulefile

SEAT_NAMES = names.SEAT_NAMES


@dataclass
class Hand:
    row: int
    table_id: str
    log_id: int
    seal: str
    rules_crc: str | None
    log: logfmt.HandLogFile
    rs: object = None
    header: tuple = ()
    records: list = field(default_factory=list)
    stopped: int | None = None  # the action the engine refused (run), if any


def load(ar, row: int, rules: str | None = None) -> Hand:
    """The archived hand `row`; its ruleset from the archive (by the CRC its
    header records) unless `rules` (PRESET|FILE) is given."""
    table_id, log_id, data, seal, crc = ar.log_data(row)
    try:
        log = logfmt.parse(data)
    except logfmt.LogDamaged as e:
        raise BadInput("hand %d: archived log is damaged: %s" % (row, e)) from None
    h = Hand(row, table_id, log_id, seal, crc, log)
    buf = log.handlog()
    try:
        h.header, h.records = handlog.decode(buf)
    except ValueError as e:
        raise BadInput("hand %d: hand log does not decode: %s" % (row, e)) from None
    if rules:
        h.rs = rulefile.load(rules)
    else:
        h.rs = ruleset_of(ar, h.header[0])
        if h.rs is None:
            raise BadInput("hand %d was played under ruleset CRC %08X, not in the archive; "
                           "give --rules PRESET|FILE" % (row, h.header[0]))
    return h


def ruleset_of(ar, crc: int):
    """The ruleset with this CRC: from the archive (pulled or pushed), else a preset."""
    blob = ar.ruleset_blob("%08x" % crc)
    if blob is not None:
        return R.from_blob(blob)
    from sichuan import presets

    for name in presets.names():
        rs = presets.get(name)
        if rs.crc() == crc:
            return rs
    return None


def fmt_action(a) -> str:
    kind, seat, arg, _t = a
    name = names.ACTION_NAMES[kind] if kind < len(names.ACTION_NAMES) else "kind%d" % kind
    who = SEAT_NAMES[seat] if seat < len(SEAT_NAMES) else "seat%d" % seat
    if kind in (G.DEAL, G.EXCHANGE) and isinstance(arg, tuple):
        c = bytearray(27)
        for f in arg:
            c[f] += 1
        return "%s %s %s" % (who, name, tiles.to_text(c))
    if kind == G.DINGQUE:
        return "%s %s %s" % (who, name, "mps"[arg] if 0 <= arg < 3 else "?")
    if isinstance(arg, int) and 0 <= arg < 27 and kind not in (G.PENG, G.ZHIGANG, G.PASS):
        return "%s %s %s" % (who, name, tiles.name(arg))
    return "%s %s" % (who, name)


def fmt_pay(e) -> str:
    if e[4] >= len(names.PAY_NAMES):
        return "%s pays %s %d (reason %d)" % (SEAT_NAMES[e[1]], SEAT_NAMES[e[2]], e[3], e[4])
    return "%s pays %s %d %s (%s)" % (SEAT_NAMES[e[1]], SEAT_NAMES[e[2]], e[3],
                                      names.PAY_ZH[e[4]], names.PAY_NAMES[e[4]])


def fmt_win(g, e) -> str:
    """`North 自摸 5m, 2 番: 清一色 qingyise +2` (g: the game just after the win)."""
    how = "自摸 %s" % tiles.name(e[5]) if e[4] < 0 else "胡 %s on %s's discard" % (
        tiles.name(e[5]), SEAT_NAMES[e[4]])
    extra = " ".join(names.flags_of(e[3] & ~1, zh=True))
    return "%s %s, %s%s: %s" % (SEAT_NAMES[e[1]], how, winfmt.fan_text(g.rs, e[2]),
                                " (%s)" % extra if extra else "",
                                winfmt.patterns_text(winfmt.win_patterns(g, e), g.rs))


def fmt_checks(rs, evs) -> str:
    """The 流局 verdicts of one action's events: `流局: East 听牌 (2 番), South 没叫`,
    or "" if it made none."""
    out = []
    for e in evs:
        if e[0] == EV_CHECK:
            v = " (%s)" % winfmt.fan_text(rs, e[3]) if e[2] == CK_READY else ""
            out.append("%s %s%s" % (SEAT_NAMES[e[1]], names.CHECK_ZH[e[2]], v))
    return "流局 (wall empty): " + ", ".join(out) if out else ""


def reason_text(r) -> str:
    """A refusal reason's text (names.REASONS), its number if unknown."""
    return names.REASONS[r] if 0 <= r < len(names.REASONS) else "reason %d" % r


def duration_text(h) -> str:
    """How long the hand was played by the table's clock: `23 min 5 s, 138 actions`."""
    acts = [r[1] for r in h.records if r[0] == handlog.REC_ACTION]
    if not acts:
        return "no actions"
    ms = acts[-1][3] - h.header[4]
    if ms < 0:
        return "for an unknown time, %d actions" % len(acts)
    m, sec = divmod(ms // 1000, 60)
    return "%s%d s, %d action%s" % ("%d min " % m if m else "", sec, len(acts),
                                     "" if len(acts) == 1 else "s")


def pulled_text(ar, row: int) -> str:
    """When the host archived the hand (UTC): the log itself holds no wall time."""
    t = next((r[7] for r in ar.logs() if r[0] == row), None)
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t)) if t else "unknown"


def melds_text(g, s) -> str:
    out = []
    for m in g.meld_list(s):
        k = names.KIND_NAMES[meld.kind(m)]
        out.append("%s:%s" % (k, tiles.name(meld.face(m))))
    return " ".join(out)


def discards_text(g, s) -> str:
    out = []
    for i in range(g.ndisc):
        if g.dseat[i] == s:
            f = g.disc[i]
            out.append(tiles.name(f & 0x7F) + ("*" if f & 0x80 else ""))
    return " ".join(out)


def run(h: Hand, each=None):
    """Re-run the hand's actions through a fresh Game. each(action, events, g,
    logged_payments) after each action. Returns (game, differences): a list of
    texts naming where the engine's payments differ from the log's, or an
    action it refuses."""
    g = G.Game(h.rs, h.header[2], h.header[3])
    diffs: list = []
    recs = h.records
    i = 0
    while i < len(recs):
        r = recs[i]
        i += 1
        if r[0] != handlog.REC_ACTION:
            diffs.append("payment %r without an action before it" % (r[1:],))
            continue
        logged = []
        while i < len(recs) and recs[i][0] == handlog.REC_PAY:
            logged.append(tuple(recs[i][1:]))
            i += 1
        evs = g.apply(r[1])
        if evs[0][0] != EV_ACCEPTED:
            h.stopped = i
            diffs.append("action %d (%s) refused by the engine: %s; the replay stops there"
                         % (i, fmt_action(r[1]), reason_text(evs[0][2])))
            break
        paid = [(e[1], e[2], e[3], e[4]) for e in evs if e[0] == EV_PAY]
        if paid != logged:
            diffs.append("after %s: table paid %s, engine pays %s"
                         % (fmt_action(r[1]), logged, paid))
        if each is not None:
            each(r[1], evs, g, logged)
    return g, diffs


def wins(evs) -> list:
    return [e for e in evs if e[0] == EV_WIN]


def state_lines(g) -> list:
    """Each seat of game g, a line: its hand, melds, void suit, discards, points."""
    out = []
    for s in range(g.np):
        void = "mps"[g.void[s]] if g.void[s] < 3 else "-"
        out.append("    %-5s %-22s melds [%s] void %s  discards %s  %+d"
                   % (SEAT_NAMES[s], tiles.to_text(g.hand[s]) or "-",
                      melds_text(g, s), void, discards_text(g, s) or "-",
                      g.delta[s]))
    return out

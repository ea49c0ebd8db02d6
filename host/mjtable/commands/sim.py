"""`mjtable sim`: bots play a seeded match through the game engine.

    mjtable sim --rules PRESET|FILE --hands N --seed S [--engine micropython]
                [--log DIR] [--json]

The match itself is simcore (MicroPython subset): run in-process on CPython,
or in the MicroPython unix port through mp_sim.py, which streams one JSON
line per hand. Either way this module prints the output from the same data,
so one seed gives byte-identical output on both engines.

Text: one result line per hand, then the match table. --json: one object
per hand ({"hand", "dealer", "direction", "end", "wins", "deltas", "totals",
"actions"}), then {"totals", "ranking", ...}. A progress bar goes to stderr
when it is a terminal. --log DIR writes each hand's binary log (handlog
format) as DIR/hand-NNNN.hl.
"""

import json
import os
import subprocess
import sys
import time

from sichuan import ruleset, tiles

from mjtable import BadInput
from mjtable.referee import mpengine, patnames, simcore, winfmt
from mjtable.rules import names, rulefile

DIRECTION_NAMES = {1: "prev", 2: "next", 4: "across"}
MAX_HANDS = 1000000


def add_parsers(sub):
    hlp = "self-play: four bots play a seeded match (result lines and the match table)"
    p = sub.add_parser("sim", help=hlp, description=hlp)
    p.add_argument("--rules", metavar="PRESET|FILE", default="xuezhan",
                   help="preset name, .toml rule file or compiled blob (default xuezhan)")
    p.add_argument("--hands", metavar="N", type=int, default=None,
                   help="hands to play (default: the ruleset's match length)")
    p.add_argument("--seed", metavar="S", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--engine", choices=("cpython", "micropython"), default="cpython",
                   help="interpreter running the engine and the bots (default cpython)")
    p.add_argument("--log", metavar="DIR", help="write each hand's binary log into DIR")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(func=run)


# -- engines: each yields hand dicts, then returns the summary


def _cpython(rs, hands, seed, log):
    sim = simcore.Sim(rs, seed)
    for _ in range(hands):
        yield sim.play_hand(log)
    yield {"summary": sim.summary()}


def _micropython(rs, hands, seed, log):
    req = {"rules": rs.to_blob().hex(), "hands": hands, "seed": seed, "log": bool(log)}
    cmd, env = mpengine.command("mp_sim.py")
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise BadInput("cannot run %s: %s" % (cmd[0], e)) from None
    try:
        proc.stdin.write((json.dumps(req) + "\n").encode())
        proc.stdin.close()
        got = 0
        for line in proc.stdout:
            try:
                d = json.loads(line)
            except ValueError:
                raise BadInput("micropython engine wrote bad JSON: %r" % line[:80]) from None
            if "error" in d:
                raise BadInput(d["error"])
            if "log" in d:
                d["log"] = bytes.fromhex(d["log"])
            if "summary" not in d:
                got += 1
            yield d
        proc.wait()
        if proc.returncode != 0 or got != hands:
            err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            raise BadInput("micropython engine failed (exit %d, %d of %d hands)%s"
                           % (proc.returncode, got, hands, ": " + err[-1] if err else ""))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


# -- output


seat_name = names.seat_name


def hand_json(rs, r):
    """The per-hand JSON object, keys in a fixed order."""
    wins = [{"seat": w[0], "fan": w[1], "flags": names.flags_of(w[2]), "from": w[3],
             "tile": tiles.name(w[4]), "fan_shown": winfmt.shown(rs, w[1])} for w in r["wins"]]
    for d, w in zip(wins, r["wins"], strict=True):
        if len(w) > 5:  # house patterns in the ruleset: every win names its patterns
            d["patterns"] = {p: v for p, v in w[5]}
    out = {"hand": r["hand"], "dealer": r["dealer"],
           "direction": DIRECTION_NAMES.get(r["direction"], r["direction"]),
           "end": r["end"], "wins": wins, "deltas": r["deltas"], "totals": r["totals"],
           "actions": r["actions"]}
    if "ma" in r:  # 叫马: totals are net of what each seat paid the 马 ("paid")
        out["ma"] = {"seat": r["ma"][0], "delta": r["ma"][1], "paid": r["ma"][2]}
    return out


def summary_json(m):
    out = {"hands": m["hands"], "totals": m["totals"], "ranking": m["ranking"],
           "wins": m["wins"], "zimo": m["zimo"], "dealt_in": m["dealt_in"],
           "kongs": m["kongs"], "ends": {"wall": m["ends"]["wall"],
                                         "winners": m["ends"]["winners"]},
           "actions": m["actions"]}
    if "ma_total" in m:  # 叫马: the 马's own result
        out["ma_total"] = m["ma_total"]
    return out


def _win_text(rs, w):
    how = "自摸" if w[3] < 0 else "胡 (%s 点炮)" % seat_name(w[3])
    text = "%s %s %s %s" % (seat_name(w[0]), how, tiles.name(w[4]), winfmt.fan_text(rs, w[1]))
    house = [(p, v) for p, v in w[5] if p in rs_house_ids(rs)] if len(w) > 5 else ()
    if house:  # the ruleset's own patterns, named on the win that counted them
        text += " [%s]" % ", ".join("%s %+d" % (winfmt.pattern_zh(p, rs), v) for p, v in house)
    return text


def rs_house_ids(rs):
    """The ids of the ruleset's house patterns."""
    return [h[0] for h in patnames.house_list(rs)]


def hand_line(rs, r, width):
    deltas = "  ".join("%s %+4d" % (seat_name(s), d) for s, d in enumerate(r["deltas"]))
    wins = "; ".join(_win_text(rs, w) for w in r["wins"]) or "no win"
    return "hand %*d  dealer %-5s  %-7s  %s  | %s" % (
        width, r["hand"], seat_name(r["dealer"]), r["end"], deltas, wins)


def table(rs, m, seed, engine, start):
    out = ["", "match: rules %s, %d hand%s, seed %d, engine %s, start %d each" % (
        rs.name, m["hands"], "" if m["hands"] == 1 else "s", seed, engine, start)]
    out.append("rank  seat    total   delta   wins  自摸  点炮  kongs")
    for i, s in enumerate(m["ranking"]):
        out.append("%4d  %-5s  %6d  %+6d  %5d  %4d  %4d  %5d" % (
            i + 1, seat_name(s), m["totals"][s], m["totals"][s] - start, m["wins"][s],
            m["zimo"][s], m["dealt_in"][s], m["kongs"][s]))
    out.append("hands ended by the wall (流局) %d, by winners %d; %d actions"
               % (m["ends"]["wall"], m["ends"]["winners"], m["actions"]))
    return "\n".join(out)


class Progress:
    """A one-line bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total, stream=None):
        self.stream = stream or sys.stderr
        self.total = total
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty() and total > 1
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, done):
        if not self.on:
            return
        now = time.monotonic()
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        fill = width * done // self.total
        rate = done / max(now - self.t0, 1e-6)
        self.stream.write("\r[%s%s] %d/%d hands  %.0f/s " % (
            "#" * fill, "." * (width - fill), done, self.total, rate))
        self.stream.flush()

    def close(self):
        if self.on:
            self.stream.write("\r" + " " * 60 + "\r")
            self.stream.flush()


def _log_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise BadInput("--log %s: %s" % (path, e)) from None
    return path


def run(args):
    rs = rulefile.load(args.rules)
    hands = args.hands if args.hands is not None else rs[ruleset.P_HANDS]
    if not 1 <= hands <= MAX_HANDS:
        raise BadInput("--hands %d: play 1 to %d hands" % (hands, MAX_HANDS))
    if not 0 <= args.seed <= 0xFFFFFFFF:
        raise BadInput("--seed %d: use 0 to 4294967295" % args.seed)
    logdir = _log_dir(args.log) if args.log else None
    engine = _micropython if args.engine == "micropython" else _cpython
    width = len(str(hands))
    bar = Progress(hands)
    summary = None
    try:
        for r in engine(rs, hands, args.seed, logdir is not None):
            if "summary" in r:
                summary = r["summary"]
                continue
            if logdir is not None:
                _write_log(logdir, r)
            print(json.dumps(hand_json(rs, r), ensure_ascii=False) if args.json
                  else hand_line(rs, r, width))
            bar.update(r["hand"])
    finally:
        bar.close()
    if args.json:
        print(json.dumps(summary_json(summary), ensure_ascii=False))
    else:
        print(table(rs, summary, args.seed, args.engine, rs[ruleset.P_START_POINTS]))
    return 0


def _write_log(logdir, r):
    path = os.path.join(logdir, "hand-%04d.hl" % r["hand"])
    try:
        with open(path, "wb") as f:
            f.write(r["log"])
    except OSError as e:
        raise BadInput("--log: cannot write %s: %s" % (path, e)) from None

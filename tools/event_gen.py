"""A generated 竞技 event for the tests and the bench: hand logs as the table
writes them, from `mjtable sim` matches.

Each hand is a simcore bot hand (the engine of `mjtable sim`), logged by the
firmware's own code: table.logstore / table.recordlog files, one T_HEAD
record, one T_ACT record per action with its payments (sichuan.handlog.Writer,
as table/controller.py appends them), T_END, and the seal of table.hostcmds
with the table key. A table's folder holds its rounds' matches in order, so
its log ids run 1, 2, ... as a table's do.

    python tools/event_gen.py OUT TABLES ROUNDS HANDS      (prints the event file path)
"""

import os
import struct
import sys

import sichuan  # noqa: F401  (the micropython.const shim)
from mjtable.referee import simcore
from sichuan import handlog, presets
from table import hostcmds
from table.link import Link
from table.logstore import LogStore

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

KEY = bytes(range(21, 53))
RULES = "tfmj-2024"
GAP_MS = 90 * 1000  # between hands on a table's clock
_SURNAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"
_PINYIN = ("Zhao Qian Sun Li Zhou Wu Zheng Wang Feng Chen Chu Wei Jiang Shen Han Yang Zhu Qin "
           "You Xu He Lv Shi Zhang Kong Cao Yan Hua Jin Wei Tao Jiang").split()
_GIVEN = "伟芳娜洋静磊敏勇杰霞涛丽超琳斌"
_GIVEN_PY = "Wei Fang Na Yang Jing Lei Min Yong Jie Xia Tao Li Chao Lin Bin".split()


def table_id(n: int) -> bytes:
    return b"EV" + b"%06d" % n


class _Writer(handlog.Writer):
    """handlog.Writer that notes where each action's bytes end (one T_ACT
    record each) and runs on the table's clock (t0 = the table's time)."""

    base = 0
    last = None  # the writer of the hand just played

    def __init__(self, crc, players, dealer, direction, t0=0, buf=None):
        super().__init__(crc, players, dealer, direction, _Writer.base, buf)
        self.cuts = [len(self.buf)]
        _Writer.last = self

    def record(self, a, events):
        super().record((a[0], a[1], a[2], a[3] + _Writer.base), events)
        self.cuts.append(len(self.buf))


class _Handlog:
    Writer = _Writer


def play_table(folder: str, tid: bytes, rounds: int, hands: int, seed: int, rules=RULES):
    """Play `rounds` matches of `hands` hands at one table into folder (a
    LogStore), sealed with KEY. Returns [[points per hand] per round]."""
    rs = presets.get(rules)
    logs = LogStore(folder, reserve=0, max_logs=1 << 30)
    link = Link(lambda mv: 0, lambda mv: len(mv), key=KEY, table_id=tid)
    host = hostcmds.install(link, logs, root=folder, table_id=tid)
    out = []
    clock = 1000
    real = simcore.handlog
    simcore.handlog = _Handlog  # the sim's writer, noting each action's bytes
    try:
        for r in range(rounds):
            sim = simcore.Sim(rs, seed * 1000 + r)
            pts = []
            for _ in range(hands):
                _Writer.base = clock
                h = sim.play_hand(log=True)
                w = _Writer.last
                log = logs.new_log()
                log.append(hostcmds.T_HEAD, w.buf[:w.cuts[0]])
                for a, b in zip(w.cuts, w.cuts[1:], strict=False):
                    log.append(hostcmds.T_ACT, w.buf[a:b])
                log.append(hostcmds.T_END, struct.pack("<%dh" % len(h["deltas"]), *h["deltas"]))
                host.seal(log)
                log.close()
                pts.append(h["deltas"])
                clock = w.t + GAP_MS
            out.append(pts)
    finally:
        simcore.handlog = real
    return out


def event_file(path: str, eid: str, players: int, rounds: int, hands: int) -> str:
    lines = ["[event]", 'id = "%s"' % eid, 'name = "生成的竞技赛 %s"' % eid,
             'dates = ["2026-12-05"]', 'ruleset = "%s"' % RULES, "hands_per_match = %d" % hands,
             "minutes_per_match = 50", "rounds = %d" % rounds, "seed = 7",
             "placement_points = [4, 2, 1, 0]",
             'tiebreaks = ["raw_points", "head_to_head", "firsts"]', ""]
    for i in range(players):
        s, g = i % len(_SURNAMES), (i // len(_SURNAMES)) % len(_GIVEN)
        lines += ["[[players]]", 'id = "P%04d"' % (i + 1),
                  'name = "%s%s"' % (_SURNAMES[s], _GIVEN[g]),
                  'latin = "%s %s"' % (_PINYIN[s], _GIVEN_PY[g]),
                  'club = "Club %d"' % (i % 16 + 1), ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path


def generate(out: str, tables: int, rounds: int, hands: int) -> str:
    """The event file and OUT/logs/TABLE_ID/h*.log; kept if already there."""
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    for n in range(1, tables + 1):
        tid = table_id(n)
        folder = os.path.join(out, "logs", tid.hex())
        done = os.path.join(folder, "done")
        if os.path.exists(done):
            continue
        play_table(folder, tid, rounds, hands, n)
        open(done, "w").close()
    return event_file(os.path.join(out, "event.toml"), "gen%d" % tables, tables * 4, rounds,
                      hands)


if __name__ == "__main__":
    print(generate(sys.argv[1], *(int(a) for a in sys.argv[2:5])))

"""The virtual table: four racks and trays of tagged tiles, moved by bot
players who press the seats' keys, and the table's chips (PN5180 readers,
HT16K33 displays, MCP23017 key expanders, the LED chain: mjsim/chipsim)
simulated in this process, at bus/register level. The firmware process
runs the real drivers on bus stand-ins that forward every SPI/I2C/pin
transaction here over a socket (TCP on 127.0.0.1 only; sim/mjsim/board.py),
so it holds only what the board would hold.

    python -m mjsim.virtual [--seed N] [--miss 0.05] [--phantom 0.01]
                                  [--dup 0.02] [--unknown 0.02] [--preset xuezhan]

runs one match against the firmware on the MicroPython unix port (built
for this machine's port into build/firmware-unix by `build_fw()`: the
board's build in build/firmware holds armv6m viper code) and prints the
final scores.

The table keeps the truth: its own copy of the engine (sichuan.game, the
same code the firmware runs) to which each bot move is applied as it is
made on the table. After each move the table waits until the firmware has
accepted the same action and says the table is settled, so every action the
firmware accepts is compared with the move that was made ("no wrong action
accepted"), and at the end the firmware's scores with the truth's.

Faults: missed and phantom reads happen inside the PN5180 simulators here
(seeded, at the given rates); a duplicated tag (a copy of a tile's
UID on another antenna) and an unknown tag (a UID not enrolled) are placed
by the table between moves at the given rates per move, left until the
firmware shows the alert (or 40 frames), then taken away.

Wire format: see sim/mjsim/board.py.
"""

import os
import random
import select
import socket
import struct
import subprocess
import sys
import tempfile

import sichuan  # noqa: F401  (const shim)
from mjtable.firmware import tree
from sichuan import game as G
from sichuan import presets, shape
from sichuan import ruleset as R
from sichuan.claims import C_FEI, C_GANG, C_HU, C_PENG, MUST_WIN
from sichuan.settle import EV_EXCHANGED, EV_HAND_END, EV_WIN

from mjsim import unixbuild
from mjsim.chipsim.ht16k33_sim import HT16K33Sim
from mjsim.chipsim.machine_sim import SimTable
from mjsim.chipsim.pins import PinSim
from mjsim.chipsim.pn5180_sim import uid_bytes

MP = tree.tool("micropython")
# The firmware's code runs in place from a ROMFS image (mjsim.mprun), as
# from a ROMFS partition on the board; its heap still holds the modules'
# dictionaries, function objects and interned names (76 KB on this 64-bit
# build; a 32-bit board needs less, more than half) and the board's drivers
# (16 KB); the chip simulators run here. The live peak through a match is
# 109 KB (132 KB with the host link's task); the xuezhan match runs through
# in 114K in five runs of five (140K with the link), so the 96 KB
# does not hold it yet (docs/table.md, `make bench`). The tests keep room:
# the variants and fault runs are not measured at the floor.
HEAP = "256K"
FW = tree.build("firmware-unix")
S_PLAY, S_END, S_DONE = 1, 2, 4
KEY_HU, KEY_PENG, KEY_GANG, KEY_GUO, KEY_WAN = 0, 1, 2, 3, 4
LONG_FRAMES = 20  # a long press (drivers.buttons long_ms 800) at 50 ms frames
# frames the players leave a finished hand on the table before clearing it: the
# table takes a pushed ruleset only between hands (tests push in that window)
END_FRAMES = 20
ALERT_TWO, ALERT_TAG = 4, 3


def build_fw(dst=FW):
    """The firmware and this room's unix-port modules compiled (constants
    folded) for this machine's MicroPython unix port into dst
    (mjsim.unixbuild): the board's build differs only in the viper
    functions' machine code (armv6m)."""
    unixbuild.build(dst)


def tile_uid(seed, t):
    """Tile t's tag UID on the table with this seed (ICODE-like, LSB first)."""
    n = (t + 1) * 2654435761 + (seed & 0xFFFF) * 40503
    return uid_bytes(0xE004010000000000 | ((n & 0xFFFFFFFFF) << 8) | t)


def enrollment_blob(seed):
    return b"".join(tile_uid(seed, t) for t in range(108))


class Status:
    """What the firmware reported after a frame ("S", then the 32 bytes of
    sim/mjsim/board.py's frame-end op), with the display RAM of the
    table's HT16K33s (4 x 16 bytes)."""

    def __init__(self, body, ram):
        self.frame, self.accepted = struct.unpack_from("<II", body, 1)
        k, s, a = body[9], body[10], body[11]
        self.last = None if k == 255 else (k, s, -1 if a == 255 else a)
        self.state, self.phase, self.turn, self.hand = body[12:16]
        self.alerts = list(body[16:20])
        self.leds = list(body[20:24])
        self.settled = bool(body[24])
        self.totals = list(struct.unpack_from("<hhhh", body, 25))
        self.ram = ram

    def texts(self):
        out = []
        for s in range(4):
            d = HT16K33Sim()
            d.osc = d.on = True
            d.ram[:] = self.ram[16 * s:16 * s + 16]
            out.append(d.text())
        return out

    def colon(self, s):
        return bool(self.ram[16 * s + 4] & 0x02)


def _arg_byte(a):
    return a if isinstance(a, int) and 0 <= a < 255 else -1


class Bots:
    """Seeded players: win when they can, void suit first, keep waits."""

    def __init__(self, rng, peng=0.5, gang=0.7):
        self.rng = rng
        self.peng = peng
        self.gang = gang

    def exchange(self, g, s):
        h = g.hand[s]
        best = None
        for su in range(3):
            n = sum(h[su * 9:su * 9 + 9])
            if n >= 3 and (best is None or n < best[0]):
                best = (n, su)
        su = best[1]
        faces = [f for f in range(su * 9, su * 9 + 9) for _ in range(h[f])]
        self.rng.shuffle(faces)
        return sorted(faces[:3])

    def dingque(self, g, s):
        h = g.hand[s]
        counts = [sum(h[su * 9:su * 9 + 9]) for su in range(3)]
        return counts.index(min(counts))

    def turn(self, g, s):
        """(kind, face) for the seat holding 3n+2."""
        if not g.check((G.HU, s, -1, 0)):
            return (G.HU, -1)
        h = g.hand[s]
        if g.rs[R.P_TINGYONG]:
            for f in range(27):
                if h[f] and not g.check((G.TI, s, f, 0)):
                    return (G.TI, f)  # 提: take the wild back
        if g.rs[R.P_QINGHU]:
            for f in range(27):
                if h[f] and not g.check((G.QINGHU, s, f, 0)):
                    return (G.QINGHU, f)  # 请胡: five pairs, the single goes
        for k in (G.ANGANG, G.BUGANG):
            for f in range(27):
                if h[f] and not g.check((k, s, f, 0)) and self.rng.random() < self.gang:
                    return (k, f)
        best = None
        v = g.void[s]
        for f in range(27):
            if not h[f] or g.check((G.DISCARD, s, f, 0)):
                continue
            h[f] -= 1
            w = bin(shape.waits_mask(h, v if v < 3 else -1)).count("1")
            h[f] += 1
            near = h[f] - 1
            for d in (-2, -1, 1, 2):
                x = f + d
                if 0 <= x < 27 and x // 9 == f // 9:
                    near += h[x]
            score = (f // 9 == v, w, -near, self.rng.random())
            if best is None or score > best[0]:
                best = (score, f)
        return (G.DISCARD, best[1])

    def claim(self, g, s):
        m = g.prompt_mask(s)
        if m & C_HU and not g.check((G.HU, s, -1, 0)):
            return G.HU
        if m & C_GANG and self.rng.random() < self.gang and not g.check((G.ZHIGANG, s, -1, 0)):
            return G.ZHIGANG
        if m & C_PENG and self.rng.random() < self.peng and not g.check((G.PENG, s, -1, 0)):
            return G.PENG
        if m & C_FEI and self.rng.random() < self.peng and not g.check((G.FEI, s, -1, 0)):
            return G.FEI  # 宜宾 飞: one real copy and a wild
        if g.check((G.PASS, s, -1, 0)) == MUST_WIN:
            return G.HU
        return G.PASS


_KEY_OF = {G.HU: KEY_HU, G.PENG: KEY_PENG, G.ZHIGANG: KEY_GANG, G.PASS: KEY_GUO,
           G.FEI: KEY_PENG}


class VirtualTable:
    """The physical table and its players; tick(status) once per frame."""

    def __init__(self, preset="xuezhan", seed=1, dup=0.0, unknown=0.0, hands=None,
                 wait_limit=600, script=None, mistakes=None, silent_claims=False,
                 hasty=False, other_copy=False):
        # a preset name, or a Ruleset (in-process runs only: the firmware
        # process is given the preset's name)
        self.rs = presets.get(preset) if isinstance(preset, str) else preset
        self.np = self.rs[R.P_PLAYERS]  # players sit at seats 0..np-1 (docs/table.md)
        self.seed = seed
        self.rng = random.Random(seed)
        self.bots = Bots(random.Random(seed + 1))
        self.match = G.Match(self.rs)
        self.hands = hands if hands is not None else self.rs[R.P_HANDS]
        self.dup = dup
        self.unknown = unknown
        self.places = [[] for _ in range(8)]  # tile ids on each antenna
        self.extras = [[] for _ in range(8)]  # raw UIDs (fault tags)
        self.dirty = set(range(8))
        self.keys = [0, 0, 0, 0]
        self.g = None
        self.count = 0  # actions the firmware should have accepted
        self.applied = []  # truth actions (kind, seat, arg) of the match
        self.mismatch = []
        self.stuck = None
        self.finished = False
        self.wait = 0
        self.wait_limit = wait_limit
        self.press_frames = 0
        self.end_frames = 0
        self.pending_key = None
        self.fault = None
        self.faults = {"dup": 0, "unknown": 0, "dup_seen": 0, "unknown_seen": 0}
        self.alerts_seen = set()
        self.held = {}
        self.wall = []
        self.river = []
        self.stage = "start"
        self.frames = 0
        self.hand_deltas = []
        self.script = script  # optional callable(vt, st) -> True when it handled the frame
        self.events = []  # (hand, EV_WIN / EV_HAND_END event) of the truth
        self.mistakes = list(mistakes or ())  # kinds to make once each, in order
        self.episode = None
        self.episodes = []  # (kind, seat, alert code wanted, seen)
        self.moves = 0
        self.discard_at = None
        self.later = []  # moves to make once the firmware has caught up
        self.drawn = [-1] * 4  # the physical tile each seat drew last
        self.other_copy = other_copy  # a 血流 自摸: lay aside another copy than the drawn one
        self.other_copies = 0
        self.silent_claims = silent_claims  # players never answer a claim prompt
        self.hasty = hasty  # a 血流 自摸 tile is laid aside while 胡 is pressed
        self.timeouts = 0
        self.latency = []  # frames from a discard on the rack to its acceptance
        self.qing = None  # (seat, face): 请胡 announced, its single not yet discarded

    # --- the physical table -----------------------------------------------

    def _move(self, t, src, dst):
        if src is not None:
            self.places[src].remove(t)
            self.dirty.add(src)
        if dst is not None:
            self.places[dst].append(t)
            self.dirty.add(dst)

    def _on(self, place, face):
        for t in self.places[place]:
            if t // 4 == face:
                return t
        raise RuntimeError("no %d on place %d: %r" % (face, place, self.places[place]))

    def feed(self, table, keys):
        """Put this frame's keys and tags on the chip simulators of `table`
        (mjsim.chipsim SimTable); keys: the key bits last applied, updated."""
        for s in range(4):
            ch = self.keys[s] ^ keys[s]
            for k in range(7):
                if ch >> k & 1:
                    (table.press if self.keys[s] >> k & 1 else table.release)(s, k)
            keys[s] = self.keys[s]
        for p in sorted(self.dirty):
            table.readers[p >> 1].tags[p & 1] = [tile_uid(self.seed, t) for t in
                                                 self.places[p]] + list(self.extras[p])
        self.dirty.clear()

    def clear(self):
        for p in range(8):
            self.places[p] = []
            self.extras[p] = []
            self.dirty.add(p)

    # --- truth ----------------------------------------------------------------

    def _apply(self, a):
        evs = self.g.apply((a[0], a[1], a[2], 0))
        if evs[0][0] != 0:
            raise RuntimeError("bot action refused by the engine: %r %r" % (a, evs[0]))
        for e in evs:
            if e[0] in (EV_WIN, EV_HAND_END):
                self.events.append((self.match.hand_no, e))
        self.count += 1
        self.applied.append((a[0], a[1], _arg_byte(a[2]) if a[0] not in (G.DEAL, G.EXCHANGE)
                             else -1))
        return evs

    def _press(self, seat, key, frames=2):
        """Hold a key for `frames` frames (LONG_FRAMES: a long press)."""
        self.keys[seat] |= 1 << key
        self.press_frames = frames
        self.pending_key = (seat, key)

    # --- the loop ---------------------------------------------------------------

    def tick(self, st):
        self.frames += 1
        if st.accepted > self.count:
            self.mismatch.append(("extra", st.accepted, self.count, st.last))
            self.finished = True
            return
        for s in range(4):
            if st.alerts[s]:
                self.alerts_seen.add(st.alerts[s])
        if self.press_frames:
            self.press_frames -= 1
            if not self.press_frames:
                s, k = self.pending_key
                self.keys[s] &= ~(1 << k)
            return
        if self.fault is not None:
            self._fault_tick(st)
            return
        if self.episode is not None:
            self._episode_tick(st)
            return
        if self.script is not None and self.script(self, st):
            return
        caught_up = st.accepted == self.count
        if self.discard_at is not None and st.accepted >= self.discard_at[1]:
            # frames from the tile leaving the rack to the display showing the result
            self.latency.append(self.frames - self.discard_at[0])
            self.discard_at = None
        if caught_up and st.last is not None and self.applied:
            exp = self.applied[-1]
            got = (st.last[0], st.last[1], st.last[2] if exp[2] >= 0 else -1)
            if got != exp:
                self.mismatch.append(("differs", self.count, exp, st.last))
                self.finished = True
                return
        if not caught_up or not st.settled:
            self.wait += 1
            if self.wait > self.wait_limit:
                self.stuck = "stage %s, firmware accepted %d of %d, phase %d, alerts %r, %r" % (
                    self.stage, st.accepted, self.count, st.phase, st.alerts, st.texts())
                self.finished = True
            return
        self.wait = 0
        self.step(st)

    def _maybe_fault(self):
        g = self.g
        if g is None or g.phase not in (G.PH_DRAW, G.PH_DISCARD):
            return False
        r = self.rng.random()
        if r < self.dup:
            racks = [p for p in range(0, 8, 2) if self.places[p]]
            src = self.rng.choice(racks)
            t = self.rng.choice(self.places[src])
            dst = self.rng.choice([p for p in range(2 * self.np) if p // 2 != src // 2])
            self.fault = ("dup", dst, tile_uid(self.seed, t), 0)
        elif r < self.dup + self.unknown:
            dst = self.rng.randrange(2 * self.np)  # the seats in play (the rest is not read)
            uid = uid_bytes(0xE004020000000000 | self.rng.getrandbits(40))
            self.fault = ("unknown", dst, uid, 0)
        else:
            return False
        kind, dst, uid, _ = self.fault
        self.extras[dst].append(uid)
        self.dirty.add(dst)
        self.faults[kind] += 1
        return True

    def _fault_tick(self, st):
        kind, dst, uid, n = self.fault
        want = ALERT_TWO if kind == "dup" else ALERT_TAG
        if want in st.alerts or n >= 40:
            if want in st.alerts:
                self.faults[kind + "_seen"] += 1
            self.extras[dst].remove(uid)
            self.dirty.add(dst)
            self.fault = None
        else:
            self.fault = (kind, dst, uid, n + 1)

    def step(self, st):
        """The next move, the firmware having caught up with the last."""
        if self.stage == "start":
            if st.state != S_PLAY or st.hand != self.match.hand_no:
                return
            self.g = self.match.new_game(self.match.exchange_direction())
            self.wall = [t for t in range(108) if self.rs[R.P_SUITS] >> (t // 36) & 1]
            self.rng.shuffle(self.wall)
            self.river = []
            self.held = {}
            self.stage = "play"
            return
        if self.stage == "clear":
            if self.match.over():
                if st.state == S_DONE:
                    self.finished = True
                return
            if self.match.hand_no >= self.hands:
                self.finished = True
                return
            self.stage = "start"
            return
        g = self.g
        if g.phase == G.PH_END:
            # the firmware has ended the hand too: shown (S_END), the match over
            # (S_DONE), or a new match already begun (waiting for an empty table)
            if st.state == S_PLAY:
                return
            if self.end_frames < END_FRAMES:  # the players read the scores, then clear
                self.end_frames += 1
                return
            self.end_frames = 0
            self.hand_deltas.append(tuple(g.delta))
            self.match.finish(g)
            self.later = []  # a last 自摸 ended the hand: the table is cleared anyway
            self.clear()
            self.stage = "clear"
            return
        if self.later:
            for t, src, dst in self.later:
                self._move(t, src, dst)
            self.later = []
            return
        if self._maybe_fault():
            return
        self.moves += 1
        if self.mistakes and self.moves % 7 == 0 and self._mistake(g):
            return
        self._play(g)

    # --- mistakes a player makes (and puts right once the table says so) ------

    def _mistake(self, g):
        """Make the next listed mistake if this moment allows it; True if made."""
        kind = self.mistakes[0]
        ph = g.phase
        s = g.turn
        undo = None
        seat = s
        code = 0
        if kind == "void" and ph == G.PH_DISCARD:
            v = g.void[s]
            h = g.hand[s]
            if v < 3 and any(h[v * 9:v * 9 + 9]):
                other = [t for t in self.places[2 * s] if t // 4 // 9 != v]
                if other:
                    t = other[0]
                    self._move(t, 2 * s, None)
                    undo = [(t, None, 2 * s)]
                    code = 1
        elif kind == "turn" and ph == G.PH_DISCARD:
            seat = (s + 1) % 4
            if self.places[2 * seat] and not g.status[seat] & 32:
                t = self.places[2 * seat][0]
                self._move(t, 2 * seat, None)
                undo = [(t, None, 2 * seat)]
                code = 2
        elif kind == "fifth" and ph == G.PH_DRAW and self.river:
            t = self.river[0]
            self._move(t, None, 2 * s)
            undo = [(t, 2 * s, None)]
            code = 5
        elif kind == "count" and ph == G.PH_DRAW and len(self.wall) > 2:
            a, b = self.wall[-1], self.wall[-2]
            self._move(a, None, 2 * s)
            self._move(b, None, 2 * s)
            undo = [(a, 2 * s, None), (b, 2 * s, None)]
            code = 6
        elif kind == "refused" and ph == G.PH_DISCARD:
            seat = (s + 2) % 4
            if not g.status[seat] & 32:
                self._press(seat, KEY_PENG)
                undo = []
                code = 7
        elif kind == "locked" and ph == G.PH_DISCARD and g.status[s] & 16 and g.drawn >= 0:
            other = [t for t in self.places[2 * s] if t // 4 != g.drawn]
            if other:  # 血流: a locked hand may only discard the tile it drew
                t = other[0]
                self._move(t, 2 * s, None)
                undo = [(t, None, 2 * s)]
                code = 7
        elif kind in ("tag", "two") and ph in (G.PH_DRAW, G.PH_DISCARD):
            save = (self.dup, self.unknown)
            self.dup, self.unknown = (1.0, 0.0) if kind == "two" else (0.0, 1.0)
            self._maybe_fault()
            self.dup, self.unknown = save
            self.episodes.append((kind, -1, 4 if kind == "two" else 3, None))
            self.mistakes.pop(0)
            return True
        if undo is None:
            return False
        self.mistakes.pop(0)
        self.episode = [kind, seat, code, undo, 0]
        return True

    def _episode_tick(self, st):
        kind, seat, code, undo, n = self.episode
        if st.alerts[seat] == code or n >= 300:
            self.episodes.append((kind, seat, code, st.alerts[seat] == code))
            for t, src, dst in undo:  # put the table right
                self._move(t, src, dst)
            self.episode = None
            return
        self.episode[4] = n + 1

    def _play(self, g):
        ph = g.phase
        b = self.bots
        if ph == G.PH_DEAL and all(g.status[s] & 1 for s in range(g.np)):
            # 叫马: the 马 takes the tile at the end of the wall; 本金: the next
            # tile is turned. Either goes on the dealer's tray (docs/table.md).
            if g.rs[R.P_JIAOMA] and g.ma_face < 0:
                kind, t = G.MA, self.wall.pop(0)
            else:
                kind, t = G.BENJIN, self.wall.pop()
            self._move(t, None, 2 * g.dealer + 1)
            self._apply((kind, g.dealer, t // 4))
        elif ph == G.PH_DEAL:
            for s in range(g.np):
                if not g.status[s] & 1:
                    n = g.rs[R.P_HAND_SIZE] + (1 if s == g.dealer else 0)
                    tiles = [self.wall.pop() for _ in range(n)]
                    for t in tiles:
                        self._move(t, None, 2 * s)
                    self._apply((G.DEAL, s, [t // 4 for t in tiles]))
                    return
        elif ph == G.PH_EXCHANGE:
            for s in range(g.np):
                if not g.status[s] & 2:
                    faces = b.exchange(g, s)
                    tiles = []
                    for f in faces:
                        t = self._on(2 * s, f)
                        self._move(t, 2 * s, None)
                        tiles.append(t)
                    self.held[s] = tiles
                    evs = self._apply((G.EXCHANGE, s, faces))
                    for e in evs:
                        if e[0] == EV_EXCHANGED:
                            for t in self.held[e[3]]:
                                self._move(t, None, 2 * e[1])
                    return
        elif ph == G.PH_DINGQUE:
            for s in range(g.np):
                if not g.status[s] & 4:
                    su = b.dingque(g, s)
                    self._press(s, KEY_WAN + su)
                    self._apply((G.DINGQUE, s, su))
                    return
        elif self.qing is not None:
            s, f = self.qing  # 请胡 announced (long 胡): the single leaves the rack
            self.qing = None
            t = self._on(2 * s, f)
            self._move(t, 2 * s, None)
            self.river.append(t)
            self._apply((G.QINGHU, s, f))
        elif ph in (G.PH_DRAW, G.PH_DISCARD) and not g.check((G.BAOHU, g.turn, -1, 0)):
            self._press(g.turn, KEY_HU, LONG_FRAMES)  # 报胡 before the seat's first draw
            self._apply((G.BAOHU, g.turn, -1))
        elif ph == G.PH_DRAW:
            s = g.turn
            t = self.wall.pop()
            self._move(t, None, 2 * s)
            self.drawn[s] = t
            self._apply((G.DRAW, s, t // 4))
        elif ph == G.PH_DISCARD:
            s = g.turn
            kind, f = b.turn(g, s)
            if kind == G.HU:
                self._press(s, KEY_HU)
                evs = self._apply((G.HU, s, -1))
                if g.rs[R.P_MODE] == R.MODE_XUELIU:
                    for e in evs:
                        if e[0] == 4:  # EV_WIN: the won tile goes aside after the 胡
                            t = self.drawn[s]  # the tile just drawn, as a player would
                            if t < 0 or t // 4 != e[5] or t not in self.places[2 * s]:
                                t = self._on(2 * s, e[5])
                            if self.other_copy:  # ... or any copy of the same face
                                for c in self.places[2 * s]:
                                    if c // 4 == e[5] and c != t:
                                        t = c
                                        self.other_copies += 1
                                        break
                            mv = (t, 2 * s, None)
                            if self.hasty:  # ... or with it, while 胡 is pressed
                                self._move(*mv)
                            else:
                                self.later.append(mv)
            elif kind == G.TI:  # the real tile onto the 飞, its wild back to the rack
                w = g.fei_wild(s, f)
                self._move(self._on(2 * s, f), 2 * s, 2 * s + 1)
                self._move(self._on(2 * s + 1, w), 2 * s + 1, 2 * s)
                self._apply((G.TI, s, f))
            elif kind == G.QINGHU:
                self._press(s, KEY_HU, LONG_FRAMES)  # announce; the tile goes next step
                self.qing = (s, f)
            elif kind == G.DISCARD:
                t = self._on(2 * s, f)
                self._move(t, 2 * s, None)
                self.river.append(t)
                self._apply((G.DISCARD, s, f))
                self.discard_at = (self.frames, self.count)
            else:
                n = 4 if kind == G.ANGANG else 1
                for _ in range(n):
                    self._move(self._on(2 * s, f), 2 * s, 2 * s + 1)
                self._apply((kind, s, f))
        elif G.claim_open(ph) and self.silent_claims:
            # nobody answers: the table's claim window runs out and passes for them
            for s in range(g.np):
                if g.prompt_mask(s):
                    a = G.PASS if g.check((G.PASS, s, -1, 0)) != MUST_WIN else G.HU
                    self._apply((a, s, -1))
                    self.timeouts += 1
        elif G.claim_open(ph):
            for s in range(g.np):
                if g.prompt_mask(s):
                    kind = b.claim(g, s)
                    before = list(g.nmeld)
                    # 飞 while a 碰 is open too: a long 碰 (docs/table.md)
                    lng = kind == G.FEI and not g.check((G.PENG, s, -1, 0))
                    self._press(s, _KEY_OF[kind], LONG_FRAMES if lng else 2)
                    self._apply((kind, s, -1))
                    for t in range(g.np):
                        if g.nmeld[t] > before[t]:
                            self._claimed(g, t)
                    return

    def _claimed(self, g, s):
        i = 4 * s + g.nmeld[s] - 1
        m = g.melds[i]
        kind, f = m >> 5, m & 31
        t = self.river.pop()
        self._move(t, None, 2 * s + 1)
        w = g.fei[i] - 1  # 0 unless a 飞
        if w >= 0:  # 飞: one real copy and the wild go to the tray
            self._move(self._on(2 * s, f), 2 * s, 2 * s + 1)
            self._move(self._on(2 * s, w), 2 * s, 2 * s + 1)
            return
        for _ in range(2 if kind == 0 else 3):
            self._move(self._on(2 * s, f), 2 * s, 2 * s + 1)


class _DryStatus:
    """A firmware that accepts every move at once (finding seeds, no socket)."""

    def __init__(self, vt):
        g = vt.g
        self.accepted = vt.count
        self.last = None
        self.settled = True
        self.alerts = [0, 0, 0, 0]
        self.hand = vt.match.hand_no
        if vt.match.over():
            self.state = S_DONE
        elif g is not None and g.phase == G.PH_END and vt.stage != "start":
            self.state = S_END
        else:
            self.state = S_PLAY


def dry_run(vt, max_steps=100000):
    """Play vt's match on its own engine only: same bots, same seeds, same
    moves as against the firmware (when no fault or mistake is injected)."""
    for _ in range(max_steps):
        if vt.finished:
            break
        vt.press_frames = 0
        vt.step(_DryStatus(vt))
    return vt


class Messages:
    """The firmware's messages (u16 LE length, body) off the connection."""

    def __init__(self, conn, spin=200):
        self.conn = conn
        self.buf = bytearray()
        self.pos = 0
        self.spin = spin
        self.poller = select.poll()
        self.poller.register(conn, select.POLLIN)

    def next(self):
        """(buffer, start, end) of the next body; valid until the next call."""
        while True:
            b = self.buf
            p = self.pos
            if len(b) - p >= 2:
                n = b[p] | b[p + 1] << 8
                if len(b) - p - 2 >= n:
                    self.pos = p + 2 + n
                    return b, p + 2, p + 2 + n
            if p:
                del b[:p]
                self.pos = 0
            # the firmware answers within microseconds; waking a process that
            # sleeps on a socket can take far longer: look a while first
            for _ in range(self.spin):
                if self.poller.poll(0):
                    break
            chunk = self.conn.recv(1 << 16)
            if not chunk:
                raise EOFError("firmware closed the connection")
            b += chunk


class BusServer:
    """The chips' end of the firmware's bus stand-ins (sim/mjsim/board.py
    lists the ops): each op is run on the SimTable's buses and pins in order;
    the last op of a message may answer (status byte, then its bytes)."""

    def __init__(self, table):
        self.table = table
        self.pins = table.pins
        self.calls = 0
        self.pv = [self.pin(n) for n in range(32)]  # by GPIO number

    def pin(self, n):
        p = self.pins.get(n)
        if p is None:
            p = self.pins[n] = PinSim(0, None, "GP%d" % n)
        return p

    def _i2c(self, fn, *args):
        try:
            fn(*args)
            return 0
        except OSError as e:
            return e.args[0] if e.args else 5

    def run(self, m, i, end):
        """Run the ops in m[i:end]. Returns the answer of the last op (status
        byte and bytes), None, or ("S", status bytes) for a frame end."""
        t = self.table
        out = None
        while i < end:
            op = m[i]
            if op == 1:
                self.pv[m[i + 1]].value(m[i + 2])
                i += 3
            elif op == 3:
                n = m[i + 1]
                t.spi.write_readinto(m[i + 2:i + 2 + n], None)
                i += 2 + n
            elif op == 4:
                n = m[i + 1]
                out = bytearray(1 + n)
                t.spi.write_readinto(bytes((m[i + 2],)) * n, memoryview(out)[1:])
                i += 3
            elif op == 6:
                n = m[i + 2]
                out = bytes((self._i2c(t.i2c.writeto, m[i + 1], bytes(m[i + 3:i + 3 + n])),))
                i += 3 + n
            elif op == 9:
                n = m[i + 3]
                out = bytearray(1 + n)
                out[0] = self._i2c(t.i2c.readfrom_mem_into, m[i + 1], m[i + 2],
                                   memoryview(out)[1:])
                i += 4
            elif op == 10:
                out = bytes((0, self.pv[m[i + 1]].value()))
                i += 2
            elif op == 11:
                n = m[i + 1]
                if t.leds is None:
                    t.NeoPixel(None, n // 3)
                for k in range(n // 3):
                    g, r, b = m[i + 2 + 3 * k:i + 5 + 3 * k]
                    t.leds[k] = (r, g, b)
                t.leds.write()
                i += 2 + n
            elif op == 12:
                if i + 33 != end:
                    raise ValueError("frame end not last in its message")
                return ("S", bytes(m[i + 1:i + 33]))
            else:
                raise ValueError("unknown bus op %d" % op)
        if out is not None:
            self.calls += 1
        return out


def make_table(seed, miss=0.0, phantom=0.0):
    """The table's chips for one run: simulated chips wired as the hardware
    is (mjsim.chipsim.wiring), tags answering at once, and PN5180s whose
    BUSY is high only in reset and during a frame (no extra time after NSS
    rises or a reset ends: sim/mjsim/board.py follows that handshake on its
    side)."""
    table = SimTable(seed=seed, miss_rate=miss, phantom_rate=phantom)
    table.instant_tags()  # sim/mjsim/board.py runs its readers without the guard time
    for r in table.readers:
        r.instant_boot()  # and keeps BUSY on its side: a boot it cannot see (tests/drivers has it)
        r.busy_delay = 0
        r.boot_delay = 0
        r._busy_left = 0
    return table


def violations(table):
    """Frames the firmware started while a PN5180 was busy (lost on a real chip)."""
    return sum(r.violations for r in table.readers)


def _ram(table):
    return b"".join(bytes(d.ram) for d in table.displays)


def run(vt, miss=0.0, phantom=0.0, heap=HEAP, claim_ms=5000, frame_ms=50, on_frame=None,
        mp=MP, fw=FW, timeout=600, preset="xuezhan", fw_args=(), pass_fds=()):
    """Play vt against the firmware on the unix port. Returns a result dict:
    frames, accepted, mismatch, stuck, totals (firmware), truth totals,
    hand deltas, faults, firmware output (stdout/stderr), returncode."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(30)
    port = srv.getsockname()[1]
    # tmpfs when there is one: MicroPython's file flush() is an fsync, and
    # the flash image is written (as on the board) at every log append
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    fd, image = tempfile.mkstemp(prefix="mj_flash_", suffix=".img", dir=shm)
    os.close(fd)
    os.remove(image)
    # The firmware's code runs in place from a ROMFS image outside the heap, as
    # frozen code runs from flash on the board (sim/mjsim/mprun.py); only its data
    # lives in the heap.
    cmd = [sys.executable, "-m", "mjsim.mprun", "--heap", heap, "--rom", fw,
           "mjsim.unixmain", "sim", str(port), image, str(claim_ms), preset] + list(fw_args)
    # fw_args, pass_fds: main.py's options, e.g. the host link on a pty
    # (mjtable virtual-table)
    proc = subprocess.Popen(cmd, cwd=fw, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, pass_fds=tuple(pass_fds))
    st = None
    err = None
    bus = None
    table = None
    try:
        srv.settimeout(0.2)
        conn = None
        for _ in range(150):  # up to 30 s, but stop as soon as the firmware died
            try:
                conn, _ = srv.accept()
                break
            except (TimeoutError, socket.timeout):
                if proc.poll() is not None:
                    raise EOFError("firmware exited before connecting") from None
        if conn is None:
            raise EOFError("firmware did not connect")
        conn.settimeout(timeout)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        table = make_table(vt.seed, miss, phantom)
        bus = BusServer(table)
        keys = [0, 0, 0, 0]
        body = b"H" + struct.pack("<H", frame_ms) + enrollment_blob(vt.seed)
        conn.sendall(struct.pack("<H", len(body)) + body)
        msgs = Messages(conn)
        while True:
            m, a, e = msgs.next()
            out = bus.run(m, a, e)
            if out is None:
                continue
            if out[0] != "S":
                conn.sendall(out)
                continue
            st = Status(b"S" + out[1], _ram(table))
            vt.tick(st)
            if on_frame is not None:
                on_frame(vt, st)
            if violations(table):
                err = "%d PN5180 frames started while BUSY was high" % violations(table)
                vt.finished = True
            if vt.finished:
                conn.sendall(b"\0Q")
                break
            vt.feed(table, keys)
            conn.sendall(b"\0W")
        # the firmware's other tasks may still talk to the chips until it closes
        conn.settimeout(10)
        while True:
            m, a, e = msgs.next()
            out = bus.run(m, a, e)
            if out is not None and out[0] != "S":
                conn.sendall(out)
    except EOFError as e:
        if not vt.finished or "closed the connection" not in str(e):
            err = repr(e)
    except OSError as e:
        err = repr(e)
    try:
        out, errout = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, errout = proc.communicate()
    srv.close()
    replay = None
    if os.path.exists(image):
        # the engine's own replay of the hand logs the firmware wrote to flash
        script = os.path.join(unixbuild.HERE, "logreplay.py")
        try:
            rp = subprocess.run([mp, "-X", "heapsize=1M", script, image, preset],
                                capture_output=True, text=True, timeout=120,
                                env=unixbuild.micropython_env())
            for ln in rp.stdout.splitlines():
                if ln.startswith("REPLAY"):
                    replay = [int(x) for x in ln.split("totals=")[1].split(",")]
            if replay is None:
                errout = (errout or "") + rp.stdout + rp.stderr
        finally:
            os.remove(image)
    return {
        "replay_totals": replay,
        "frames": vt.frames, "accepted": st.accepted if st else 0, "expected": vt.count,
        "mismatch": vt.mismatch, "stuck": vt.stuck, "error": err,
        "totals": st.totals[:vt.np] if st else None, "truth_totals": list(vt.match.totals),
        "hands": vt.match.hand_no, "hand_deltas": vt.hand_deltas, "faults": vt.faults,
        "alerts_seen": sorted(vt.alerts_seen), "stdout": out, "stderr": errout,
        "latency": vt.latency, "bus_calls": bus.calls if bus else 0,
        "returncode": proc.returncode, "status": st,
    }


STOPPED = "THE FIRMWARE STOPPED before the match's end"


def verdict(res, hands):
    """None if a run() played its `hands` hands with every score agreeing
    three ways (firmware, truth, the engine's replay of the logs on flash);
    else STOPPED (the firmware exited or hung up early: a MemoryError in too
    small a heap, say, whose scores still agree up to there) or "MISMATCH"."""
    if res["error"] is not None or res["returncode"] != 0 or res["hands"] != hands:
        return STOPPED
    if (res["mismatch"] or res["stuck"]
            or not res["totals"] == res["truth_totals"] == res["replay_totals"]):
        return "MISMATCH"
    return None


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--miss", type=float, default=0.0)
    ap.add_argument("--phantom", type=float, default=0.0)
    ap.add_argument("--dup", type=float, default=0.0)
    ap.add_argument("--unknown", type=float, default=0.0)
    ap.add_argument("--preset", default="xuezhan")
    ap.add_argument("--heap", default=HEAP)
    a = ap.parse_args(argv)
    vt = VirtualTable(a.preset, a.seed, a.dup, a.unknown)
    res = run(vt, a.miss, a.phantom, a.heap, preset=a.preset)
    for k in ("frames", "accepted", "expected", "mismatch", "stuck", "error", "totals",
              "truth_totals", "faults", "alerts_seen", "returncode"):
        print("%-13s %s" % (k, res[k]))
    if res["stderr"]:
        print(res["stderr"])
    v = verdict(res, vt.hands)
    if v == STOPPED:  # its traceback
        print((res["stdout"] or "")[-1500:])
    print(v or "every score agrees")
    return 0 if v is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


class LocalStatus(Status):
    """Status read straight off an in-process controller (tests, debugging)."""

    def __init__(self, ctl, table, frame):
        g = ctl.game
        la = ctl.last_action
        self.frame = frame
        self.accepted = ctl.accepted
        self.last = None if la is None else (la[0], la[1], _arg_byte(la[2]))
        self.state = ctl.state
        self.phase = g.phase if g is not None else 255
        self.turn = g.turn if g is not None else 255
        self.hand = ctl.match.hand_no
        self.alerts = list(ctl.alerts.code) + [0] * (4 - len(ctl.alerts.code))
        self.leds = [ctl.display.leds.state(s) for s in range(4)]
        self.settled = ctl.settled()
        self.totals = [ctl.score(s) for s in range(4)]
        self.ram = _ram(table)


def run_inprocess(vt, miss=0.0, phantom=0.0, claim_ms=5000, frame_ms=50, logs=None,
                  max_frames=200000, on_frame=None):
    """The same match with the firmware's controller in this process (fast
    debugging; the firmware modules run on CPython)."""
    from table.controller import Controller
    from table.enroll import Enrollment

    from mjsim import board as sim

    board, table = sim.make(vt.seed, miss, phantom)
    en = Enrollment()
    en.load_blob(enrollment_blob(vt.seed))
    board.init()
    ctl = Controller(board, vt.rs, en, logs, claim_ms=claim_ms)
    now = 0
    keys = [0, 0, 0, 0]
    for frame in range(max_frames):
        st = LocalStatus(ctl, table, frame)
        vt.tick(st)
        if on_frame is not None:
            on_frame(vt, st, ctl)
        if vt.finished:
            break
        vt.feed(table, keys)
        now += frame_ms
        board.refresh_inputs()
        for s in range(4):
            ev = board.buttons[s].poll(now)
            while ev:
                ctl.key(s, ev, now)
                ev = board.buttons[s].next()
        ctl.scan_cycle()
        ctl.step(now)
        ctl.refresh(now)
    st = LocalStatus(ctl, table, vt.frames)
    return {"frames": vt.frames, "accepted": ctl.accepted, "expected": vt.count,
            "mismatch": vt.mismatch, "stuck": vt.stuck, "totals": st.totals[:vt.np],
            "truth_totals": list(vt.match.totals), "hands": vt.match.hand_no,
            "faults": vt.faults, "alerts_seen": sorted(vt.alerts_seen), "ctl": ctl}

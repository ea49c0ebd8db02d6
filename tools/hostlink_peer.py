# A virtual table's firmware end for the host commands, on the MicroPython unix port:
# the link (table.link) with table.hostcmds installed, storage on a real LittleFS
# volume in a file (mjsim.blockdev), and bots playing hands on the engine that are
# logged (table.logstore, sealed with the table key) and streamed as live events.
#   micropython tools/hostlink_peer.py PATH|--fd N [options]
#     PATH: a tty (pty slave) set raw with VMIN=0; --fd N: an inherited pty master
#     --flash IMG      LittleFS image (default build/virtual-flash.img); --fresh formats it
#     --key HEX        32-byte table key (else the one saved on the volume, if any)
#     --button         the key button was held at boot (SETKEY open)
#     --id TEXT        8-byte table id (default VIRTUAL1)
#     --rules PRESET   ruleset to start with when the volume has none
#     --hands N        play N hands at once at start (logs to pull)
#     --bots           keep playing hands at --pace ms per action (live events)
#     --pace MS        (default 300); --seed N (default 1)
#     --plant DIR      copy DIR's h<id>.log files (and `next`) onto the flash's log folder
#                      before the table starts: what a player who edits the flash leaves
# MATCH start plays a match (its hands: MATCH's own count, else the ruleset's), then
# stops; INFO says `play=` and `left=` as the table's firmware does (empty play=:
# no match under way) once a match was started.
# Prints "hostlink_peer: ready" once listening; runs until killed.
import select
import struct
import sys
import time

ROOT = __file__.rsplit("/", 2)[0] if "/" in __file__ else ".."
if ROOT == "tools":
    ROOT = "."
sys.path.insert(0, ROOT + "/firmware")
sys.path.insert(0, ROOT + "/sim")
sys.path.insert(0, ROOT + "/tools")

import botplay  # noqa: E402
from mjsim import blockdev, ptyport  # noqa: E402
from sichuan import game as G  # noqa: E402
from sichuan import handlog, presets  # noqa: E402
from sichuan import ruleset as R  # noqa: E402
from sichuan.settle import EV_ACCEPTED  # noqa: E402
from table import frame as F  # noqa: E402
from table import hostcmds, store  # noqa: E402
from table.link import Link  # noqa: E402
from table.logstore import LogStore  # noqa: E402

MOUNT = "/flash"


def parse(argv):
    o = {"path": None, "fd": -1, "key": None, "button": False, "id": b"VIRTUAL1",
         "flash": ROOT + "/build/virtual-flash.img", "fresh": False, "rules": None,
         "hands": 0, "bots": False, "pace": 300, "seed": 1, "plant": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--fd", "--hands", "--pace", "--seed"):
            i += 1
            o[a[2:]] = int(argv[i])
        elif a == "--key":
            i += 1
            o["key"] = bytes.fromhex(argv[i])
        elif a in ("--flash", "--rules", "--plant"):
            i += 1
            o[a[2:]] = argv[i]
        elif a == "--id":
            i += 1
            o["id"] = (argv[i].encode() + b"\x00" * F.ID_LEN)[: F.ID_LEN]
        elif a in ("--button", "--bots", "--fresh"):
            o[a[2:]] = True
        else:
            o["path"] = a
        i += 1
    if o["path"] is None and o["fd"] < 0:
        print("usage: hostlink_peer.py PATH|--fd N [options]")
        sys.exit(2)
    return o


def mount(path, fresh):
    import os

    try:
        os.stat(path)
        exists = True
    except OSError:
        exists = False
    try:
        blockdev.mount(path, MOUNT, fresh=fresh or not exists)
    except OSError:  # not a volume (yet)
        blockdev.mount(path, MOUNT, fresh=True)


class Table:
    """Bots playing hands one action per step, logged and streamed."""

    def __init__(self, o, logs):
        self.o = o
        self.logs = logs
        self.rng = botplay.Rng(o["seed"])
        self.host = None
        self.playing = o["bots"]
        self.match = None
        self.limit = 0  # hands of the match under way (0: the ruleset's)
        self.matched = False  # a match was started: INFO tells the host of matches
        self.hand = None  # (game, action iterator, writer, log, t)
        self.next_at = 0
        self.tags = 0

    def busy(self):
        return self.hand is not None

    def last_tag(self):
        """A new simulated tag on every question: 108 distinct UIDs, then repeats
        (so the host sees a duplicate if it asks for more)."""
        self.tags += 1
        n = (self.tags - 1) % 108
        return self.tags, bytes((n + 1, 0x5A, n * 7 & 0xFF, 0x11, 0, 0, 0x04, 0xE0))

    def current(self):
        return self.hand[3].log_id if self.hand is not None else -1

    def on_match(self, op, args):
        if self.hand is not None:
            raise F.LinkError(F.E_BUSY)
        self.matched = True
        if op == hostcmds.MATCH_START:
            self.match = G.Match(self.host.rules, 0)
            self.limit = struct.unpack_from("<H", args)[0] if len(args) >= 2 else 0
            self.playing = True
        else:
            self.playing = False
            self.match = None

    def status(self):
        """INFO's match lines, once a match was started (the firmware's form)."""
        if not self.matched:
            return ""
        if self.match is None:
            return "play="
        n = self.limit or self.host.rules[R.P_HANDS]
        return "play=%s\nleft=%d" % (self.host.rules.name, max(0, n - self.match.hand_no))

    def start_hand(self, t):
        rs = self.host.rules
        dealer = self.match.dealer if self.match is not None else 0
        it = botplay.actions(rs, self.rng, dealer)
        g = next(it)
        w = handlog.Writer(rs.crc(), g.np, dealer, g.direction, t)
        log = self.logs.new_log()
        self._append(log, hostcmds.T_HEAD, w.buf)
        self.hand = [g, it, w, log, t]

    def _append(self, log, rtype, data):
        log.append(rtype, data)
        self.host.push_event(bytes([rtype]) + bytes(data))

    def step(self):
        """One action of the hand in play (starting one if due); False when idle."""
        if self.hand is None:
            ok, _ = self.logs.can_start_hand()
            if not ok:
                return False
            self.start_hand(self.clock_ms())
            return True
        g, it, w, log, t = self.hand
        try:
            a = next(it)
        except StopIteration:
            a = None
        if a is None or g.phase == G.PH_END:
            self.end_hand()
            return True
        t += 1 + self.rng.below(3000)
        self.hand[4] = t
        a = (a[0], a[1], a[2], t)
        mark = len(w.buf)
        ev = g.apply(a)
        if ev[0][0] != EV_ACCEPTED:
            raise RuntimeError("bot action refused")
        w.record(a, ev)
        self._append(log, hostcmds.T_ACT, w.buf[mark:])
        return True

    def end_hand(self):
        g, _, _, log, _ = self.hand
        self._append(log, hostcmds.T_END, struct.pack("<%dh" % g.np, *g.delta))
        self.host.seal(log)
        log.close()
        self.hand = None
        if self.match is not None and g.phase == G.PH_END:
            self.match.finish(g)
            if self.match.over() or self.limit and self.match.hand_no >= self.limit:
                self.playing = False
                self.match = None

    def clock_ms(self):
        return (self.host.clock.now() * 1000) & 0x7FFFFFFF


def plant(folder):
    """Copy a folder's log files onto the flash, as they are."""
    import os

    try:
        os.mkdir(MOUNT + "/logs")
    except OSError:
        pass
    for n in os.listdir(folder):
        if n == "next" or (n.startswith("h") and n.endswith(".log")):
            with open(folder + "/" + n, "rb") as src:
                data = src.read()
            with open(MOUNT + "/logs/" + n, "wb") as dst:
                dst.write(data)


def main():
    o = parse(sys.argv[1:])
    mount(o["flash"], o["fresh"])
    if o["plant"]:
        plant(o["plant"])
    store.clean(MOUNT)
    if o["rules"] and store.load(MOUNT + "/ruleset.bin")[0] != store.OK:
        store.write(MOUNT + "/ruleset.bin", presets.get(o["rules"]).to_blob())
    key = o["key"]
    if key is None:
        st, saved = store.load(MOUNT + "/key")
        key = saved if st == store.OK and len(saved) == 32 else None
    elif store.load(MOUNT + "/key")[1] != key:
        store.write(MOUNT + "/key", key)
    logs = LogStore(MOUNT + "/logs")
    f = ptyport.open_pty("fd:%d" % o["fd"] if o["fd"] >= 0 else o["path"])
    read, write = ptyport.stream(f)

    link = Link(read, write, key=key, key_button_held=lambda: o["button"],
                save_key=lambda k: store.write(MOUNT + "/key", k), table_id=o["id"])
    table = Table(o, logs)
    host = hostcmds.install(link, logs, root=MOUNT, busy=table.busy,
                            current_log=table.current, on_match=table.on_match,
                            last_tag=table.last_tag, status=table.status,
                            table_id=o["id"])
    table.host = host
    for _ in range(o["hands"]):
        table.start_hand(table.clock_ms())
        while table.hand is not None:
            table.step()
    p = select.poll()
    p.register(f, select.POLLIN)
    print("hostlink_peer: ready")
    pace = o["pace"]
    while True:
        busy = False
        while link.poll():
            busy = True
        host.poll()
        now = time.ticks_ms()
        if table.playing and time.ticks_diff(now, table.next_at) >= 0:
            table.step()
            gap = pace * 10 if table.hand is None else pace  # a pause between hands
            table.next_at = time.ticks_add(now, gap)
        if not busy:
            want = select.POLLIN if link.idle() else select.POLLIN | select.POLLOUT
            p.modify(f, want)
            ev = p.poll(10 if table.playing or not link.idle() else 20)
            if ev and ev[0][1] & (select.POLLHUP | select.POLLERR):
                time.sleep_ms(20)  # the host side is closed; wait for it to come back


main()

"""The table's chips on the emulated board's buses: the bridge between the
JS runner (boardemu/runner.mjs, the transport) and the virtual table's own
chip models (firmware/boards/chipsim: PN5180Sim, HT16K33Sim, MCP23017Sim,
NeoPixelSim, wired by boards/pico.py's pin map in a SimTable).

The runner sends one line per bus event, with the emulated time in ns, and
waits for the answer while the emulated CPU is paused (the protocol is in
runner.mjs's header). What the models do not have, this module adds, in
emulated time:
- a PN5180's BUSY line: high from the first byte of a frame, low CMD_NS
  after NSS rises (BOOT_NS after a reset);
- the ISO15693 air time of each exchange (hardware/scan_time.py's timings):
  the RX IRQ of an answer (or a collision) appears when the answer has
  arrived (request or EOF, t1, the answer), the TIMER1 IRQ of a silent slot
  when the PN5180's Timer1 runs out (the driver's reload at 848 kHz after the
  request); until then IRQ_STATUS and RX_STATUS read as before the request;
- a chip that stops answering (fault()): an I2C chip NAKs its address; a
  PN5180 leaves BUSY low and MISO at 0 (an unplugged cable: the RP2040's
  pad pull-downs); a chip that comes back was power-cycled (fresh registers;
  the tags, the keys held and the LEDs stay).
"""

import heapq
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "hardware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scan_time  # noqa: E402  (hardware/scan_time.py)
from boards import pico  # noqa: E402
from boards.chipsim import pn5180_sim as P  # noqa: E402
from boards.chipsim.ht16k33_sim import HT16K33Sim  # noqa: E402
from boards.chipsim.machine_sim import NeoPixelSim, SimTable  # noqa: E402
from boards.chipsim.mcp23017_sim import MCP23017Sim  # noqa: E402

CMD_NS = 20_000  # BUSY after a command frame (PN5180 host interface: tens of us)
BOOT_NS = 2_000_000  # BUSY after RST rises, until the PN5180 has booted
TIMER1_HZ = 848_000  # the driver's Timer1 prescaler (TIMER1_CONFIG 3 << 3)
LED_PIN = 22  # pico.py _LED_DATA
LEDS = 12  # 4 seats x 3
# undriven (input) output pins: the seat board pulls NSS and RST up, the relay rests on the rack
_FLOAT = {}
for _s in range(4):
    _FLOAT[pico.NSS[_s]] = 1
    _FLOAT[pico.RST[_s]] = 1
    _FLOAT[pico.ANT[_s]] = 0


def _us_ns(us):
    return int(us * 1000)


class Reader:
    """A PN5180Sim on the emulated bus: its BUSY level and air time in
    emulated ns (the model's own BUSY, counted in reads, is switched off)."""

    def __init__(self, sim, busy_gpio):
        self.sim = sim
        sim.busy_delay = 0
        sim.boot_delay = 0
        self.busy_gpio = busy_gpio
        self.busy_low_at = 0  # emulated ns from which BUSY is low (inf: high until told)
        self.in_frame = False
        self.onair = None  # (ns when done, IRQ bits, RX_STATUS) of the exchange on air
        self.answering = True
        self.violations = 0  # frames started while BUSY was high
        self.exchanges = 0
        self.air_ns = 0  # air time of all exchanges

    def settle(self, ns):
        """Let the exchange on air end if its time has come."""
        if self.onair is not None and ns >= self.onair[0]:
            _, irq, rxs = self.onair
            self.onair = None
            regs = self.sim.regs
            regs[P.RX_STATUS] = rxs
            regs[P.IRQ_STATUS] |= irq

    def byte(self, ns, v, out):
        """One SPI byte while NSS is low: the MISO byte."""
        if not self.answering:
            return 0
        self.settle(ns)
        if not self.in_frame:
            self.in_frame = True
            if ns < self.busy_low_at:
                self.violations += 1
            self.set_busy(1, ns, out)
        rb = bytearray(1)
        self.sim.spi_transfer(bytes((v,)), rb)
        return rb[0]

    def nss(self, ns, level, out):
        if not self.answering:
            return
        self.settle(ns)
        if level == 0:
            self.in_frame = False
            self.sim.nss.value(0)
            return
        frame = bytes(self.sim._frame)
        regs = self.sim.regs
        before_irq = regs[P.IRQ_STATUS]
        before_rxs = regs[P.RX_STATUS]
        self.sim.nss.value(1)
        if self.in_frame:
            self.set_busy(0, ns + CMD_NS, out)
        self.in_frame = False
        if frame[:1] == b"\x09":
            self._on_air(ns, frame, before_irq, before_rxs)

    def _on_air(self, ns, frame, before_irq, before_rxs):
        """Hold back what SEND_DATA brought until its air time has passed."""
        regs = self.sim.regs
        new = regs[P.IRQ_STATUS] & ~before_irq & (P.IRQ_RX | P.IRQ_TIMER1)
        if not new:
            return
        if len(frame) > 2:
            tx = scan_time.request_us(frame[4] if len(frame) > 4 else 0)
        else:
            tx = scan_time.EOF_DOWN
        if new & P.IRQ_RX:
            t = tx + scan_time.T1 + scan_time.ANSWER
        else:
            t = tx + regs[0x0C] * 1e6 / TIMER1_HZ  # TIMER1_RELOAD ticks
        self.exchanges += 1
        self.air_ns += _us_ns(t)
        self.onair = (ns + _us_ns(t), new, regs[P.RX_STATUS])
        regs[P.IRQ_STATUS] &= ~new
        regs[P.RX_STATUS] = before_rxs

    def rst(self, ns, level, out):
        self.sim.rst.value(level)
        if not self.answering:
            return
        self.onair = None
        if level == 0:
            self.set_busy(1, ns, out)
        else:
            self.set_busy(0, ns + BOOT_NS, out)

    def set_busy(self, level, ns, out):
        out.append("B%d,%d,%d" % (self.busy_gpio, level, ns))
        self.busy_low_at = float("inf") if level else ns

    def busy_now(self, ns, out):
        """BUSY as it stands at ns, for a chip that (re)started."""
        if self.busy_low_at <= ns:
            out.append("B%d,0,0" % self.busy_gpio)
            return
        out.append("B%d,1,0" % self.busy_gpio)
        if self.busy_low_at != float("inf"):
            out.append("B%d,0,%d" % (self.busy_gpio, self.busy_low_at))

    def cut(self, answering, out):
        """The cable pulled (answering False) or plugged back (True: powered up
        afresh, BUSY as after a reset)."""
        self.answering = answering
        self.onair = None
        self.in_frame = False
        if answering:
            tags = self.sim.tags
            self.sim._power_on()
            self.sim.tags = tags
        self.set_busy(0, 0, out)


class Chips:
    """The table's chips and the bridge's side of the runner protocol. Every
    method runs with `lock` held (the bridge thread holds it per event; the
    harness's API takes it for changes from the test)."""

    def __init__(self, seed=1, miss_rate=0.0, phantom_rate=0.0, crosstalk_rate=0.0):
        self.table = SimTable(pico, seed=seed, miss_rate=miss_rate, phantom_rate=phantom_rate,
                              crosstalk_rate=crosstalk_rate)
        self.table.leds = NeoPixelSim(None, LEDS)
        self.readers = [Reader(r, pico.BUSY[s]) for s, r in enumerate(self.table.readers)]
        self.by_nss = {pico.NSS[s]: self.readers[s] for s in range(4)}
        self.by_rst = {pico.RST[s]: self.readers[s] for s in range(4)}
        self.ant = {pico.ANT[s]: self.table.readers[s].ant for s in range(4)}
        self.silent = set()  # I2C addresses that do not answer
        self.lock = threading.RLock()
        self.out = []  # directives for the runner, sent with the next answer
        self.now = 0  # emulated ns of the last event
        self.timers = []  # heap of (ns, seq, fn)
        self._seq = 0
        self.events = 0
        self.i2c_dev = None
        self.i2c_addr = None
        self.i2c_wbuf = bytearray()
        self.i2c_read = None  # [device, ptr at start, bytes read] of a read
        self.on_cut = None  # fn(ns, ops) called (lock released) when the power is cut
        self.boots = []  # (ns, kind) of each (re)start of the chip

    # --- names of chips (fault control) ------------------------------------

    def name_of(self, name):
        """("reader", i) / ("display", i) / ("keys", i) of "reader0".."keys3"."""
        for kind in ("reader", "display", "keys"):
            if name.startswith(kind) and name[len(kind):].isdigit():
                i = int(name[len(kind):])
                if 0 <= i < 4:
                    return kind, i
        raise ValueError("no chip %r (reader0..3, display0..3, keys0..3)" % name)

    def answering(self, name):
        kind, i = self.name_of(name)
        if kind == "reader":
            return self.readers[i].answering
        return self._addr(kind, i) not in self.silent

    def _addr(self, kind, i):
        return (pico.DISPLAY_ADDR if kind == "display" else pico.EXPANDER_ADDR)[i]

    def answer(self, name, on):
        """Make chip `name` stop answering (on False) or come back (True,
        power-cycled: its registers as after power-up)."""
        kind, i = self.name_of(name)
        with self.lock:
            if kind == "reader":
                r = self.readers[i]
                if r.answering != on:
                    r.cut(on, self.out)
                return
            addr = self._addr(kind, i)
            if on and addr in self.silent:
                self.silent.discard(addr)
                if kind == "display":
                    self.table.displays[i] = self.table.i2c.attach(addr, HT16K33Sim())
                else:
                    old = self.table.keys[i]
                    new = self.table.i2c.attach(addr, MCP23017Sim())
                    new.grounded = old.grounded
                    self.table.keys[i] = new
            elif not on:
                self.silent.add(addr)

    # --- scheduling in emulated time ------------------------------------------

    def at(self, ns, fn):
        """Run fn() in the bridge thread at emulated time ns (the CPU paused)."""
        with self.lock:
            self._seq += 1
            heapq.heappush(self.timers, (ns, self._seq, fn))
            self.out.append("W%d" % ns)

    def _run_timers(self):
        while self.timers and self.timers[0][0] <= self.now:
            _, _, fn = heapq.heappop(self.timers)
            fn()
        if self.timers:
            self.out.append("W%d" % self.timers[0][0])

    # --- the protocol ----------------------------------------------------------

    def handle(self, line):
        """One event line from the runner; the answer line (without newline)."""
        op, ns, *args = line.split(" ")
        ns = int(float(ns))
        self.now = ns
        self.events += 1
        v = "0"
        out = self.out
        if op == "s":
            d = self.table.spi._selected()
            if d is not None:
                v = str(self.readers[self.table.readers.index(d)].byte(ns, int(args[0]), out))
        elif op == "p":
            v = self._pin(ns, int(args[0]), int(args[1]))
        elif op in "SCWRP":
            v = self._i2c(op, args)
        elif op == "t":
            self._run_timers()
        elif op == "l":
            self._leds(bytes.fromhex(args[0]))
        elif op == "r":
            self._restart(ns, args[0])
        if out:
            v = v + " " + " ".join(out)
            out.clear()
        return v

    def _pin(self, ns, g, state):
        level = 1 if state == 1 else 0 if state == 0 else (
            1 if state == 3 else 0 if state == 4 else _FLOAT.get(g, 0))
        r = self.by_nss.get(g)
        if r is not None:
            r.nss(ns, level, self.out)
        elif g in self.by_rst:
            self.by_rst[g].rst(ns, level, self.out)
        elif g in self.ant:
            self.ant[g].value(level)
        return "0"

    def _flush_write(self):
        if self.i2c_dev is not None and self.i2c_wbuf:
            self.i2c_dev.i2c_write(bytes(self.i2c_wbuf))
        self.i2c_wbuf = bytearray()

    def _i2c(self, op, args):
        if op == "S" or op == "P":
            self._flush_write()
            self.i2c_read = None
            if op == "P":
                self.i2c_dev = None
            return "0"
        if op == "C":
            addr, mode = int(args[0]), int(args[1])
            self._flush_write()
            dev = None if addr in self.silent else self.table.i2c.devices.get(addr)
            self.i2c_dev = dev
            self.i2c_read = [dev, getattr(dev, "ptr", 0), 0] if dev is not None and mode else None
            self.table.i2c.transactions += 1
            return "1" if dev is not None else "0"
        if self.i2c_dev is None:
            return "0"
        if op == "W":
            self.i2c_wbuf.append(int(args[0]))
            return "1"
        # R: byte k of a sequential read, from the register pointer as it was
        dev, ptr, k = self.i2c_read
        dev.ptr = ptr
        buf = bytearray(k + 1)
        dev.i2c_read_into(buf)
        self.i2c_read[2] = k + 1
        return str(buf[k])

    def _leds(self, data):
        leds = self.table.leds
        leds.writes += 1
        for i in range(min(len(leds.shown), len(data) // 3)):
            g, r, b = data[3 * i:3 * i + 3]  # WS2812 order: green, red, blue
            leds.shown[i] = (r, g, b)

    def _restart(self, ns, kind):
        """The chip (re)started: watch the output pins, drive the inputs.
        A power-up ("power") resets the table's chips too: they share the supply."""
        self.boots.append((ns, kind))
        if kind == "power" and len(self.boots) > 1:
            for i in range(4):
                for name in ("reader%d" % i, "display%d" % i, "keys%d" % i):
                    if self.answering(name):
                        self.answer(name, False)
                        self.answer(name, True)
        pins = sorted(set(self.by_nss) | set(self.by_rst) | set(self.ant))
        self.out.append("L" + ",".join(str(g) for g in pins))
        self.out.append("D%d" % LED_PIN)
        for r in self.readers:
            r.busy_now(ns, self.out)
        if self.timers:
            self.out.append("W%d" % self.timers[0][0])

    def power_cut(self, ns, ops):
        """The runner cut the power (answer to its "x" event)."""
        fn = self.on_cut
        if fn is not None:
            self.lock.release()
            try:
                fn(ns, ops)
            finally:
                self.lock.acquire()
        return "0"


def serve(chips, fd_in, fd_out, stop=None):
    """Answer the runner's events until it closes its pipe (or stop is set)."""
    pending = b""
    while stop is None or not stop.is_set():
        data = os.read(fd_in, 65536)
        if not data:
            return
        pending += data
        lines = pending.split(b"\n")
        pending = lines.pop()
        answers = []
        for raw in lines:
            line = raw.decode("latin-1")
            with chips.lock:
                if line.startswith("x "):
                    _, ns, ops = line.split(" ")
                    ans = chips.power_cut(int(float(ns)), int(ops))
                else:
                    ans = chips.handle(line)
            answers.append(ans)
        os.write(fd_out, ("\n".join(answers) + "\n").encode("latin-1"))

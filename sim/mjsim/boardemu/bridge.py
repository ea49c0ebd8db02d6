"""The table's chips on the emulated board's buses: the bridge between the
JS runner (sim/mjsim/boardemu/runner.mjs, the transport) and the virtual table's own
chip models (sim/mjsim/chipsim: PN5180Sim, HT16K33Sim, MCP23017Sim,
NeoPixelSim, in a SimTable wired as the hardware is: chipsim.wiring).

The runner sends one line per bus event, with the emulated time in ns, and
waits for the answer while the emulated CPU is paused (the protocol is in
runner.mjs's header). What the models do not have, this module adds, in
emulated time:
- a PN5180's BUSY line: high from the first byte of a frame, low CMD_NS
  after NSS rises; after RST rises (or the cable is plugged back) low for
  the model's boot_quiet_us, high until boot_us (PN5180Sim's boot: frames
  in it are lost and counted as violations);
- the ISO15693 air time of each exchange (mjsim/scantime.py's timings):
  the RX IRQ of an answer (or a collision, or a noise burst) appears when
  the answer has arrived and the PN5180 has taken its digital delay (request
  or EOF, t1, the answer, 321 us), the TIMER1 IRQ of a silent slot when the
  PN5180's Timer1 runs out (PN5180Sim.timer1_us: the driver's reload, and
  the delay when the firmware adds it); until then IRQ_STATUS and RX_STATUS
  read as before the request;
- the models' time (PN5180Sim.clock: boot, tags' power-up) is the emulated
  time;
- a chip that stops answering (fault()): an I2C chip NAKs its address; a
  PN5180 leaves BUSY low and MISO at 0 (an unplugged cable: the RP2040's
  pad pull-downs); a chip that comes back was power-cycled (fresh registers;
  the tags, the keys held and the LEDs stay).
"""

import heapq
import os
import threading

from mjsim import scantime as scan_time
from mjsim.chipsim import pn5180_sim as P
from mjsim.chipsim import wiring as W
from mjsim.chipsim.ht16k33_sim import HT16K33Sim
from mjsim.chipsim.machine_sim import NeoPixelSim, SimTable
from mjsim.chipsim.mcp23017_sim import MCP23017Sim

CMD_NS = 20_000  # BUSY after a command frame (PN5180 host interface: tens of us)
LED_PIN = W.LED_DATA
LEDS = W.SEATS * W.LEDS_PER_SEAT
# undriven (input) output pins: the seat board pulls NSS and RST up, the relay rests on the rack
_FLOAT = {}
for _s in range(4):
    _FLOAT[W.NSS[_s]] = 1
    _FLOAT[W.RST[_s]] = 1
    _FLOAT[W.ANT[_s]] = 0


def _us_ns(us):
    return int(us * 1000)


class Reader:
    """A PN5180Sim on the emulated bus: its BUSY level and air time in
    emulated ns (the model's own BUSY, counted in reads, is switched off).
    The runner raises BUSY on a frame's first byte and serves the MISO bytes
    miso() gave it; the frame itself arrives here when NSS rises."""

    def __init__(self, sim, nss_gpio, busy_gpio, chips):
        self.sim = sim
        self.chips = chips
        sim.busy_delay = 0
        sim.boot_delay = 0
        sim.clock = self.clock
        sim._power_on()  # powered up at emulated time 0
        self.nss_gpio = nss_gpio
        self.busy_gpio = busy_gpio
        self.busy_low_at = 0  # emulated ns from which BUSY is low (inf: high until told)
        self.onair = None  # (ns when done, IRQ bits, RX_STATUS) of the exchange on air
        self.answering = True
        self.violations = 0  # frames started while BUSY was high
        self.exchanges = 0
        self.air_ns = 0  # air time of all exchanges

    def clock(self):
        """The model's time in us: the emulated time of the event in hand."""
        return self.chips.now // 1000

    def settle(self, ns):
        """Let the exchange on air end if its time has come."""
        if self.onair is not None and ns >= self.onair[0]:
            _, irq, rxs = self.onair
            self.onair = None
            regs = self.sim.regs
            regs[P.RX_STATUS] = rxs
            regs[P.IRQ_STATUS] |= irq

    def frame(self, fall, rise, mosi, out):
        """NSS low from fall to rise (ns) with the bytes mosi."""
        if not self.answering:
            return
        sim = self.sim
        self.settle(fall)
        lost = sim.violations
        self.chips.now = fall  # the model's clock at NSS low
        sim.nss.value(0)
        if mosi and (fall < self.busy_low_at or sim.violations > lost):
            self.violations += 1
        self.chips.now = rise
        rb = bytearray(1)
        for v in mosi:
            sim.spi_transfer(bytes((v,)), rb)
        self.settle(rise)
        frame = bytes(sim._frame)
        regs = sim.regs
        before_irq = regs[P.IRQ_STATUS]
        before_rxs = regs[P.RX_STATUS]
        sim.nss.value(1)
        if mosi and sim.booting():
            self.boot(rise, out)  # a frame the booting chip did not take
        elif mosi:
            self.set_busy(0, rise + CMD_NS, out)
        if frame[:1] == b"\x09":
            self._on_air(rise, frame, before_irq, before_rxs)
        self.miso(out)

    def miso(self, out):
        """Tell the runner the MISO bytes of this chip's next frame."""
        if not self.answering:
            out.append("M%d,0,-" % self.nss_gpio)  # MISO floats: the pad's pull-down
            return
        p = self.sim._pending
        out.append("M%d,255,%s" % (self.nss_gpio, bytes(p).hex() if p else "-"))

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
        if new & P.IRQ_RX:  # an answer, a collision, or noise (no byte: its SOF only)
            heard = scan_time.ANSWER if regs[P.RX_STATUS] & 0x1FF else scan_time.SOF_UP
            t = tx + scan_time.T1 + heard + P.DIGITAL_DELAY_US
        else:
            t = tx + (self.sim.timer1_us() or 0)
        self.exchanges += 1
        self.air_ns += _us_ns(t)
        self.onair = (ns + _us_ns(t), new, regs[P.RX_STATUS])
        regs[P.IRQ_STATUS] &= ~new
        regs[P.RX_STATUS] = before_rxs

    def rst(self, ns, level, out):
        self.chips.now = ns
        self.sim.rst.value(level)
        if not self.answering:
            return
        self.onair = None
        if level == 0:
            self.set_busy(1, ns, out)
        else:
            self.boot(ns, out)
        self.miso(out)

    def boot(self, ns, out):
        """BUSY as the model's boot has it at ns: low before the chip drives
        it (then high from boot_quiet_us on), high until boot_us, then low.
        The model loses the frames sent while it boots."""
        sim = self.sim
        b = sim.booting()
        if b == 2:
            done = (sim._boot_at + sim.boot_us) * 1000
            self.set_busy(1, ns, out)
            out.append("B%d,0,%d" % (self.busy_gpio, done))
            self.busy_low_at = done
            return
        self.set_busy(0, ns, out)
        if b == 1:
            up = (sim._boot_at + sim.boot_quiet_us) * 1000
            self.chips.at(up, lambda: self.answering and self.boot(up, self.chips.out))

    def set_busy(self, level, ns, out):
        out.append("B%d,%d,%d" % (self.busy_gpio, level, ns))
        self.busy_low_at = float("inf") if level else ns

    def attach(self, ns, out):
        """For a chip that (re)started: the chip select, BUSY as it stands, MISO."""
        out.append("F%d,%d" % (self.nss_gpio, self.busy_gpio if self.answering else -1))
        if self.busy_low_at <= ns or not self.answering:
            out.append("B%d,0,0" % self.busy_gpio)
        else:
            out.append("B%d,1,0" % self.busy_gpio)
            if self.busy_low_at != float("inf"):
                out.append("B%d,0,%d" % (self.busy_gpio, self.busy_low_at))
        self.miso(out)

    def cut(self, answering, out):
        """The cable pulled (answering False) or plugged back (True: powered up
        afresh, BUSY low as after its boot)."""
        self.answering = answering
        self.onair = None
        self.busy_low_at = 0
        if answering:
            tags = self.sim.tags
            self.sim._power_on()  # boots from now (the model's clock)
            self.sim.tags = tags
        self.attach(0, out)
        if answering:
            self.boot(self.chips.now, out)


class Chips:
    """The table's chips and the bridge's side of the runner protocol. Every
    method runs with `lock` held (the bridge thread holds it per event; the
    harness's API takes it for changes from the test)."""

    def __init__(self, seed=1, miss_rate=0.0, phantom_rate=0.0, crosstalk_rate=0.0):
        self.now = 0  # emulated ns of the last event
        self.table = SimTable(seed=seed, miss_rate=miss_rate, phantom_rate=phantom_rate,
                              crosstalk_rate=crosstalk_rate)
        self.table.leds = NeoPixelSim(None, LEDS)
        self.readers = [Reader(r, W.NSS[s], W.BUSY[s], self)
                        for s, r in enumerate(self.table.readers)]
        self.by_nss = {W.NSS[s]: self.readers[s] for s in range(4)}
        self.by_rst = {W.RST[s]: self.readers[s] for s in range(4)}
        self.ant = {W.ANT[s]: self.table.readers[s].ant for s in range(4)}
        self.silent = set()  # I2C addresses that do not answer
        self.lock = threading.RLock()
        self.out = []  # directives for the runner, sent with the next answer
        self.now = 0  # emulated ns of the last event
        self.timers = []  # heap of (ns, seq, fn)
        self._seq = 0
        self.events = 0
        self.i2c_dev = None  # the device of the I2C transaction under way
        self.i2c_read = None  # its register pointer when a read began
        self.on_cut = None  # fn(ns, ops) called (lock released) when the power is cut
        self.boots = []  # (ns, kind) of each (re)start of the chip
        self.shown = []  # emulated ns of each display write that changed what it shows
        self.usb_at = 0  # emulated ns of the board's last write on its USB
        self.first_scan = None

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
        return (W.DISPLAY_ADDR if kind == "display" else W.EXPANDER_ADDR)[i]

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
        """One event line from the runner; the answer line (without newline),
        None for an event that takes none (".")."""
        quiet = line[0] == "."
        if quiet:
            line = line[1:]
        op, ns, *args = line.split(" ")
        ns = int(float(ns))
        self.now = ns
        self.events += 1
        v = "0"
        out = self.out
        if op == "f":
            mosi = b"" if args[2] == "-" else bytes.fromhex(args[2])
            self.by_nss[int(args[0])].frame(int(float(args[1])), ns, mosi, out)
            if self.first_scan is None and mosi[:1] == b"\x09":
                self.first_scan = ns
        elif op == "s":  # no chip, or two, selected: MISO floats (pull-down)
            pass
        elif op == "p":
            self._pin(ns, int(args[0]), int(args[1]))
        elif op == "C":
            v = self._i2c_connect(int(args[0]), int(args[1]), args[2], int(args[3]))
        elif op == "R":
            v = self._i2c_byte(int(args[0]))
        elif op == "P":
            self._i2c_end(args[0], int(args[1]))
            self.i2c_dev = None
        elif op == "t":
            self._run_timers()
        elif op == "l":
            self._leds(bytes.fromhex(args[0]))
        elif op == "r":
            self._restart(ns, args[0])
        elif op == "u":  # the board wrote on its USB: what the host reads next was sent by now
            self.usb_at = ns
        if quiet:
            return None
        if out:
            v = v + " " + " ".join(out)
            out.clear()
        return v

    def _pin(self, ns, g, state):
        level = 1 if state == 1 else 0 if state == 0 else (
            1 if state == 3 else 0 if state == 4 else _FLOAT.get(g, 0))
        if g in self.by_rst:
            self.by_rst[g].rst(ns, level, self.out)
        elif g in self.ant:
            self.ant[g].value(level)

    def _i2c_end(self, wr, nread):
        """The segment since the last connect: bytes written, bytes read."""
        dev = self.i2c_dev
        if dev is None:
            return
        if wr != "-":
            ram = getattr(dev, "ram", None)
            before = bytes(ram) if ram is not None else None
            dev.i2c_write(bytes.fromhex(wr))
            if before is not None and bytes(ram) != before:
                self.shown.append(self.now)
        if self.i2c_read is not None and nread:
            dev.ptr = self.i2c_read
            dev.i2c_read_into(bytearray(nread))  # the register pointer moves on
        self.i2c_read = None

    def _i2c_connect(self, addr, mode, wr, nread):
        self._i2c_end(wr, nread)
        dev = None if addr in self.silent else self.table.i2c.devices.get(addr)
        self.i2c_dev = dev
        self.table.i2c.transactions += 1
        if dev is None:
            return "0"
        fault = getattr(dev, "sda_fault", None)
        if mode and fault is not None and fault():
            return "0"  # SDA corrupted (a GP7 input moved): the read fails
        if mode:  # a read: the bytes from the register pointer, read ahead
            self.i2c_read = getattr(dev, "ptr", 0)
            self.out.append("A" + self._ahead(16).hex())
        return "1"

    def _ahead(self, n):
        dev = self.i2c_dev
        dev.ptr = self.i2c_read
        buf = bytearray(n)
        peek = getattr(dev, "peek_into", None)  # a read that clears flags: at the commit
        if peek is not None:
            peek(buf)
        else:
            dev.i2c_read_into(buf)
        dev.ptr = self.i2c_read
        return buf

    def _i2c_byte(self, k):
        if self.i2c_dev is None or self.i2c_read is None:
            return "255"
        return str(self._ahead(k + 1)[k])

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
        self.first_scan = None  # emulated ns of the first inventory request since
        if kind == "power" and len(self.boots) > 1:
            for i in range(4):
                for name in ("reader%d" % i, "display%d" % i, "keys%d" % i):
                    if self.answering(name):
                        self.answer(name, False)
                        self.answer(name, True)
        pins = sorted(set(self.by_rst) | set(self.ant))
        self.out.append("L" + ",".join(str(g) for g in pins))
        self.out.append("D%d" % LED_PIN)
        for r in self.readers:
            r.attach(ns, self.out)
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
            if ans is not None:
                answers.append(ans)
        if answers:
            os.write(fd_out, ("\n".join(answers) + "\n").encode("latin-1"))

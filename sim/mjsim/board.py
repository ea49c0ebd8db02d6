"""The simulated board: the real drivers (boards/pico.py wiring) on simulated
chips (mjsim/chipsim), whose antennas and keys a virtual table feeds.

make(seed, miss_rate, phantom_rate) builds (Board, SimTable) in one process
(the tests drive SimTable directly). SocketTable is the firmware's side of
the virtual table (sim/mjsim/virtual.py), reached over TCP on 127.0.0.1:
the chip simulators live in the table's (CPython) process, and the firmware
process holds only the drivers and bus stand-ins with the `machine` API the
drivers use (SocketTable is the `machine`: Pin, SPI, I2C, and the
`neopixel`: Leds, that pico.make wires). Each bus transaction is forwarded to
the table's chips, so the drivers under test are the real drivers and the
chips are simulated at bus/register level.

Batching: output pin writes, SPI writes and LED writes need no answer, so
they are queued and sent with the next transaction that does (an SPI read,
an I2C transfer, an input pin read): one round trip per answer a driver
waits for. The PN5180's BUSY line is polled three times per SPI frame; a
round trip per poll would make a match take many minutes, so SocketTable
follows the handshake from what this side drives (the table's PN5180s have
no extra BUSY time: high in reset, and with NSS low once a byte was clocked
in). The table checks the handshake where it matters: its PN5180 simulators
count every frame started while BUSY was high (`violations`), and a nonzero
count fails the run.

Wire format: u16 LE length, then the body.
  table -> firmware  "H" frame_ms u16, enrollment 864 bytes     (hello, once)
  firmware -> table  bus ops (below), run in order by the table; when the
                     last op answers, the table sends back (no length)
                     status u8 (0 or an errno) and the answer's bytes.
Bus ops: 1 pin, level            output pin write
         3 n, n bytes            SPI write (MISO ignored)
         4 n, byte               SPI readinto n bytes, MOSI = byte    -> n
         6 addr, n, n bytes      I2C writeto                          -> 0
         9 addr, reg, n          I2C readfrom_mem_into                -> n
        10 pin                   input pin read                       -> 1
        11 n, n bytes            WS2812 chain write (G, R, B per LED)
        12 32 bytes              frame end: frame u32, accepted u32, last
                                 action kind, seat, arg (u8 each, 255 =
                                 none), state, phase, turn, hand (u8),
                                 alerts 4 x u8, leds 4 x u8, settled u8,
                                 totals 4 x i16      -> 1: "W" next frame
                                 (virtual time advances frame_ms), "Q" stop
The stand-ins implement what the drivers use (Pin.value, SPI write and
readinto, I2C writeto and readfrom_mem_into, NeoPixel): every name costs
the firmware's heap a qstr on the unix port, so there is no more.
"""

import struct
import time

from boards import pico
from micropython import const

_QCAP = const(512)  # queued op bytes per message: ~40 SPI frames
_SPIN = const(200)  # polls for the table's answer before sleeping on it
_ENROLL = const(864)
_NSS = const(2)  # Pin roles: 0 output, 1 input, 2..4 a reader's NSS, RST, BUSY
_RST = const(3)
_BUSY = const(4)


def make(seed=1, miss_rate=0.0, phantom_rate=0.0):
    """(Board, SimTable): pico's wiring on simulated chips in this process."""
    from mjsim.chipsim import machine_sim

    return machine_sim.make(seed, miss_rate, phantom_rate)


class Pin:
    """machine.Pin stand-in. An output keeps its level and sends each write;
    an input asks the table, except a reader's BUSY (see the module doc)."""

    IN = 0
    OUT = 1
    table: "SocketTable"  # whose `machine` this is (one per process), set by it

    def __init__(self, n, mode=-1, value=None):
        self.n = n
        self.v = 1 if n in pico.NSS or n in pico.RST else 0  # the chips' idle levels
        self.s = 0
        self.role = 0 if mode else 1
        for r, pins in ((_NSS, pico.NSS), (_RST, pico.RST), (_BUSY, pico.BUSY)):
            if n in pins:
                self.role = r
                self.s = pins.index(n)
        if value is not None and mode == 1:
            self.value(value)

    def value(self, v=None):
        t = self.table
        if v is None:
            if self.role == _BUSY:
                return t.pins[8 + self.s]
            if self.role == 1:
                t.op(10, self.n)
                return t.call(1)[1]
            return self.v
        v = 1 if v else 0
        n = t.n
        if n + 3 > _QCAP:  # op 1 inline: NSS changes twice an SPI frame
            t.flush()
            n = 2
        q = t.q
        q[n] = 1
        q[n + 1] = self.n
        q[n + 2] = v
        t.n = n + 3
        if v != self.v:
            self.v = v
            t.edge(self.role, self.s, v)
        return None


class Leds:
    """neopixel.NeoPixel stand-in: (r, g, b) colours kept in the chain's
    G, R, B byte order; write() sends them to the table."""

    def __init__(self, table, n):
        self.table = table
        self.buf = bytearray(3 * n)

    def __len__(self):
        return len(self.buf) // 3

    def __setitem__(self, i, c):
        b = self.buf
        b[3 * i] = c[1]
        b[3 * i + 1] = c[0]
        b[3 * i + 2] = c[2]

    def write(self):
        t = self.table
        t.op(11, len(self.buf), -1, self.buf)


def _read(sock, buf, n):
    """Exactly n bytes into buf[0:n] (a blocking stream's readinto waits for n)."""
    if sock.readinto(buf, n) != n:
        raise OSError(104, "virtual table closed the connection")


class SocketTable:
    """The board on a virtual table reached at 127.0.0.1:port. The table is
    also the board's `machine` (Pin, SPI, I2C: itself) and `neopixel`."""

    Pin = Pin

    def __init__(self, port, host="127.0.0.1", sock=None):
        """sock: a connected stream to use instead (readinto, write, close)."""
        self.poller = None
        if sock is None:
            import socket  # type: ignore[import-not-found]  # unix port only

            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.connect(socket.getaddrinfo(host, port)[0][-1])
            try:
                sock.setsockopt(6, 1, 1)  # IPPROTO_TCP, TCP_NODELAY: small messages
            except OSError:
                pass
            import select

            self.poller = select.poll()
            self.poller.register(sock, select.POLLIN)
        self.sock = sock
        h = bytearray(3 + _ENROLL)
        _read(self.sock, h, 2)
        if h[0] | h[1] << 8 != len(h):
            raise OSError(71, "bad hello from the virtual table")
        _read(self.sock, h, len(h))
        if h[0] != 0x48:
            raise OSError(71, "bad hello from the virtual table")
        self.frame_ms = h[1] | h[2] << 8
        self.enrollment = bytes(h[3:])
        del h
        self.q = bytearray(_QCAP)  # q[0:2] the length, then the ops
        self.n = 2
        self.rx = bytearray(256)
        # per reader: NSS low [0..3], RST low [4..7], BUSY [8..11]; readers with
        # NSS low, and the last one selected
        self.pins = bytearray(12)
        self.nsel = 0
        self.sel = 0
        Pin.table = self
        self.board = pico.make(self, neopixel=self)
        for r in self.board.readers:
            r.settle_us = 0  # simulated tags answer at once: no real sleeps
            r.switch_us = 0
        self.now = 0
        self.frames = 0
        self.spi_us = 0  # waiting for the table's answers to SPI reads (the scan's)
        self.spi_calls = 0
        self.status = bytearray(33)  # op 12 (unused byte) and the status
        self.sv = memoryview(self.status)[2:]

    # --- the queue ----------------------------------------------------------

    def op(self, a, b, c=-1, buf=None):
        """Queue op a, its byte b, then c (when >= 0) and buf (when given)."""
        k = len(buf) if buf is not None else 0
        if k > 255:
            raise ValueError("a transfer is 255 bytes at most")
        if self.n + 4 + k > _QCAP:  # one spare byte: readfrom_mem_into's length
            self.flush()
        q = self.q
        n = self.n
        q[n] = a
        q[n + 1] = b
        n += 2
        if c >= 0:
            q[n] = c
            n += 1
        if k:
            q[n:n + k] = buf
            n += k
        self.n = n

    def flush(self):
        """Send the queued ops (no answer expected)."""
        n = self.n
        if n > 2:
            q = self.q
            q[0] = (n - 2) & 0xFF
            q[1] = (n - 2) >> 8
            if self.sock.write(q, n) != n:  # a blocking stream writes all of it
                raise OSError(104, "virtual table closed the connection")
            self.n = 2

    def call(self, n, into=None):
        """Send the queue, whose last op answers: rx[0] the status, then n
        bytes in rx, or in `into` when given. Raises OSError(status) when
        the table says so."""
        self.flush()
        p = self.poller
        if p is not None:
            # The table answers within microseconds, but waking a process that
            # sleeps on a socket can take far longer (75 us on some VMs, where
            # a match makes 690 000 round trips): look a while before sleeping.
            # ipoll, not poll: poll() makes a list per call, and these spins
            # made the scan cycle allocate ~350 KB (the board's, none).
            ready = False
            for _ in range(_SPIN):
                for _ in p.ipoll(0):
                    ready = True
                if ready:
                    break
        if into is None:
            _read(self.sock, self.rx, 1 + n)
        else:  # straight into the driver's buffer: a slice of rx is a new memoryview
            _read(self.sock, self.rx, 1)
            if n:
                _read(self.sock, into, n)
        if self.rx[0]:
            raise OSError(self.rx[0])
        return self.rx

    def edge(self, role, s, v):
        """A reader's NSS or RST changed level: BUSY is high in reset, and
        with NSS low once a byte is clocked in (write())."""
        p = self.pins
        if role == _NSS:
            p[s] = 1 - v
            self.nsel += -1 if v else 1
            for i in range(4):  # the one selected, when one is
                if p[i]:
                    self.sel = i
        elif role == _RST:
            p[4 + s] = 1 - v
        p[8 + s] = p[4 + s]

    # --- machine.SPI / I2C, neopixel ----------------------------------------

    def SPI(self, *args, **kwargs):
        return self

    def I2C(self, *args, **kwargs):
        return self

    def NeoPixel(self, pin, n):
        return Leds(self, n)

    def write(self, buf):
        """SPI write (up to 255 bytes a transfer)."""
        k = len(buf)
        n = self.n
        if k > 255 or n + 2 + k > _QCAP:
            self.op(3, k, -1, buf)  # flushes first, or refuses
        else:  # op 3 inline: the readers' command frames
            q = self.q
            q[n] = 3
            q[n + 1] = k
            q[n + 2:n + 2 + k] = buf
            self.n = n + 2 + k
        s = self.sel
        if self.nsel == 1 and len(buf) and not self.pins[4 + s]:  # two selected: contention
            self.pins[8 + s] = 1  # BUSY: the selected reader took a byte

    def readinto(self, buf, write=0):
        """SPI read while sending `write`."""
        n = len(buf)
        self.op(4, n, write)
        s = self.sel
        if self.nsel == 1 and n and not self.pins[4 + s]:
            self.pins[8 + s] = 1
        t0 = time.ticks_us()
        self.call(n, buf)
        self.spi_us += time.ticks_diff(time.ticks_us(), t0)
        self.spi_calls += 1

    def writeto(self, addr, buf):
        self.op(6, addr, len(buf), buf)
        self.call(0)
        return len(buf) + 1

    def readfrom_mem_into(self, addr, reg, buf):
        n = len(buf)
        self.op(9, addr, reg)
        self.q[self.n] = n  # op() leaves room for one more byte
        self.n += 1
        self.call(n, buf)

    # --- frames -------------------------------------------------------------

    def ticks_ms(self):
        return self.now

    def report(self, ctl):
        """Queue what the table shows after a frame; frame() sends it."""
        g = ctl.game
        la = ctl.last_action
        b = self.status
        struct.pack_into("<II", b, 1, self.frames, ctl.accepted)
        if la is None:
            b[9] = b[10] = b[11] = 255
        else:
            b[9] = la[0]
            b[10] = la[1]
            b[11] = la[2] if isinstance(la[2], int) and 0 <= la[2] < 255 else 255
        b[12] = ctl.state
        b[13] = g.phase if g is not None else 255
        b[14] = g.turn if g is not None else 255
        b[15] = ctl.match.hand_no
        leds = ctl.display.leds
        code = ctl.alerts.code
        for s in range(4):
            b[16 + s] = code[s]
            b[20 + s] = leds.state(s)
            struct.pack_into("<h", b, 25 + 2 * s, max(-32768, min(32767, ctl.score(s))))
        b[24] = 1 if ctl.settled() else 0
        self.op(12, b[1], -1, self.sv)

    def frame(self):
        """Send the frame's status, wait for the next frame; advances virtual
        time. False on stop."""
        self.enrollment = b""  # boot() has stored it by now
        if self.call(1)[1] == 0x51:  # "Q"
            return False
        self.frames += 1
        self.now = (self.now + self.frame_ms) & 0x3FFFFFFF
        return True

    def close(self):
        """Close the connection; prints the SPI round trips and the time the
        firmware waited for them (bench/bench_table.py takes it off the scan)."""
        self.flush()
        self.sock.close()
        print("BUS spi_calls=%d spi_wait_us=%d" % (self.spi_calls, self.spi_us))

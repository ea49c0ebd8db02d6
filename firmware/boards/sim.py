"""The simulated board: the real drivers (boards/pico.py wiring) on the chip
simulators (boards/chipsim), whose antennas and keys a virtual table feeds.

make(seed, miss_rate, phantom_rate) builds (Board, SimTable) in-process (the
tests drive SimTable directly). SocketTable connects the same board to the
virtual table process (tools/virtual_table.py) over TCP on 127.0.0.1: once
per frame the firmware sends what the table shows and receives what lies on
each antenna, which keys are down, and how much virtual time passed. The
firmware process holds only the chips' state, as the board would.

Wire format (both ways): u16 LE length, then the body.
  table -> firmware  "H" seed u32, miss ppm u32, phantom ppm u32,
                      frame_ms u16, enrollment 864 bytes        (hello, once)
                     "W" keys 4 x u8 (bit k = key k down), then for each
                      changed place: place u8, n u8, n x 8-byte UID; 0xFF ends
                     "Q"                                         (stop)
  firmware -> table  "S" frame u32, accepted u32, last action kind, seat,
                      arg (u8 each, 255 = none), state u8, phase u8, turn u8,
                      hand u8, alerts 4 x u8, leds 4 x u8, settled u8,
                      totals 4 x i16, display RAM 4 x 16 bytes
"""

import struct

from boards import pico
from boards.chipsim.machine_sim import SimMachine, SimTable

FRAME_MS = 50


def make(seed=1, miss_rate=0.0, phantom_rate=0.0):
    """(Board, SimTable): pico's wiring on simulated chips."""
    table = SimTable(pico, seed=seed, miss_rate=miss_rate, phantom_rate=phantom_rate)
    board = pico.make(SimMachine(table), neopixel=table)
    for r in board.readers:
        r.settle_us = 0  # simulated tags answer at once: no real sleeps
        r.switch_us = 0
    for sim in table.readers:
        sim.busy_delay = 1
    return board, table


def _read_exact(sock, n):
    buf = bytearray(n)
    got = 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise OSError(104, "virtual table closed the connection")
        buf[got:got + len(chunk)] = chunk
        got += len(chunk)
    return buf


def _recv(sock):
    h = _read_exact(sock, 2)
    return _read_exact(sock, h[0] | h[1] << 8)


def _send(sock, body):
    n = len(body)
    data = bytes((n & 0xFF, n >> 8)) + bytes(body)
    while data:
        k = sock.send(data)
        data = data[k:]


class SocketTable:
    """The board on a virtual table reached at 127.0.0.1:port."""

    def __init__(self, port, host="127.0.0.1"):
        import socket  # type: ignore[import-not-found]  # unix port only

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.connect(socket.getaddrinfo(host, port)[0][-1])
        try:
            self.sock.setsockopt(6, 1, 1)  # IPPROTO_TCP, TCP_NODELAY: one small message per frame
        except OSError:
            pass
        hello = _recv(self.sock)
        if hello[0:1] != b"H" or len(hello) != 15 + 864:
            raise OSError(71, "bad hello from the virtual table")
        seed, miss, phantom, self.frame_ms = struct.unpack_from("<IIIH", hello, 1)
        self.enrollment = bytes(hello[15:])
        self.board, self.table = make(seed, miss / 1e6, phantom / 1e6)
        self.now = 0
        self.frames = 0
        self.stopped = False
        self._keys = bytearray(4)

    def ticks_ms(self):
        return self.now

    def report(self, ctl):
        """Send what the table shows after a frame."""
        g = ctl.game
        la = ctl.last_action
        body = bytearray(b"S")
        body += struct.pack("<II", self.frames, ctl.accepted)
        if la is None:
            body += b"\xff\xff\xff"
        else:
            arg = la[2] if isinstance(la[2], int) and 0 <= la[2] < 255 else 255
            body += bytes((la[0], la[1], arg))
        ph = g.phase if g is not None else 255
        turn = g.turn if g is not None else 255
        settled = 1 if ctl.settled() else 0
        body += bytes((ctl.state, ph, turn, ctl.match.hand_no))
        body += bytes(ctl.alerts.code)
        leds = ctl.display.leds
        body += bytes(leds.state(s) for s in range(4))
        body.append(settled)
        for s in range(4):
            body += struct.pack("<h", max(-32768, min(32767, ctl.score(s))))
        for d in self.table.displays:
            body += d.ram
        _send(self.sock, body)

    def frame(self):
        """Receive the next table state; advances virtual time. False on stop."""
        msg = _recv(self.sock)
        if msg[0:1] == b"Q":
            self.stopped = True
            return False
        keys = msg[1:5]
        t = self.table
        for s in range(4):
            changed = keys[s] ^ self._keys[s]
            for k in range(7):
                if changed >> k & 1:
                    if keys[s] >> k & 1:
                        t.press(s, k)
                    else:
                        t.release(s, k)
            self._keys[s] = keys[s]
        i = 5
        while msg[i] != 0xFF:
            p = msg[i]
            n = msg[i + 1]
            i += 2
            uids = []
            for _ in range(n):
                uids.append(bytes(msg[i:i + 8]))
                i += 8
            t.readers[p >> 1].tags[p & 1] = uids
        self.frames += 1
        self.now = (self.now + self.frame_ms) & 0x3FFFFFFF
        return True

    def close(self):
        self.sock.close()

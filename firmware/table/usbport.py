"""The board's byte stream for the host link (docs/protocol.md, Transports).

open_stream() returns (read, write, name) for table.link.Link:
- "cdc": a second USB CDC interface (micropython-lib `usb-device-cdc`, installed
  with `mpremote mip install usb-device-cdc`), so the REPL's CDC stays free for
  mpremote. Call it once at boot, before anything else uses USB: adding an
  interface makes the host see the device re-enumerate.
- "repl": the REPL's own CDC, when that package or runtime USB is missing. The
  link never sends 0x03/0x04, so Ctrl-C from mpremote still interrupts.
"""

import select
import sys

_MP_STREAM_POLL = 3  # py/stream.h ioctl request and flag, as usb-device-cdc uses them
_MP_STREAM_POLL_RD = 1
_BUF = 512  # CDC ring buffers, bytes each way; replies longer than this go out over polls


class ReplStream:
    """stdin/stdout as link streams. stdin's readinto waits to fill its buffer, so
    read() takes one byte at a time and only while poll says one is there, at most
    `limit` per call so the game loop gets the CPU back."""

    def __init__(self, instream=None, outstream=None, limit=64):
        self._in = instream if instream is not None else sys.stdin.buffer
        self._out = outstream if outstream is not None else sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(self._in, select.POLLIN)
        self._one = bytearray(1)
        self._limit = limit

    def read(self, mv):
        n = 0
        lim = min(len(mv), self._limit)
        while n < lim and self._ready():
            if not self._in.readinto(self._one):
                break
            mv[n] = self._one[0]
            n += 1
        return n

    def _ready(self):
        # ipoll, unlike poll, allocates no result list
        for _ in self._poll.ipoll(0):
            return True
        return False

    def write(self, mv):
        return self._out.write(mv)


def open_stream():
    """(read, write, name) for the link; see the module docstring."""
    try:
        import usb.device  # type: ignore[import-not-found]
        from usb.device.cdc import CDCInterface  # type: ignore[import-not-found]
    except ImportError:
        s = ReplStream()
        return s.read, s.write, "repl"
    try:
        cdc = CDCInterface(timeout=0, txbuf=_BUF, rxbuf=_BUF)  # timeout 0: never waits
        usb.device.get().init(cdc, builtin_driver=True)  # keep the REPL's CDC too
    except (OSError, ValueError, AttributeError):  # a port without runtime USB
        s = ReplStream()
        return s.read, s.write, "repl"

    def read(mv):
        # CDCInterface.readinto makes a memoryview on every call; asking the
        # stream first keeps the game loop's idle polls allocation-free
        if not cdc.ioctl(_MP_STREAM_POLL, _MP_STREAM_POLL_RD):
            return None
        return cdc.readinto(mv)

    return read, cdc.write, "cdc"

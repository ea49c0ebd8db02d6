"""The board's hardware watchdog, fed so that one long step of the game
survives it and a stuck scan task still does not.

The RP2040's watchdog resets the board at most 8.3 s after its last feed,
and the scan task feeds it once a cycle. A few single steps take longer on
the board: 查叫 at a 流局 with four 听用 wilds in a seat, 4 to 6 s for one
seat (docs/table.md), and a 流局 checks every seat that has not won. So a
machine.Timer feeds the watchdog too, every tick_ms, while the scan task's
last feed is less than grace_ms old. A Timer callback on the rp2 port is a
soft one: the VM runs it between bytecodes, so it runs inside a long
computation. A step up to grace_ms long passes; a scan task stuck for
longer resets the board grace_ms plus the watchdog's timeout later; a VM
stuck in C stops the callbacks too, and the hardware resets the board.

Watchdog(wdt, timer, clock): wdt a machine.WDT (TIMEOUT_MS), timer a
machine.Timer, clock() -> ms (time.ticks_ms); feed() is the scan task's feed.
on_stuck(ms), if given, is called once when the timer stops feeding (the
scan task silent for ms): app.py stores the reason on flash there, so the
boot after the reset reports it (machine.reset_cause() alone does not say
why, and reads power-on after a reset in the emulator). A soft callback
runs between bytecodes, never inside a filesystem call of the stuck task.
off(machine) stops the hardware watchdog when the controller has ended
into the REPL (Ctrl-C on an open table, or in maintenance): machine.WDT
has no deinit, and a soft reset (mpremote's) stops the feeding timer, so
the board would reset 8 s into a developer's session (a deploy, say).
"""

from drivers.buttons import ticks_diff
from micropython import const

TIMEOUT_MS = const(8000)  # the WDT's: the RP2040 allows 8388 ms at most
GRACE_MS = const(60000)
_TICK_MS = const(1000)


_WATCHDOG_CTRL = const(0x40058000)  # RP2040 datasheet 4.7.6: CTRL, bit 30 ENABLE


def off(machine):
    machine.mem32[_WATCHDOG_CTRL] &= ~(1 << 30)


class Watchdog:
    def __init__(self, wdt, timer, clock, grace_ms=GRACE_MS, tick_ms=_TICK_MS, on_stuck=None):
        self.wdt = wdt
        self.clock = clock
        self.grace = grace_ms
        self.on_stuck = on_stuck
        self.last = clock()
        timer.init(period=tick_ms, callback=self._tick)

    def feed(self):
        """The scan task is alive: feed now, and let the timer feed for
        grace_ms more."""
        self.last = self.clock()
        self.wdt.feed()

    def _tick(self, _timer):
        d = ticks_diff(self.clock(), self.last)
        if d < self.grace:
            self.wdt.feed()
        elif self.on_stuck is not None:
            f = self.on_stuck
            self.on_stuck = None
            f(d)

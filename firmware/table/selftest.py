"""The table checks its own chips (link command SELFTEST, `mjtable selftest`):
for the builder of a first table and after a repair. Between hands only.

run(board) re-initialises every chip (boards.pico Board.init_chip: its bit
in `down` follows what it found), then per seat:
- the reader: product, firmware and EEPROM versions (from its init), and on
  each antenna an inventory: the field confirmed (RF_STATUS), the AGC value
  read with it, the tags seen;
- the display: written whole with every segment lit (8.8.8.8. and the colon);
- the key expander: its keys' levels;
and lights the LED chain white. The patterns stay until the caller redraws
(hostlink: 3 s later). It judges nothing: the host does (mjtable.tableops.selftest),
from one line a seat:

  seat=S reader=R product=P firmware=F eeprom=E rack=ON,AGC,N tray=ON,AGC,N
  display=D keys=K pressed=MM leds=L

R, D, K: 1 the chip answered, 0 it did not; P, F, E: major * 256 + minor in
hex; ON: 1 field confirmed, 0 the field stayed off, -1 not tried or the
reader failed mid-scan; AGC: RF_STATUS bits 0..9 (0..1023); N: tags read;
MM: the seat's keys read pressed, bit i key i (drivers.buttons order), hex;
L: LEDs lit for the seat.
"""

from drivers.pn5180 import ANT_RACK, ANT_TRAY
from micropython import const

_SEATS = const(4)
PATTERN = "8.8.8.8."  # every segment but the colon, which show_text sets
_WHITE = (48, 48, 48)


def _up(board, b):
    """Chip b re-initialised: twice before it counts as not answering (on the
    rp2 port the I2C transaction after one that timed out can fail too)."""
    return board.init_chip(b) or board.init_chip(b)


def _antenna(r, ant):
    """'ON,AGC,N' for one antenna of reader r."""
    try:
        r.select_antenna(ant)
        n = r.inventory()
        return "1,%d,%d" % (r.agc, n)
    except OSError:
        return "%d,0,0" % (0 if r.field_fault else -1)


def _reader(board, s):
    r = board.readers[s]
    if not _up(board, s) and not r.field_fault:  # a field that stays off: it answers
        return "reader=0 product=0 firmware=0 eeprom=0 rack=-1,0,0 tray=-1,0,0"
    text = "reader=1 product=%x firmware=%x eeprom=%x rack=%s tray=%s" % (
        r.product, r.firmware, r.eeprom_version, _antenna(r, ANT_RACK), _antenna(r, ANT_TRAY))
    try:
        r.select_antenna(ANT_RACK)  # where the scanner expects it between scans
    except OSError:
        pass
    return text


def _display(board, s):
    if not _up(board, _SEATS + s):
        return 0
    try:
        board.displays[s].show_text(PATTERN, True)
        return 1
    except OSError:
        return 0


def _keys(board, s):
    """(answered, pressed mask)."""
    if not _up(board, 2 * _SEATS + s):
        return 0, 0
    b = board.buttons[s]
    pressed = 0
    for i in range(b.n):
        if b.down(i):
            pressed |= 1 << i
    return 1, pressed


def _leds(board):
    """Every LED white; the LEDs per seat."""
    leds = board.leds
    if leds is None:
        return 0
    np = leds.np
    for i in range(len(np)):
        np[i] = _WHITE
    np.write()
    return leds.per_seat


def run(board):
    """The report: one line a seat (see the module's docstring), as bytes."""
    lines = []
    per = _leds(board)
    for s in range(_SEATS):
        k, pressed = _keys(board, s)
        lines.append("seat=%d %s display=%d keys=%d pressed=%02x leds=%d" % (
            s, _reader(board, s), _display(board, s), k, pressed, per))
    return "\n".join(lines).encode()

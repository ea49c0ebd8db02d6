"""PN5180 simulator at the SPI host-interface level, with an RF field, two
antennas (selected by the ANT pin) and ISO15693 tags the test or the virtual
table places on each antenna.

What it models (datasheet reading as in drivers/pn5180.py):
- Frames between NSS low and NSS high; BUSY is high from the first byte of a
  frame until `busy_delay` reads after NSS rises. A frame started while BUSY
  is high is counted in `violations` (the real chip would lose it).
- Commands 0x00/0x01/0x02 register write/OR/AND, 0x04 read register, 0x07
  read EEPROM, 0x09 SEND_DATA, 0x0A READ_DATA, 0x11 LOAD_RF_CONFIG, 0x16 RF_ON,
  0x17 RF_OFF; a read's answer is clocked out by the next frame. Anything else
  is counted in `bad_commands`.
- SYSTEM_CONFIG command 3 (transceive) puts the transceiver in WAIT_TRANSMIT
  (RF_STATUS bits 24..26 = 1); SEND_DATA is refused (GENERAL_ERROR IRQ)
  in any other state.
- TX_CONFIG after LOAD_RF_CONFIG(0x0D, 0x8D) has data, SOF and EOF enabled;
  with data and SOF masked off (AND 0xFFFFFB3F) an empty SEND_DATA sends an
  EOF alone, which moves a 16-slot inventory to its next slot.
- ISO15693 inventory, 1 or 16 slots, with mask: in 16-slot mode a tag answers
  in slot (UID >> masklen) & 15. Two different answers in one slot are a
  collision (RX_STATUS bit 18); identical answers (two tags with the same UID)
  superpose and decode as one, as on air.
- No answer: TIMER1 IRQ if Timer1 is armed (enable + start on TX end),
  otherwise no IRQ at all.
Fault injection, from a seeded PRNG (same sequence on both interpreters):
miss_rate (a tag stays silent for one request), phantom_rate (an empty slot
returns a made-up UID that fits the mask), crosstalk_rate (a tag on the
other antenna of this reader answers too, as a tile lying between rack and
tray would). unplugged (a seat cable pulled): BUSY reads 0 and MISO 0x00,
as rp2040js's undriven lines do, and nothing reaches the chip; plugged in
again it has powered up afresh and needs the driver's init().
"""

from mjsim.chipsim.pins import ComputedPin, PinSim
from mjsim.chipsim.rng import XorShift32

SYSTEM_CONFIG = 0x00
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
TIMER1_CONFIG = 0x0F
RX_STATUS = 0x13
TX_CONFIG = 0x18
RF_STATUS = 0x1D

IRQ_RX = 1 << 0
IRQ_TX = 1 << 1
IRQ_IDLE = 1 << 2
IRQ_TX_RFOFF = 1 << 8
IRQ_TX_RFON = 1 << 9
IRQ_TIMER1 = 1 << 12
IRQ_GENERAL_ERROR = 1 << 17
RX_COLLISION = 1 << 18
RX_INTEGRITY_ERROR = 1 << 16  # the answer's CRC was wrong

TX_CONFIG_15693 = 0x400 | 0x0C0 | 0x100  # data, SOF, EOF
STATE_IDLE = 0
STATE_WAIT_TRANSMIT = 1


def uid_bytes(n):
    """8-byte wire-order (LSB first) UID from an int."""
    return bytes((n >> (8 * i)) & 0xFF for i in range(8))


def uid_int(b):
    n = 0
    for i in range(7, -1, -1):
        n = (n << 8) | b[i]
    return n


class PN5180Sim:
    def __init__(self, seed=1, busy_delay=2, boot_delay=3, miss_rate=0.0, phantom_rate=0.0,
                 crosstalk_rate=0.0):
        self.nss = PinSim(1, self._nss_edge, "NSS")
        self.rst = PinSim(1, self._rst_edge, "RST")
        self.ant = PinSim(0, None, "ANT")
        self.busy = ComputedPin(self._busy_read, "BUSY")
        self.busy_delay = busy_delay
        self.boot_delay = boot_delay
        self.miss_rate = miss_rate
        self.phantom_rate = phantom_rate
        self.crosstalk_rate = crosstalk_rate
        self.rng = XorShift32(seed)
        self.tags = [[], []]  # type: list
        self.eeprom = bytearray(256)
        self.eeprom[0x10] = 0x00  # product version 4.0 (minor, major)
        self.eeprom[0x11] = 0x04
        self.violations = 0
        self.bad_commands = 0
        self.requests = 0
        self.eofs = 0
        self.tx_config_writes = 0
        self.phantoms = 0
        self.garble = 0  # the next so many single answers arrive with a bad CRC
        self.unplugged = False
        self._power_on()

    # --- tags on the antennas (the table's side) --------------------------

    def put(self, ant, uid):
        self.tags[ant].append(bytes(uid))

    def remove(self, ant, uid):
        self.tags[ant].remove(bytes(uid))

    def set_tags(self, ant, uids):
        self.tags[ant] = [bytes(u) for u in uids]

    # --- power, reset, BUSY ---------------------------------------------

    def unplug(self, off=True):
        """Pull (off) or put back (not off) the seat cable."""
        self.unplugged = off
        self._power_on()

    def _power_on(self):
        self.regs = [0] * 0x30
        self.regs[TX_CONFIG] = 0
        self.regs[IRQ_STATUS] = IRQ_IDLE
        self.field = False
        self.protocol = None
        self.state = STATE_IDLE
        self.in_reset = False
        self._frame = bytearray()
        self._pending = None
        self._reading = False
        self._reading_bytes = 0
        self._rx = b""
        self._busy_left = self.boot_delay
        self._slots = None
        self._slot = 0

    def _rst_edge(self, level):
        if level == 0:
            self.in_reset = True
        else:
            self._power_on()

    def _busy_read(self):
        if self.unplugged:
            return 0
        if self.in_reset:
            return 1
        if self.nss.value() == 0:
            return 1 if len(self._frame) or self._reading_bytes else 0
        if self._busy_left > 0:
            self._busy_left -= 1
            return 1
        return 0

    # --- SPI frames -----------------------------------------------------

    def _nss_edge(self, level):
        if self.unplugged:
            return
        if level == 0:
            if self.in_reset or self._busy_left > 0:
                self.violations += 1
            self._frame = bytearray()
            self._reading = self._pending is not None
            self._reading_bytes = 0
            return
        if self.in_reset:
            return
        if self._reading:
            self._pending = None
            self._reading = False
        elif len(self._frame):
            self._execute(self._frame)
        self._busy_left = self.busy_delay

    def spi_transfer(self, wbuf, rbuf):
        if self.unplugged:
            if rbuf is not None:
                for i in range(len(rbuf)):
                    rbuf[i] = 0
            return
        if self.in_reset:
            if rbuf is not None:
                for i in range(len(rbuf)):
                    rbuf[i] = 0xFF
            return
        if not self._reading and rbuf is None:
            self._frame.extend(wbuf)  # a command frame: the bytes are all it takes
            return
        for i in range(len(wbuf)):
            if self._reading:
                p = self._pending or b""
                k = self._reading_bytes
                if rbuf is not None:
                    rbuf[i] = p[k] if k < len(p) else 0xFF
                self._reading_bytes = k + 1
            else:
                self._frame.append(wbuf[i])
                if rbuf is not None:
                    rbuf[i] = 0xFF

    # --- host interface -------------------------------------------------

    def _execute(self, f):
        op = f[0]
        n = len(f)
        if op in (0x00, 0x01, 0x02) and n == 6:
            reg = f[1]
            v = f[2] | (f[3] << 8) | (f[4] << 16) | (f[5] << 24)
            if reg >= len(self.regs):
                self.bad_commands += 1
                return
            if op == 0x01:
                v |= self.regs[reg]
            elif op == 0x02:
                v &= self.regs[reg]
            self._write_reg(reg, v)
        elif op == 0x04 and n == 2:
            v = self._read_reg(f[1])
            self._pending = bytes((v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF))
        elif op == 0x07 and n == 3:
            self._pending = bytes(self.eeprom[f[1]:f[1] + f[2]])
        elif op == 0x09 and n >= 2:
            self._send(f[1], bytes(f[2:]))
        elif op == 0x0A and n == 2:
            self._pending = self._rx
        elif op == 0x11 and n == 3:
            if f[1] == 0x0D and f[2] == 0x8D:
                self.protocol = 15693
                self.regs[TX_CONFIG] = TX_CONFIG_15693
            else:
                self.protocol = None
        elif op == 0x16 and n == 2:
            self.field = True
            self.regs[IRQ_STATUS] |= IRQ_TX_RFON
        elif op == 0x17 and n == 2:
            self.field = False
            self._slots = None
            self.regs[IRQ_STATUS] |= IRQ_TX_RFOFF
        else:
            self.bad_commands += 1

    def _write_reg(self, reg, v):
        v &= 0xFFFFFFFF
        if reg == IRQ_CLEAR:
            self.regs[IRQ_STATUS] &= ~v
        elif reg in (IRQ_STATUS, RX_STATUS, RF_STATUS):
            return  # read-only
        elif reg == SYSTEM_CONFIG:
            self.regs[reg] = v
            cmd = v & 7
            if cmd == 3:
                self.state = STATE_WAIT_TRANSMIT
            elif cmd == 0:
                self.state = STATE_IDLE
        else:
            if reg == TX_CONFIG:
                self.tx_config_writes += 1
            self.regs[reg] = v

    def _read_reg(self, reg):
        if reg == RF_STATUS:
            return (self.state << 24) | ((1 << 17) if self.field else 0)
        if reg >= len(self.regs):
            self.bad_commands += 1
            return 0
        return self.regs[reg]

    # --- RF ---------------------------------------------------------------

    def _send(self, valid_bits, data):
        if self.state != STATE_WAIT_TRANSMIT or self.regs[SYSTEM_CONFIG] & 7 != 3:
            self.regs[IRQ_STATUS] |= IRQ_GENERAL_ERROR
            return
        self.regs[IRQ_STATUS] |= IRQ_TX
        tx = self.regs[TX_CONFIG]
        if tx & 0x400 and data:
            self._request(data)
        elif not tx & 0x4C0 and not data and tx & 0x300:
            self.eofs += 1
            if self._slots is not None and self._slot < 15:
                self._slot += 1
                self._answer()
            else:
                self._no_answer()
        else:
            self.bad_commands += 1
            self._no_answer()

    def _request(self, data):
        self.requests += 1
        self._slots = None
        if not self.field or self.protocol != 15693 or len(data) < 3:
            self._no_answer()
            return
        flags = data[0]
        if not flags & 0x04 or data[1] != 0x01:  # only INVENTORY is modelled
            self._no_answer()
            return
        p = 3 if flags & 0x10 else 2  # skip AFI
        if len(data) <= p:
            self._no_answer()
            return
        mask_len = data[p]
        nb = (mask_len + 7) // 8
        if mask_len > 64 or len(data) != p + 1 + nb:
            self._no_answer()
            return
        mask = 0
        for i in range(nb - 1, -1, -1):
            mask = (mask << 8) | data[p + 1 + i]
        mask &= (1 << mask_len) - 1
        self._mask = mask
        self._mask_len = mask_len
        slots = [[] for _ in range(16)]  # type: list
        one_slot = bool(flags & 0x20)
        here = self.ant.value() & 1
        for ant in (here, 1 - here):
            for uid in self.tags[ant]:
                if ant != here and not self.rng.chance(self.crosstalk_rate):
                    continue
                if self.rng.chance(self.miss_rate):
                    continue
                n = uid_int(uid)
                if n & ((1 << mask_len) - 1) != mask:
                    continue
                s = 0 if one_slot else (n >> mask_len) & 15
                frame = b"\x00\x00" + uid
                if frame not in slots[s]:
                    slots[s].append(frame)
        self._slots = slots
        self._slot = 0
        self._answer()

    def _answer(self):
        slots = self._slots
        answers = slots[self._slot] if slots is not None else []
        if not answers and self.rng.chance(self.phantom_rate) and self._mask_len <= 60:
            self.phantoms += 1
            hi = (self.rng.next() << 32) | self.rng.next()
            shift = self._mask_len + 4
            n = self._mask | (self._slot << self._mask_len) | ((hi << shift) & ((1 << 64) - 1))
            answers = [b"\x00\x00" + uid_bytes(n)]
        if not answers:
            self._no_answer()
        elif len(answers) == 1:
            self._rx = answers[0]
            self.regs[RX_STATUS] = len(self._rx)
            if self.garble > 0:  # interference: the bytes came, the CRC failed
                self.garble -= 1
                self.regs[RX_STATUS] |= RX_INTEGRITY_ERROR
            self.regs[IRQ_STATUS] |= IRQ_RX
        else:
            self._rx = b""
            self.regs[RX_STATUS] = RX_COLLISION
            self.regs[IRQ_STATUS] |= IRQ_RX
        self.state = STATE_WAIT_TRANSMIT

    def _no_answer(self):
        self._rx = b""
        self.regs[RX_STATUS] = 0
        t1 = self.regs[TIMER1_CONFIG]
        if t1 & 1 and t1 & (1 << 11):
            self.regs[IRQ_STATUS] |= IRQ_TIMER1
        self.state = STATE_WAIT_TRANSMIT

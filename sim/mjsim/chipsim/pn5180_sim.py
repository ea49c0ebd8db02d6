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
What the silicon does that a driver must allow for (sources in
hardware/chips.md; each is the worst case the sources allow, by default):
- Boot: after RST rises (or the cable is plugged back) the chip boots for
  `boot_us`; for the first `boot_quiet_us` of it BUSY still reads low (the
  chip is not driving it yet), then high. A frame sent while it boots is lost
  (counted in `violations`; reads clock out 0xFF) and IDLE_IRQ is set only
  when the boot is over. The public drivers wait a fixed time after RST
  before anything else (NXP: 2 ms, tueddy: 5 ms, ATrappmann: 10 ms) and then
  for IDLE_IRQ: BUSY alone does not say the chip is up.
- Firmware version (EEPROM 0x12, minor then major; default 3.5) and
  MISC_CONFIG (EEPROM 0xE8). Every answer is signalled `digital_delay_us`
  (321 us: NXP's ISO15693 high-data-rate digital delay) after it began on
  air. Firmware from 3.8 on with MISC_CONFIG bit 0 set and bits 1..2 = 1
  (Timer1) adds that delay to Timer1 itself; otherwise Timer1, started at TX
  end and stopped at RX start, must outlast t1 + the delay, or it expires
  first and the answer is lost (NXP NFC Reader Library,
  phhalHw_Pn5180_SetTmo and phhalHw_Pn5180_Init).
- RF_ON with collision avoidance (parameter bit 0 clear, NXP's default) is
  refused while another field is on: another reader on the same bus (`air`)
  or `external`; the field stays off and RF_ACTIVE_ERROR_IRQ is set.
  `tx_fault` (a broken antenna driver) keeps the field off whatever is asked.
  RF_STATUS bit 17 says the field is on, bit 16 that another field is
  sensed, bits 0..9 the AGC value (`agc`) while the field is on.
- Tags answer only once the field has been on `tag_ready_us`, and a tag laid
  into a field already on only `tag_ready_us` after it was laid.
- An empty slot can bring noise (`noise_rate`): an RX IRQ with the collision
  flag, no byte and no collision position (NXP's Receive_Int: a timeout).
Time is `clock()` (us): the real clock on both interpreters, the emulated
one on the board (mjsim.boardemu.bridge sets it).
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

try:
    from time import ticks_us as _ticks_us

    def real_us():
        return _ticks_us()  # wraps at 2**30 on MicroPython: the sim's spans are short
except ImportError:  # CPython
    from time import perf_counter as _perf  # type: ignore[attr-defined]

    def real_us():
        return int(_perf() * 1000000)


SYSTEM_CONFIG = 0x00
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
TIMER1_RELOAD = 0x0C
TIMER1_CONFIG = 0x0F
RX_STATUS = 0x13
TX_CONFIG = 0x18
RF_STATUS = 0x1D

IRQ_RX = 1 << 0
IRQ_TX = 1 << 1
IRQ_IDLE = 1 << 2
IRQ_TX_RFOFF = 1 << 8
IRQ_TX_RFON = 1 << 9
IRQ_RF_ACTIVE_ERROR = 1 << 10
IRQ_TIMER1 = 1 << 12
IRQ_GENERAL_ERROR = 1 << 17
RX_COLLISION = 1 << 18
RX_INTEGRITY_ERROR = 1 << 16  # the answer's CRC was wrong

RF_TX_ON = 1 << 17  # RF_STATUS: this chip's field is on
RF_DET = 1 << 16  # RF_STATUS: another field is sensed

TX_CONFIG_15693 = 0x400 | 0x0C0 | 0x100  # data, SOF, EOF

# The worst case each source allows (hardware/chips.md).
BOOT_QUIET_US = 1000  # BUSY still low after RST rises: under NXP's 2 ms wait
BOOT_US = 3000  # boot over: IDLE_IRQ (tueddy waits 5 ms before polling it)
DIGITAL_DELAY_US = 321  # NXP DigiDelays_Us, ISO15693 high data rate
T1_MAX_US = 323.3  # ISO/IEC 15693-3 t1 = 4352/fc + 32/fc: the latest answer
TAG_READY_US = 5000  # a tag powered up: under NXP's 5.2 ms ISO15693 guard time
NOISE_RATE = 0.02  # noise bursts per empty slot
AGC_TUNED = 480  # AGC of a tuned antenna (RF_STATUS bits 0..9)
FIRMWARE = (3, 5)  # (major, minor): before 3.8, the host pays the delay
STATE_IDLE = 0
STATE_WAIT_TRANSMIT = 1


def uid_bytes(n):
    """8-byte wire-order (LSB first) UID from an int."""
    return bytes((n >> (8 * i)) & 0xFF for i in range(8))


def first_difference(frames):
    """Bit position (LSB first in each byte) where equal-length frames first differ."""
    for i in range(len(frames[0])):
        d = 0
        for f in frames[1:]:
            d |= f[i] ^ frames[0][i]
        if d:
            b = 0
            while not d >> b & 1:
                b += 1
            return 8 * i + b
    return 8 * len(frames[0])


def uid_int(b):
    n = 0
    for i in range(7, -1, -1):
        n = (n << 8) | b[i]
    return n


class PN5180Sim:
    def __init__(self, seed=1, busy_delay=2, boot_delay=3, miss_rate=0.0, phantom_rate=0.0,
                 crosstalk_rate=0.0, firmware=FIRMWARE, misc_config=0, boot_us=BOOT_US,
                 boot_quiet_us=BOOT_QUIET_US, tag_ready_us=TAG_READY_US, noise_rate=NOISE_RATE,
                 clock=real_us):
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
        self.eeprom[0x12] = firmware[1]  # firmware version
        self.eeprom[0x13] = firmware[0]
        self.eeprom[0x14] = 0x01  # EEPROM version 0.1 (a data layout number)
        self.eeprom[0x15] = 0x00
        self.eeprom[0xE8] = misc_config
        self.boot_us = boot_us
        self.boot_quiet_us = boot_quiet_us
        self.tag_ready_us = tag_ready_us
        self.noise_rate = noise_rate
        self.clock = clock
        self.air = [self]  # the readers whose fields this one senses (SPIBusSim.attach)
        self.external = False  # a field from outside the table
        self.tx_fault = False  # the antenna driver never brings the field up
        self.agc = AGC_TUNED
        self.refused = 0  # RF_ON refused by collision avoidance
        self.rf_ons = 0  # fields switched on
        self._placed = {}  # uid -> clock() when it was laid
        self.noises = 0
        self.late = 0  # answers lost to Timer1 expiring first
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
        self._placed[bytes(uid)] = self.clock()

    def remove(self, ant, uid):
        self.tags[ant].remove(bytes(uid))

    def set_tags(self, ant, uids):
        self.tags[ant] = [bytes(u) for u in uids]
        now = self.clock()
        for u in self.tags[ant]:
            self._placed[u] = now

    def _ready(self, uid, now):
        """The tag has had its power-up time in this field."""
        t = self._placed.get(uid, 0)
        if t < self._field_at:
            t = self._field_at
        return now - t >= self.tag_ready_us

    # --- power, reset, BUSY ---------------------------------------------

    def unplug(self, off=True):
        """Pull (off) or put back (not off) the seat cable."""
        self.unplugged = off
        self._power_on()

    def _power_on(self):
        self.regs = [0] * 0x30
        self.regs[TX_CONFIG] = 0
        self._boot_at = self.clock()
        self._booting = self.boot_us > 0
        self.regs[IRQ_STATUS] = 0 if self._booting else IRQ_IDLE
        self.field = False
        self._field_at = 0
        self.protocol = None
        self.state = STATE_IDLE
        self.in_reset = False
        self._frame = bytearray()
        self._lost = False
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

    def instant_boot(self):
        """Boot at once, now and after every reset (a board whose BUSY is
        kept on the firmware's side: boards/sim.py)."""
        self.boot_us = 0
        self._booting = False
        self.regs[IRQ_STATUS] |= IRQ_IDLE

    def booting(self):
        """0 booted, 1 booting with BUSY still low, 2 booting with BUSY high."""
        if not self._booting:
            return 0
        t = self.clock() - self._boot_at
        if t >= self.boot_us:
            self._booting = False
            self.regs[IRQ_STATUS] |= IRQ_IDLE
            return 0
        return 1 if t < self.boot_quiet_us else 2

    def _busy_read(self):
        if self.unplugged:
            return 0
        if self.in_reset:
            return 1
        b = self.booting()
        if b:
            return b - 1
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
            self._lost = self.in_reset or self.booting() > 0
            if self._lost or self._busy_left > 0:
                self.violations += 1
            self._frame = bytearray()
            self._reading = self._pending is not None and not self._lost
            self._reading_bytes = 0
            return
        if self.in_reset or self._lost:
            self._lost = False
            return  # a frame the booting chip never took
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
        if self.in_reset or self._lost:
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
            self._rf_on(f[1])
        elif op == 0x17 and n == 2:
            self.field = False
            self._slots = None
            self.regs[IRQ_STATUS] |= IRQ_TX_RFOFF
        else:
            self.bad_commands += 1

    def other_field(self):
        """Another field is on near this reader's antennas."""
        if self.external:
            return True
        for r in self.air:
            if r is not self and r.field:
                return True
        return False

    def _rf_on(self, param):
        if self.field:
            return
        if not param & 1 and self.other_field():
            self.refused += 1  # collision avoidance: somebody else's field is on
            self.regs[IRQ_STATUS] |= IRQ_RF_ACTIVE_ERROR
            return
        if self.tx_fault:
            return
        self.field = True
        self.rf_ons += 1
        self._field_at = self.clock()
        self.regs[IRQ_STATUS] |= IRQ_TX_RFON

    def firmware(self):
        """Firmware version as major << 8 | minor (NXP's wFirmwareVer)."""
        return self.eeprom[0x13] << 8 | self.eeprom[0x12]

    def compensates(self):
        """The firmware adds the digital delay to Timer1 itself (3.8 and on,
        MISC_CONFIG bit 0 set and bits 1..2 = 1: Timer1)."""
        m = self.eeprom[0xE8]
        return self.firmware() >= 0x308 and m & 1 and (m >> 1) & 3 == 1

    def timer1_us(self):
        """Timer1's run from TX end until it expires, or None when it is not
        armed to start at TX end."""
        c = self.regs[TIMER1_CONFIG]
        if not c & 1 or not c & (1 << 11):
            return None
        hz = 6780000 >> ((c >> 3) & 7) if c & 4 else 13560000
        t = self.regs[TIMER1_RELOAD] * 1000000 / hz
        return t + DIGITAL_DELAY_US if self.compensates() else t

    def _too_late(self):
        """The answer's start comes after Timer1 ran out (it stops only on RX start)."""
        t = self.timer1_us()
        if t is None or not self.regs[TIMER1_CONFIG] & (1 << 20):
            return False
        seen = T1_MAX_US + (0 if self.compensates() else DIGITAL_DELAY_US)
        return seen >= t

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
            v = self.state << 24
            if self.field:
                v |= RF_TX_ON | (self.agc & 0x3FF)
            if self.other_field():
                v |= RF_DET
            return v
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
        now = self.clock()
        for ant in (here, 1 - here):
            for uid in self.tags[ant]:
                if ant != here and not self.rng.chance(self.crosstalk_rate):
                    continue
                if not self._ready(uid, now) or self.rng.chance(self.miss_rate):
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
        if answers and self._too_late():
            self.late += 1
            answers = []
        if not answers:
            if self.field and self.rng.chance(self.noise_rate):
                self.noises += 1  # a burst: the receiver starts, finds nothing
                self._rx = b""
                self.regs[RX_STATUS] = RX_COLLISION
                self.regs[IRQ_STATUS] |= IRQ_RX
                self.state = STATE_WAIT_TRANSMIT
                return
            self._no_answer()
        elif len(answers) == 1:
            self._rx = answers[0]
            self.regs[RX_STATUS] = len(self._rx)
            if self.garble > 0:  # interference: the bytes came, the CRC failed
                self.garble -= 1
                self.regs[RX_STATUS] |= RX_INTEGRITY_ERROR
            self.regs[IRQ_STATUS] |= IRQ_RX
        else:
            # bits go out least significant first: the first bit where the
            # answers differ is the collision position (RX_STATUS bits
            # 19..25), the whole bytes before it are received
            pos = first_difference(answers)
            self._rx = answers[0][:pos >> 3]
            self.regs[RX_STATUS] = RX_COLLISION | (pos << 19) | (pos >> 3)
            self.regs[IRQ_STATUS] |= IRQ_RX
        self.state = STATE_WAIT_TRANSMIT

    def _no_answer(self):
        self._rx = b""
        self.regs[RX_STATUS] = 0
        t1 = self.regs[TIMER1_CONFIG]
        if t1 & 1 and t1 & (1 << 11):
            self.regs[IRQ_STATUS] |= IRQ_TIMER1
        self.state = STATE_WAIT_TRANSMIT

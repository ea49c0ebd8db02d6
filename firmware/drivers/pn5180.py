"""NXP PN5180 NFC frontend over SPI: ISO15693 inventory with 16-slot
anticollision, one reader per seat switching between two antennas.

Datasheet reading (PN5180A0xx/C1-C2, host interface 11.4), as used here:
- Every host command is one SPI frame between NSS low and NSS high:
  0x00 WRITE_REGISTER addr v0..v3 (little-endian), 0x01 ..._OR_MASK,
  0x02 ..._AND_MASK, 0x04 READ_REGISTER addr, 0x07 READ_EEPROM addr len,
  0x09 SEND_DATA validbits data.., 0x0A READ_DATA 0x00, 0x11 LOAD_RF_CONFIG
  tx rx, 0x16 RF_ON 0x00, 0x17 RF_OFF 0x00. A command that returns data is
  followed by a second frame that clocks the answer out (MOSI 0xFF).
- BUSY handshake for each frame: wait BUSY low, NSS low, transfer, wait BUSY
  high, NSS high, wait BUSY low. Starting a frame while BUSY is high is lost.
- Registers: SYSTEM_CONFIG 0x00 (bits 0..2 command: 0 idle, 3 transceive),
  IRQ_STATUS 0x02 (bit 0 RX, 1 TX, 2 IDLE, 12 TIMER1, 13 TIMER2, 17 GENERAL
  ERROR), IRQ_CLEAR 0x03, TIMER1_RELOAD 0x0C, TIMER1_CONFIG 0x0F, TX_CONFIG
  0x18 (bit 10 TX_DATA_ENABLE, bits 6..7 start symbol, 8..9 stop symbol),
  RX_STATUS 0x13 (bits 0..8 bytes received, bit 18 collision), RF_STATUS 0x1D
  (bits 24..26 transceive state, 1 = WAIT_TRANSMIT).
- LOAD_RF_CONFIG 0x0D/0x8D selects ISO15693 ASK100 at 26 kbit/s.
- 16-slot inventory (ISO15693-3): request flags 0x06 (high data rate,
  inventory, 16 slots), command 0x01, mask length in bits, mask bytes. Slot n
  holds the tags whose UID bits [masklen .. masklen+3] equal n. The reader
  moves to the next slot by sending an EOF alone: TX_CONFIG AND 0xFFFFFB3F
  (data and SOF off) then SEND_DATA with no bytes. A collided slot is
  resolved by a new inventory whose mask is extended by that slot's nibble.
- Timer1 is set as the no-answer timeout: started at TX end, stopped when a
  reception starts (TIMER1_CONFIG bit 11 and bit 20, T1_STOP_ON_RX_STARTED
  in NXP's PN5180 register header of the NFC Reader Library), 848 kHz
  prescaler. An empty slot then ends with the TIMER1 IRQ instead of a poll
  budget running out.

What the silicon needs beyond the register map (each point's source is in
hardware/chips.md, with the test that holds the driver to it):
- After RST rises the chip boots and BUSY does not yet say so: wait 2 ms
  (NXP's phhalHw_Pn5180_Reset) and then for IDLE_IRQ (both Arduino
  libraries) before the first command.
- Firmware, product and EEPROM versions are read at init (EEPROM 0x10..0x15).
  An answer is signalled 321 us after it began (NXP's digital delay, ISO15693
  high data rate); firmware before 3.8, or 3.8 on without MISC_CONFIG
  (EEPROM 0xE8) set for Timer1, leaves that to the host, so Timer1 gets
  NXP's 476 us (t1 + SOF) plus 321, else 476 alone (NXP's SetTmo).
- RF_ON without collision avoidance (parameter 0x01, NXP's FieldOn with
  RFCA off: the table's own readers are the fields around), the field
  confirmed in RF_STATUS bit 17 (NXP's FieldOn) and `field_fault` set with an
  error when it does not come on.
- A guard time after the field comes on: NXP's ISO15693 default, 5.2 ms
  (phacDiscLoop.h, GTV).
- A "collision" with no byte and no collision position is noise: a timeout
  (NXP's Receive_Int), not a reason for a new round.

UIDs are stored as received: 8 bytes, least significant byte first (byte 7 is
0xE0 for ISO15693 tags). Buffers are allocated once in the constructor.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


try:
    from time import sleep_us
except ImportError:  # CPython has no sleep_us
    from time import sleep as _sleep

    def sleep_us(us):  # type: ignore[misc]
        _sleep(us / 1000000)


ETIMEDOUT = const(110)
EIO = const(5)

# registers
_SYSTEM_CONFIG = const(0x00)
_IRQ_ENABLE = const(0x01)
_IRQ_STATUS = const(0x02)
_IRQ_CLEAR = const(0x03)
_TRANSCEIVE_CONTROL = const(0x04)
_TIMER1_RELOAD = const(0x0C)
_TIMER1_CONFIG = const(0x0F)
_CRC_RX_CONFIG = const(0x12)
_RX_STATUS = const(0x13)
_TX_CONFIG = const(0x18)
_CRC_TX_CONFIG = const(0x19)
_RF_STATUS = const(0x1D)

_IRQ_RX = const(1 << 0)
_IRQ_TX = const(1 << 1)
_IRQ_IDLE = const(1 << 2)
_IRQ_TIMER1 = const(1 << 12)
_IRQ_TIMER2 = const(1 << 13)
_IRQ_GENERAL_ERROR = const(1 << 17)
_IRQ_DONE = const(_IRQ_RX | _IRQ_TIMER1 | _IRQ_TIMER2 | _IRQ_GENERAL_ERROR)
_RX_BYTES_MASK = const(0x1FF)
_RX_COLL_POS = const(0x7F << 19)
_RX_COLLISION = const(1 << 18)
_RX_PROTOCOL_ERROR = const(1 << 17)
_RX_INTEGRITY_ERROR = const(1 << 16)
_STATE_WAIT_TRANSMIT = const(1)
_RF_TX_ON = const(1 << 17)  # RF_STATUS: our field is on
_AGC_MASK = const(0x3FF)  # RF_STATUS bits 0..9: the AGC value

_RF_TX_ISO15693 = const(0x0D)
_RF_RX_ISO15693 = const(0x8D)
# Timer1: enable | prescaler on | 848 kHz | start on TX end | stop on RX start
_TIMER1_TIMEOUT_CONFIG = const(0x1 | 0x4 | (3 << 3) | (1 << 11) | (1 << 20))
_T1_BASE_US = const(476)  # NXP: t1 324 + SOF 152 us (phpalSli15693, high data rate)
_DIGITAL_DELAY_US = const(321)  # NXP DigiDelays_Us: ISO15693 high data rate
_FW_OLDEST = const(0x304)  # NXP's Init refuses firmware before 3.4
_FW_COMPENSATES = const(0x308)  # from 3.8 the firmware can add the delay itself
_EE_VERSIONS = const(0x10)  # product, firmware, EEPROM version: minor, major each
_EE_MISC_CONFIG = const(0xE8)  # bit 0 digital delay on, bits 1..2 its timer
_RST_LOW_US = const(1000)  # >= 10 us (datasheet); tueddy holds 1 ms
_BOOT_WAIT_US = const(2000)  # NXP: 2 ms after RST rises
_BOOT_POLLS = const(20)  # then IDLE_IRQ, 0.5 ms apart: 12 ms in all (ATrappmann: 10)
_GUARD_US = const(5200)  # NXP's ISO15693 guard time after field on (phacDiscLoop.h)

ANT_RACK = const(0)
ANT_TRAY = const(1)

_INVENTORY_FLAGS_16 = const(0x06)
_INVENTORY_FLAGS_1 = const(0x26)  # high data rate, inventory, one slot
_CMD_INVENTORY = const(0x01)
_RESP_LEN = const(10)  # flags, DSFID, UID[8] (CRC removed by the PN5180)
_MAX_MASK_BITS = const(60)  # deepest round: 60 bits known + 4 bits of slot

_F_IDLE = b"\x02\x00\xf8\xff\xff\xff"  # SYSTEM_CONFIG &= ~7 (command idle)
_F_TRANSCEIVE = b"\x01\x00\x03\x00\x00\x00"  # SYSTEM_CONFIG |= 3 (transceive)
_F_EOF_ONLY = b"\x02\x18\x3f\xfb\xff\xff"  # TX_CONFIG &= 0xFFFFFB3F
_F_CLEAR_IRQ = b"\x00\x03\xff\xff\x0f\x00"  # IRQ_CLEAR = 0x000FFFFF
_F_RF_ON = b"\x16\x01"  # collision avoidance off: our own readers are the fields around
_F_RF_OFF = b"\x17\x00"
_F_LOAD_15693 = b"\x11\x0d\x8d"
_F_READ_DATA = b"\x0a\x00"
_F_SEND_EOF = b"\x09\x00"


def make_frames():
    """The scratch frames a reader fills and sends, or reads and parses, within
    one call: (register frames of 6, 3 and 2 bytes, a 4-byte register value,
    an inventory answer, the SEND_DATA request and its views by length).
    Nothing in them outlives the call, so the readers on one bus can share
    one set, even while inventory_all steps them in turn; what a reader keeps
    between steps (mask, pending slots, UIDs) is its own."""
    # SEND_DATA frame: 0x09, valid bits, flags, cmd, mask length, mask[8];
    # one view per possible length (5 + 0..8 mask bytes), made once
    req = bytearray(13)
    mv = memoryview(req)
    return (bytearray(6), bytearray(3), bytearray(2), bytearray(4), bytearray(_RESP_LEN), req,
            [mv[:5 + i] for i in range(9)])


class PN5180:
    """One PN5180 with its own NSS, BUSY, RST and antenna-select pins.

    spi: machine.SPI-like (write, readinto), mode 0, MSB first, <= 7 MHz.
    nss, rst, ant: output pins; busy: input pin. ant may be None (one antenna).
    max_tags: capacity of `uids`; tags beyond it set `overflow`.
    busy_polls / irq_polls: bounded waits, counted in pin reads / register
    reads, so a dead or unplugged reader raises OSError instead of hanging.
    settle_us: wait after RF_ON before the first request (guard time, NXP's
    5.2 ms by default; 0 for simulated chips whose tags answer at once).
    switch_us: extra wait before the first scan after the antenna relay moved
    (G6K-2F-Y operate/release time is 3 ms max; 0 for simulated chips).
    keep_field: leave the field on after an inventory or a find (tags stay
    powered: the next request on the same antenna needs no guard time);
    rf_off(), select_antenna() to the other antenna, or a reset end it.
    frames: make_frames() shared with the other readers on the bus, or None
    for the reader's own.
    """

    def __init__(self, spi, nss, busy, rst, ant=None, max_tags=24, busy_polls=2000,
                 irq_polls=400, settle_us=_GUARD_US, switch_us=5000, frames=None):
        if max_tags < 1:
            raise ValueError("max_tags must be >= 1")
        self.spi = spi
        self.nss = nss
        self.busy = busy
        self.rst = rst
        self.ant = ant
        self.busy_polls = busy_polls
        self.irq_polls = irq_polls
        self.settle_us = settle_us
        self.switch_us = switch_us
        self._switched = False
        self._field = False  # our field is on (and the tags powered) between calls
        self.keep_field = False
        self._eof_only = False  # TX_CONFIG set for EOF-alone slots
        self.max_tags = max_tags
        self.uids = bytearray(8 * max_tags)
        self.count = 0
        self.overflow = False
        self.collisions = 0
        self.timeouts = 0
        self.rounds = 0
        self.antenna = ANT_RACK
        # from init(): versions (major << 8 | minor), Timer1 in us, the field
        self.product = 0
        self.firmware = 0
        self.eeprom_version = 0
        self.t1_us = 0
        self.field_fault = False  # the last RF_ON left the field off
        self.agc = 0  # RF_STATUS AGC value when the field last came on
        self.noise = 0  # empty slots whose noise was taken for a timeout
        self._w6, self._w3, self._w2, self._r4, self._rx, self._req, self._reqv = (
            frames or make_frames())
        # pending collided slots: 8 mask bytes + a mask length each
        depth = max_tags // 2 + 2
        self._stack_mask = bytearray(8 * depth)
        self._stack_len = bytearray(depth)
        self._stack_cap = depth
        self._mask = bytearray(8)
        self._sp = 0
        self._mask_len = 0
        self._slot = 0
        self._polls = 0
        self._busy_scan = False
        nss.value(1)
        if ant is not None:
            ant.value(0)

    # --- SPI frames with the BUSY handshake -----------------------------

    def _stuck(self):
        # deselect: a chip left selected would take the next frame meant
        # for another reader on the bus (a cable pulled mid-frame)
        self.nss.value(1)
        raise OSError(ETIMEDOUT, "PN5180 BUSY stuck")

    def _frame_out(self, buf):
        self._frame(buf, True)

    def _frame_in(self, buf):
        self._frame(buf, False)

    def _frame(self, buf, out):
        """One SPI frame with the BUSY handshake (write buf, or read into it).
        The waits are inlined: a scan slot is ~8 frames, and on the board
        each method call in them costs more than the SPI transfer."""
        busy = self.busy
        nss = self.nss
        n = self.busy_polls
        while busy.value():
            n -= 1
            if n <= 0:
                self._stuck()
        nss.value(0)
        if out:
            self.spi.write(buf)
        else:
            self.spi.readinto(buf, 0xFF)
        n = self.busy_polls
        while not busy.value():
            n -= 1
            if n <= 0:
                self._stuck()
        nss.value(1)
        n = self.busy_polls
        while busy.value():
            n -= 1
            if n <= 0:
                self._stuck()

    # --- host interface commands ----------------------------------------

    def _reg_frame(self, op, reg, value):
        f = self._w6
        f[0] = op
        f[1] = reg
        f[2] = value & 0xFF
        f[3] = (value >> 8) & 0xFF
        f[4] = (value >> 16) & 0xFF
        f[5] = (value >> 24) & 0xFF
        self._frame_out(f)

    def _check(self, reg, value):
        if not 0 <= reg <= 0xFF or not 0 <= value <= 0xFFFFFFFF:
            raise ValueError("register 0..255, value 0..0xFFFFFFFF")

    def write_register(self, reg, value):
        """WRITE_REGISTER: 32-bit value (0..0xFFFFFFFF)."""
        self._check(reg, value)
        self._reg_frame(0x00, reg, value)

    def or_register(self, reg, mask):
        """WRITE_REGISTER_OR_MASK."""
        self._check(reg, mask)
        self._reg_frame(0x01, reg, mask)

    def and_register(self, reg, mask):
        """WRITE_REGISTER_AND_MASK."""
        self._check(reg, mask)
        self._reg_frame(0x02, reg, mask)

    def _reg_low(self, reg):
        """READ_REGISTER, bits 0..29 only (stays a small int: no allocation)."""
        f = self._w2
        f[0] = 0x04
        f[1] = reg
        self._frame_out(f)
        r = self._r4
        self._frame_in(r)
        return r[0] | (r[1] << 8) | (r[2] << 16) | ((r[3] & 0x3F) << 24)

    def read_register(self, reg):
        """READ_REGISTER: the full 32-bit value."""
        low = self._reg_low(reg)
        return low | ((self._r4[3] >> 6) << 30)

    def read_eeprom(self, addr, buf):
        """READ_EEPROM len(buf) bytes (1..255) from EEPROM address addr."""
        n = len(buf)
        if not 0 < n < 256 or not 0 <= addr <= 0xFF:
            raise ValueError("EEPROM address 0..255, length 1..255")
        f = self._w3
        f[0] = 0x07
        f[1] = addr
        f[2] = n
        self._frame_out(f)
        self._frame_in(buf)

    def product_version(self):
        """(major, minor) from EEPROM 0x10; (255, 255) means no chip answers."""
        buf = bytearray(2)
        self.read_eeprom(0x10, buf)
        return buf[1], buf[0]

    def rf_on(self):
        """Field on, confirmed in RF_STATUS (TX_RF_STATUS, bit 17). Raises
        OSError(EIO) with field_fault set when it stays off."""
        self._frame_out(_F_RF_ON)
        rs = self._reg_low(_RF_STATUS)
        if not rs & _RF_TX_ON:
            self.field_fault = True
            raise OSError(EIO, "PN5180 RF field did not come on")
        self.field_fault = False
        self.agc = rs & _AGC_MASK

    def rf_off(self):
        self._field = False
        self._frame_out(_F_RF_OFF)

    def load_iso15693(self):
        """LOAD_RF_CONFIG for ISO15693 26 kbit/s; also restores TX_CONFIG."""
        self._eof_only = False
        self._frame_out(_F_LOAD_15693)

    # --- set-up ---------------------------------------------------------

    def reset(self):
        """Hardware reset: RST low, 2 ms, then IDLE_IRQ (the boot is over)
        and every IRQ cleared. BUSY right after RST rises says nothing: the
        booting chip is not driving it yet."""
        self._eof_only = False
        self._field = False
        self.nss.value(1)
        self.rst.value(0)
        sleep_us(_RST_LOW_US)
        self.rst.value(1)
        sleep_us(_BOOT_WAIT_US)
        n = self.busy_polls
        while self.busy.value():  # still booting: in time, not in pin reads
            sleep_us(50)
            n -= 1
            if n <= 0:
                raise OSError(ETIMEDOUT, "PN5180 did not boot")
        for _ in range(_BOOT_POLLS):
            if self._reg_low(_IRQ_STATUS) & _IRQ_IDLE:
                self._frame_out(_F_CLEAR_IRQ)
                return
            sleep_us(500)
        raise OSError(ETIMEDOUT, "PN5180 did not boot")

    def init(self):
        """Reset, read the versions, load ISO15693, arm Timer1 for this
        firmware, check the field comes on (and off again)."""
        self.field_fault = False
        self.reset()
        v = bytearray(6)
        self.read_eeprom(_EE_VERSIONS, v)
        if v[1] == 0xFF or not (v[1] or v[3]):
            raise OSError(EIO, "PN5180 not answering")
        self.product = v[1] << 8 | v[0]
        self.firmware = v[3] << 8 | v[2]
        self.eeprom_version = v[5] << 8 | v[4]
        if self.firmware < _FW_OLDEST:
            raise OSError(EIO, "PN5180 firmware older than 3.4")
        delay = _DIGITAL_DELAY_US
        if self.firmware >= _FW_COMPENSATES:
            self.read_eeprom(_EE_MISC_CONFIG, memoryview(v)[:1])
            if v[0] & 1 and (v[0] >> 1) & 3 == 1:
                delay = 0  # the firmware adds it to Timer1 itself
        self.t1_us = _T1_BASE_US + delay
        self.load_iso15693()
        # 847.5 kHz ticks, rounded up: the timer must not end before t1_us
        self.write_register(_TIMER1_RELOAD, (self.t1_us * 8475 + 9999) // 10000)
        self.write_register(_TIMER1_CONFIG, _TIMER1_TIMEOUT_CONFIG)
        self.rf_on()
        self.rf_off()
        self.select_antenna(ANT_RACK)

    def select_antenna(self, which):
        """ANT_RACK (0) or ANT_TRAY (1). The field is switched off first so
        tags on the newly selected antenna power up cleanly in the next scan."""
        if which != ANT_RACK and which != ANT_TRAY:
            raise ValueError("antenna must be 0 (rack) or 1 (tray)")
        if self.ant is None:
            if which != ANT_RACK:
                raise ValueError("this reader has one antenna")
            return
        if which != self.antenna:
            self.rf_off()
            self._switched = True
        self.ant.value(which)
        self.antenna = which

    # --- ISO15693 inventory ---------------------------------------------

    def _transceive(self, n):
        """Idle -> transceive, then SEND_DATA the first n bytes of _req."""
        self._frame_out(_F_IDLE)
        self._frame_out(_F_TRANSCEIVE)
        state = (self._reg_low(_RF_STATUS) >> 24) & 7
        if state != _STATE_WAIT_TRANSMIT:
            raise OSError(EIO, "PN5180 not ready to transmit")
        self._frame_out(_F_CLEAR_IRQ)
        self._frame_out(self._reqv[n - 5])

    def _next_slot(self):
        """Close the current slot with an EOF alone. TX_CONFIG keeps its
        value until the next LOAD_RF_CONFIG, so it is set once a round: one
        SPI frame fewer for 14 of a round's 15 slot changes."""
        if not self._eof_only:
            self._frame_out(_F_EOF_ONLY)
            self._eof_only = True
        self._frame_out(_F_CLEAR_IRQ)
        self._frame_out(_F_IDLE)
        self._frame_out(_F_TRANSCEIVE)
        self._frame_out(_F_SEND_EOF)

    def _push(self, mask_len, slot):
        """Queue mask (self._mask, mask_len bits) + slot nibble for a new round."""
        sp = self._sp
        if sp >= self._stack_cap or mask_len > _MAX_MASK_BITS - 4:
            self.overflow = True
            return
        base = sp * 8
        sm = self._stack_mask
        m = self._mask
        for i in range(8):
            sm[base + i] = m[i]
        byte = mask_len >> 3
        if mask_len & 7:
            sm[base + byte] = (sm[base + byte] & 0x0F) | (slot << 4)
        else:
            sm[base + byte] = slot
        self._stack_len[sp] = mask_len + 4
        self._sp = sp + 1

    def _store(self):
        """Add the UID in _rx[2:10] unless already listed; False when full."""
        rx = self._rx
        u = self.uids
        for k in range(self.count):
            base = k * 8
            same = True
            for i in range(8):
                if u[base + i] != rx[2 + i]:
                    same = False
                    break
            if same:
                return True
        if self.count >= self.max_tags:
            self.overflow = True
            return False
        base = self.count * 8
        for i in range(8):
            u[base + i] = rx[2 + i]
        self.count += 1
        return True

    def _start_round(self, mask_len):
        """Send a 16-slot inventory for the mask in self._mask (mask_len bits)."""
        self.rounds += 1
        self._mask_len = mask_len
        self._slot = 0
        self._polls = 0
        self.load_iso15693()  # restores TX_CONFIG after the EOF-only slots
        req = self._req
        req[0] = 0x09
        req[1] = 0x00
        req[2] = _INVENTORY_FLAGS_16
        req[3] = _CMD_INVENTORY
        req[4] = mask_len
        nbytes = (mask_len + 7) >> 3
        m = self._mask
        for i in range(nbytes):
            req[5 + i] = m[i]
        if mask_len & 7:  # bits above the mask in its last byte go out as 0
            req[4 + nbytes] &= 0x0F
        self._transceive(5 + nbytes)

    def _slot_result(self, irq):
        """Collect what the finished slot brought: a UID, a collision or nothing."""
        if not irq & _IRQ_RX:
            return
        rxs = self._reg_low(_RX_STATUS)
        if rxs & (_RX_COLLISION | _RX_BYTES_MASK | _RX_COLL_POS) == _RX_COLLISION:
            self.noise += 1  # no byte, no position: noise, a timeout (NXP)
            return
        if rxs & _RX_COLLISION:
            self.collisions += 1
        elif (rxs & _RX_BYTES_MASK) == _RESP_LEN and not rxs & (
                _RX_PROTOCOL_ERROR | _RX_INTEGRITY_ERROR):
            self._frame_out(_F_READ_DATA)
            self._frame_in(self._rx)
            if self._rx[0] & 0x01 == 0:  # response flags: no error
                self._store()
            return
        # A collision, or an answer garbled (CRC or framing error, wrong
        # length): a tag is there, so the slot is asked again with a longer
        # mask, as NXP's ISO15693 anticollision does with integrity errors;
        # dropping it would lose the tag without notice.
        self._push(self._mask_len, self._slot)

    def start(self, field=True):
        """Begin an inventory on the selected antenna (field on, first round
        sent; field=False: the caller switched it on and kept the guard time).
        Then call step() until it returns True; several readers can be
        stepped in turn so their air time overlaps."""
        self.count = 0
        self.overflow = False
        self.collisions = 0
        self.timeouts = 0
        self.rounds = 0
        self._sp = 0
        m = self._mask
        for i in range(8):
            m[i] = 0
        if field:
            self._field_on()
        self._busy_scan = True
        self._start_round(0)

    def _field_on(self, guard=True):
        if self._field:
            return  # still on from the last call: the tags are powered
        if self._switched:
            self._switched = False
            if self.switch_us:
                sleep_us(self.switch_us)  # relay contacts settled, field still off
        self.rf_on()
        self._field = self.keep_field
        if guard and self.settle_us:
            sleep_us(self.settle_us)

    def find(self, uids, off, tries, bits=64):
        """Ask up to `tries` times for the one tag whose UID is uids[off:off+8]
        on the selected antenna: a one-slot inventory masked with the UID's
        low `bits` (16..64, whole bytes; ISO15693-3): with 16, 2.7 ms of air
        when no tag answers and 6.4 when one does, where a rack of 14 takes
        110. With fewer than 64 bits another tag may share the mask: a clean
        answer counts only if its whole UID is the one asked for; a garbled
        answer or a collision counts as there (a tag answered). Returns how
        many asks went unanswered before it answered, or `tries` if it never
        did. Field on for the call only, unless keep_field."""
        if bits & 7 or not 16 <= bits <= 64:
            raise ValueError("bits: 16..64, whole bytes")
        self._field_on()
        try:
            for k in range(tries):
                if self._ask(uids, off, bits):
                    return k
            return tries
        except Exception:
            self._field = False  # an error: the field off, whatever keep_field says
            raise
        finally:
            if not self._field:
                self.rf_off()

    def _ask(self, uids, off, bits):
        self.load_iso15693()
        req = self._req
        req[0] = 0x09
        req[1] = 0x00
        req[2] = _INVENTORY_FLAGS_1
        req[3] = _CMD_INVENTORY
        req[4] = bits
        nb = bits >> 3
        for i in range(nb):
            req[5 + i] = uids[off + i]
        self._transceive(5 + nb)
        for _ in range(self.irq_polls):
            irq = self._reg_low(_IRQ_STATUS)
            if irq & _IRQ_DONE:
                if not irq & _IRQ_RX:
                    return False
                return self._answer_is(uids, off, bits)
        self.timeouts += 1
        return False

    def _answer_is(self, uids, off, bits):
        """The ask's answer is the tag uids[off:off+8], or may be (garbled,
        collided, or a 64-bit mask that only that tag matches); noise is not."""
        rxs = self._reg_low(_RX_STATUS)
        if rxs & (_RX_COLLISION | _RX_BYTES_MASK | _RX_COLL_POS) == _RX_COLLISION:
            self.noise += 1
            return False
        if bits == 64 or rxs & (_RX_COLLISION | _RX_PROTOCOL_ERROR | _RX_INTEGRITY_ERROR) or (
                rxs & _RX_BYTES_MASK) != _RESP_LEN:
            return True
        rx = self._rx
        self._frame_out(_F_READ_DATA)
        self._frame_in(rx)
        if rx[0] & 0x01:
            return True  # an error flag: a tag answered, which one is not known
        for i in range(8):
            if rx[2 + i] != uids[off + i]:
                return False
        return True

    def step(self):
        """Advance the inventory by at most one slot; True when it is over
        (field off, results in uids/count). One IRQ_STATUS read when the slot
        is still running, so a step is short and allocates nothing."""
        if not self._busy_scan:
            return True
        irq = self._reg_low(_IRQ_STATUS)
        if not irq & _IRQ_DONE:
            self._polls += 1
            if self._polls < self.irq_polls:
                return False
            self.timeouts += 1
            irq = 0
        self._polls = 0
        self._slot_result(irq)
        if self._slot < 15:
            self._slot += 1
            self._next_slot()
            return False
        if self._sp:
            self._sp -= 1
            base = self._sp * 8
            sm = self._stack_mask
            m = self._mask
            for i in range(8):
                m[i] = sm[base + i]
            self._start_round(self._stack_len[self._sp])
            return False
        self._busy_scan = False
        if not self._field:
            self.rf_off()
        return True

    def abort(self):
        """Stop a running inventory and switch the field off."""
        self._busy_scan = False
        self.rf_off()

    def scanning(self):
        return self._busy_scan

    def inventory(self):
        """Read every ISO15693 tag on the selected antenna (blocking).

        Returns the number of distinct UIDs, stored in self.uids[0:8*count].
        `overflow` is set when tags were left unread (buffer or stack full).
        The RF field is on during the scan and off afterwards.
        """
        self.start()
        try:
            while not self.step():
                pass
        except Exception:
            self.abort()
            raise
        return self.count

    def uid(self, k, out):
        """Copy UID k (0..count-1) into the 8-byte buffer `out`."""
        if not 0 <= k < self.count:
            raise IndexError("no UID %d" % k)
        if len(out) < 8:
            raise ValueError("UID buffer needs 8 bytes")
        base = k * 8
        for i in range(8):
            out[i] = self.uids[base + i]


def inventory_all(readers):
    """Inventory several readers at once, stepping them in turn so their RF
    exchanges overlap (each reader has its own field and antennas). On an
    error every reader's field is switched off and the error is raised."""
    try:
        guard = 0
        for r in readers:
            r._field_on(False)  # fields on, confirmed; one guard time for all
            guard = max(guard, r.settle_us)
        if guard:
            sleep_us(guard)
        for r in readers:
            r.start(False)
        busy = True
        while busy:
            busy = False
            for r in readers:
                if not r.step():
                    busy = True
    except Exception:
        for r in readers:  # fields on before the error, scanning or not: off
            try:
                r.abort()
            except OSError:
                pass
        raise

"""Expected ISO15693 inventory time per seat (rack + meld tray), computed from
the air-interface timings of ISO/IEC 15693-2/-3 and the anticollision the
driver runs (16-slot rounds, a collided slot re-inventoried with its nibble
appended to the mask, depth first). Run: python -m mjsim.scantime

Air timings (fc = 13.56 MHz):
  reader -> tag, 1-out-of-4 at 26.48 kbit/s: 2 bits per 75.52 us, so one
    byte 302.08 us; SOF 75.52 us, EOF 37.76 us.
  tag -> reader, high data rate, one subcarrier, 26.48 kbit/s: one bit
    37.76 us; SOF and EOF 151.04 us each.
  t1 (request end -> answer) 4352/fc = 320.94 us nominal;
  t2 (answer end -> next EOF) >= 4192/fc = 309.14 us;
  t3 (EOF -> next EOF when nobody answers) >= 4384/fc + tag SOF = 474.34 us.
The PN5180 (hardware/chips.md, rows 1 and 4): an answer is signalled its
  digital delay (321 us) after it ends, so the next EOF goes out
  max(t2, 321 us) after it; a silent slot ends when Timer1 runs out: 797 us
  on firmware before 3.8 (476 us + the delay the host adds), 476 us when the
  firmware adds it; the field is on 5.2 ms (guard time) before the first
  request.
Inventory answer: flags, DSFID, UID(8), CRC(2) = 12 bytes = 96 bits.
Inventory request: flags, command, mask length, mask bytes, CRC(2).
Host overhead (SPI frames with the BUSY handshake from MicroPython on the
RP2040) is an estimate to be replaced by `make bench` figures from a board.
"""

import random

FC = 13.56e6
BYTE_DOWN = 4 * 75.52
SOF_DOWN = 75.52
EOF_DOWN = 37.76
BIT_UP = 37.76
SOF_UP = EOF_UP = 151.04
T1 = 4352 / FC * 1e6
T2 = 4192 / FC * 1e6
T3 = 4384 / FC * 1e6 + SOF_UP
ANSWER = SOF_UP + 96 * BIT_UP + EOF_UP
DIGITAL_DELAY = 321.0  # us: NXP's ISO15693 high-data-rate digital delay
TIMER1 = 476.0 + DIGITAL_DELAY  # us: a silent slot, firmware before 3.8 (the worst case)
FIELD_SETTLE = 5200.0  # us after RF_ON before the first request (driver settle_us: NXP's GTV)
HOST_ROUND = 500.0  # us: LOAD_RF_CONFIG, idle/transceive, RF_STATUS, IRQ clear, SEND_DATA
HOST_SLOT = 600.0  # us: IRQ/RX_STATUS reads, READ_DATA, the 5-frame EOF sequence
RELAY_MS = 5.0  # ms per antenna change (driver switch_us), two per seat per cycle


def request_us(mask_bits):
    nbytes = 5 + (mask_bits + 7) // 8
    return SOF_DOWN + nbytes * BYTE_DOWN + EOF_DOWN


def scan(uids, host=True):
    """Air time (+ host estimate) in us of one inventory over `uids` (ints)."""
    total = FIELD_SETTLE if host else 0.0
    stack = [(0, 0)]
    rounds = 0
    while stack:
        mask, mbits = stack.pop()
        rounds += 1
        total += request_us(mbits) + (HOST_ROUND if host else 0.0)
        match = [u for u in uids if u & ((1 << mbits) - 1) == mask]
        for slot in range(16):
            if slot:
                total += EOF_DOWN
            n = sum(1 for u in match if (u >> mbits) & 15 == slot)
            total += T1 + ANSWER + max(T2, DIGITAL_DELAY) if n else TIMER1
            total += HOST_SLOT if host else 0.0
            if n > 1:
                stack.append((mask | (slot << mbits), mbits + 4))
    return total, rounds


def expected(n, trials=4000, host=True, seed=1):
    rng = random.Random(seed)
    t = r = 0.0
    for _ in range(trials):
        uids = [rng.getrandbits(48) | (0xE004 << 48) for _ in range(n)]
        a, b = scan(uids, host)
        t += a
        r += b
    return t / trials / 1000, r / trials


def main():
    print("one empty 16-slot round, air only: %.2f ms" % (scan([], False)[0] / 1000))
    print("tags  rounds  air ms  air+host ms")
    for n in (0, 1, 4, 8, 12, 14, 16, 18):
        air, rounds = expected(n, host=False)
        both, _ = expected(n, host=True)
        print("%4d  %6.2f  %6.1f  %11.1f" % (n, rounds, air, both))
    rack, _ = expected(14)
    tray8, _ = expected(8)
    tray16, _ = expected(16)
    rack += RELAY_MS  # rack and tray each start with a relay move
    tray8 += RELAY_MS
    tray16 += RELAY_MS
    print("seat, rack 14 + tray 8 : %.0f ms" % (rack + tray8))
    print("seat, rack 14 + tray 16: %.0f ms" % (rack + tray16))
    print("table (4 seats, typical), one reader after the other: %.0f ms" % (4 * (rack + tray8)))
    air = expected(14, host=False)[0] + expected(8, host=False)[0]
    host = rack + tray8 - air
    # inventory_all(): the four fields run at once, the host's SPI work does not
    print("table (4 seats, typical), readers stepped together: %.0f ms"
          % max(air + host, 4 * host))


if __name__ == "__main__":
    main()

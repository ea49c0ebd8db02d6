"""The table as it is wired (hardware/pinmap.md): which GPIO reaches which
chip pin, and each I2C chip's address. The simulated table puts its chip
models there (machine_sim.SimTable), as the circuit board puts the chips,
so the firmware's own pin map (firmware/boards/pico.py) is tested against
the hardware rather than against itself; and the simulation runs without
the firmware's board file (the virtual table from an installed package,
the emulated board's bridge). tests/drivers/test_pinmap.py holds this file
to hardware/pinmap.md and boards/pico.py to both.
"""

SEATS = 4
SPI_SCK, SPI_MOSI, SPI_MISO = 2, 3, 4  # SPI0, shared by the four PN5180s
# per seat's PN5180: chip select, BUSY, reset, antenna switch (0 rack, 1 tray)
NSS = (5, 6, 7, 8)
BUSY = (9, 10, 11, 12)
RST = (13, 14, 15, 16)
ANT = (17, 18, 19, 20)
LED_DATA = 22  # the WS2812 chain, 3 LEDs per seat, seat 0 first
LEDS_PER_SEAT = 3
I2C_SDA, I2C_SCL = 26, 27  # I2C1: the displays and the key expanders
DISPLAY_ADDR = (0x70, 0x71, 0x72, 0x73)  # HT16K33, seat 0..3
EXPANDER_ADDR = (0x20, 0x21, 0x22, 0x23)  # MCP23017, seat 0..3: keys on port A bits 0..6


def key_bits(seat):
    """(expander index, first bit) of a seat's 7 keys: its own expander's port A."""
    return seat, 0


def pins():
    """{hardware/pinmap.md constant: GPIO} of this wiring."""
    out = {"SPI_SCK": SPI_SCK, "SPI_MOSI": SPI_MOSI, "SPI_MISO": SPI_MISO,
           "LED_DATA": LED_DATA, "I2C_SDA": I2C_SDA, "I2C_SCL": I2C_SCL}
    for name, gpios in (("NSS", NSS), ("BUSY", BUSY), ("RST", RST), ("ANT", ANT)):
        for s in range(SEATS):
            out[name + str(s)] = gpios[s]
    return out

"""Bus-level simulators of the table's chips (HT16K33, PN5180, MCP23017).

They stand in for machine.I2C / machine.SPI / machine.Pin so that the real
drivers run unchanged against them, on CPython and on the MicroPython unix
port. Behaviour follows the datasheets as read in each module's docstring.

- pins.PinSim / ComputedPin: machine.Pin stand-ins (outputs the driver sets,
  inputs a chip computes).
- i2c.I2CBusSim: writeto/readfrom_into/..._mem, OSError(EIO) on no ACK.
- spi.SPIBusSim: one bus, several chips each selected by its NSS pin.
- ht16k33_sim.HT16K33Sim: RAM and commands; text() shows what a person sees.
- mcp23017_sim.MCP23017Sim: registers; press()/release() a key.
- pn5180_sim.PN5180Sim: host interface, BUSY, RF field, two antennas with
  tags (set_tags(antenna, uids)), 16-slot inventory, faults (miss_rate,
  phantom_rate, crosstalk_rate, seeded).
- wiring: where the chips sit, as the hardware is wired (hardware/pinmap.md).
- machine_sim.SimTable / SimMachine: all chips of a table, so wired:
  `board = pico.make(SimMachine(table), table)`.
This package is for the unix port and tests; it is not needed on the Pico.
"""

"""Bus-level simulators of the table's chips (HT16K33, PN5180, MCP23017).

They stand in for machine.I2C / machine.SPI / machine.Pin so that the real
drivers run unchanged against them, on CPython and on the MicroPython unix
port. Behaviour follows the datasheets as read in each module's docstring.
"""

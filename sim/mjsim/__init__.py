"""The simulation room: everything that runs the firmware without the board
and never goes on it (docs/sim.md).

- chipsim/: the table's chips (PN5180, HT16K33, MCP23017, the LED chain) at
  bus/register level, under CPython and MicroPython;
- board, ptyport, blockdev, unixmain: the firmware's side on the MicroPython
  unix port (the simulated board forwarding bus transactions, the link on a
  pty, a file-backed flash, the entry point);
- virtual: the virtual table (tiles, bots, faults) that plays against it;
- mprun, romboot: the unix port running the firmware's code from a ROMFS image;
- boardemu/: the emulated Pico (rp2040js) with the same chip models on its buses.

This package is MicroPython-safe at its top: the firmware process imports it.
"""

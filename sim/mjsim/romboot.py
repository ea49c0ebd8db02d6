# MicroPython side of mjsim.mprun: mount the firmware image as /rom (read
# only, executed in place as frozen code is on the board; mprun put /rom on
# MICROPYPATH), then import MODULE with the remaining arguments in sys.argv.
import os
import sys

import uctypes
import vfs

addr, size = os.getenv("MPRUN_ROM").split(":")
vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(addr), int(size))), "/rom")
del sys.argv[0]  # sys.argv[0] is now MODULE, as python -m would have it
__import__(sys.argv[0])

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The one place the tests' import path is set (tools/mptest.py does the same
# for MicroPython): the firmware's packages (sichuan, table, drivers, boards)
# import as on the board; the shared test kits; the tools and the benches,
# which the tests run and check. The simulation room (mjsim) and the host
# tool (mjtable) are installed packages.
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "core"),
          os.path.join(HERE, "drivers"), os.path.join(ROOT, "tools"),
          os.path.join(ROOT, "bench")):
    if p not in sys.path:
        sys.path.insert(0, p)

import sichuan  # noqa: E402, F401

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The firmware packages (sichuan, table, drivers, boards) import as on the board.
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "core")):
    if p not in sys.path:
        sys.path.insert(0, p)

import sichuan  # noqa: E402,F401  (installs the `micropython.const` shim on CPython)

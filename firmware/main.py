# The board runs this file as source from its filesystem, compiled into the
# heap at each boot, so it stays this small: the firmware's top is app.py,
# which runs in place from the ROMFS image with the rest (docs/decisions.md).
import sys

import app

app.start(sys.argv)

# The board runs this file as source from its filesystem, compiled into the
# heap at each boot, so it stays this small: the firmware's top is app.py,
# which runs in place from the ROMFS image with the rest (docs/decisions.md).
import sys

if sys.platform == "rp2":  # no Ctrl-C until app.py knows if the table is locked
    import micropython

    micropython.kbd_intr(-1)

import app  # noqa: E402

app.start(sys.argv)

# The board runs this file as source from its filesystem, compiled into the
# heap at each boot, so it stays this small: the firmware's top is app.py,
# which runs in place from the ROMFS image with the rest (docs/decisions.md).
import sys

if sys.platform == "rp2":  # a keyed table: no Ctrl-C until app.py has seen the key button
    import micropython

    try:
        open("key").close()  # hostlink.KEY_FILE
        micropython.kbd_intr(-1)
    except OSError:
        pass

import app

app.start(sys.argv)

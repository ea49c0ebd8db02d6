"""`make setup`: put firmware/ on the development venv's import path.

The firmware's packages (table, boards, drivers; sichuan too) import by the
names they have on the board, so on CPython the folder that holds them must
be on sys.path. In this checkout's venv a .pth file says so once, for the
tools, the benches and the tests alike (the installed wheel has no firmware
packages on its path: docs/decisions.md, "The layout")."""

import os
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

path = os.path.join(sysconfig.get_paths()["purelib"], "mjtable-dev.pth")
with open(path, "w") as f:
    f.write(os.path.join(ROOT, "firmware") + "\n")
print("firmware/ on the venv's path:", path)

# Runs test modules under MicroPython (the unix port) the way pytest runs them
# under CPython: every `test_*` function of every `test_*.py` file in the given
# folders. Those files use plain asserts and tests/core/check.py only, so the
# same expectations hold on both interpreters.
#   micropython tools/mptest.py tests/core tests/drivers
import os
import sys

ROOT = __file__.rsplit("/", 2)[0] if "/" in __file__ else ".."
if ROOT == "tools":
    ROOT = "."


def run_folder(folder, totals):
    sys.path.insert(0, folder)
    names = sorted(n for n in os.listdir(folder) if n.startswith("test_") and n.endswith(".py"))
    for name in names:
        modname = name[:-3]
        try:
            mod = __import__(modname)
        except Exception as e:  # a module that does not import fails as a whole
            totals[1] += 1
            print("FAIL", folder + "/" + name, "import:", repr(e))
            continue
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            try:
                fn()
                totals[0] += 1
            except Exception as e:
                totals[1] += 1
                print("FAIL", folder + "/" + name + "::" + attr, repr(e))
                sys.print_exception(e)
        del sys.modules[modname]
    sys.path.pop(0)


def main():
    # as tests/conftest.py: the firmware, the simulation room (its chip
    # models), check.py shared by every dual suite
    sys.path.insert(0, ROOT + "/firmware")
    sys.path.insert(0, ROOT + "/sim")
    sys.path.insert(0, ROOT + "/tests/core")
    folders = sys.argv[1:] or ["tests/core"]
    totals = [0, 0]
    for folder in folders:
        try:
            os.stat(folder)
        except OSError:
            continue
        run_folder(folder, totals)
    print("micropython: %d passed, %d failed" % (totals[0], totals[1]))
    sys.exit(1 if totals[1] or not totals[0] else 0)


main()

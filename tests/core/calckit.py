"""The referee's calculator for the dual-interpreter tests.

calc (waits and the value of a win as dicts) runs the rules core on both
interpreters but is host code, kept off the board's flash: it lives in
host/mjtable/referee/calc.py. CPython imports it from the installed host package;
under MicroPython (tools/mptest.py puts ROOT/firmware on the path) it is
imported from host/mjtable/referee beside that firmware folder.
"""

import sys

if sys.implementation.name == "micropython":
    for _p in sys.path:
        if _p.endswith("firmware"):
            sys.path.append(_p[:-8] + "host/mjtable/referee")
            break
    import calc  # noqa: F401
else:
    from mjtable.referee import calc  # noqa: F401

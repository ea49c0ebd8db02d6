"""Sichuan mahjong rules core: pure, integer-encoded, no I/O.

Runs unchanged on CPython and MicroPython. Modules: tiles (encoding and
notation), shape (win shapes, waits), meld (meld encoding), fan (patterns
and value of a win), ruleset (parameters and blobs), presets (named rule
sets citing the seeds), game, claims, settle, handlog, wild. The referee's
calculator (mjtable.calc) runs this core on the host.
"""

try:
    import micropython  # noqa: F401
except ImportError:  # CPython: give `from micropython import const` its meaning
    import sys

    class _MicroPython:
        @staticmethod
        def const(x):
            return x

        @staticmethod
        def viper(f):  # viper code runs as plain Python (ptr8: the bytearray)
            return f

    sys.modules["micropython"] = _MicroPython  # type: ignore[assignment]

"""The core folds other modules' constants into private copies (`_X = const(n)`)
so that the .mpy carries neither their names nor a lookup per use. Each copy
must equal its home's value.

Naming: `_F_X` is fan.X, `_M_X` meld.X, `_R_X` ruleset.X, `_G_X` game.X;
any other `_X` is X of the first of claims, settle, ruleset that has it.
Under MicroPython `_X` consts leave no module attribute, so the check runs
on CPython (the pytest run).
"""

import sys

from sichuan import claims, fan, game, handlog, meld, pattern, presets, ruleset, settle, tiles

_PREFIXED = {"_F_": fan, "_M_": meld, "_R_": ruleset, "_G_": game}
_PLAIN = (claims, settle, ruleset)


def _home(mod, name):
    """(home module, name there) of a private copy, or (None, None)."""
    home = _PREFIXED.get(name[:3])
    if home is not None:
        return home, name[3:]
    for h in _PLAIN:
        if h is not mod and hasattr(h, name[1:]):
            return h, name[1:]
    return None, None


def test_folded_copies_equal_their_home():
    checked = 0
    for mod in (claims, fan, game, handlog, meld, pattern, presets, ruleset, settle, tiles):
        for name in dir(mod):
            if not name.startswith("_") or not name[1:2].isupper():
                continue
            home, key = _home(mod, name)
            if home is None or home is mod:
                continue
            assert hasattr(home, key), (mod.__name__, name)
            assert getattr(mod, name) == getattr(home, key), (mod.__name__, name)
            checked += 1
    if sys.implementation.name == "cpython":
        assert checked > 50

"""Rule files (TOML) and the `--rules PRESET|FILE` argument, to a Ruleset.

A rule file starts from a preset and overrides parameters by name:

    base = "chengdu"          # required: the preset to start from
    name = "chengdu-16"       # optional: ruleset name (default: the file's stem)
    cap = 4                   # any parameter of sichuan.ruleset by name
    [fan]                     # pattern values in doublings (or fan.qingyise = 3)
    qingyise = 3
    menqing = "none"          # the pattern does not exist in this ruleset

Values are integers; a 0/1 parameter also takes true/false; a fan value also
takes "none" (no such pattern) or "cap" (满格: worth the cap itself); `cap`
also takes "none" (no cap). An unknown key or a bad value is a BadInput
error naming the file and the key.
"""

import os
import tomllib

from sichuan import ruleset

from . import BadInput

# Reserved top-level keys; everything else must be a parameter name.
_META = ("base", "name")


def _presets():
    from sichuan import presets  # late: lets `rules` errors point at a missing core

    return presets


def preset(name):
    """Ruleset of a preset name; BadInput listing the names if unknown."""
    p = _presets()
    if name not in p.names():
        raise BadInput("unknown preset %r (presets: %s)" % (name, ", ".join(p.names())))
    return p.get(name)


def _value(where, pid, v):
    """Integer value of TOML value v for parameter pid; BadInput naming `where`."""
    lo, hi = ruleset.bounds(pid)
    if isinstance(v, bool):
        if (lo, hi) != (0, 1):
            raise BadInput("%s: true/false is only for 0/1 parameters (range %d..%d)"
                           % (where, lo, hi))
        return int(v)
    if isinstance(v, str):
        word = v.strip().lower()
        if pid >= ruleset.P_FAN0 and word == "none":
            return ruleset.NONE
        if pid >= ruleset.P_FAN0 and word == "cap":
            return ruleset.AT_CAP
        if pid == ruleset.P_CAP and word == "none":
            return -1
        raise BadInput("%s: %r is not a valid value (expected an integer %d..%d)"
                       % (where, v, lo, hi))
    if not isinstance(v, int):
        raise BadInput("%s: %r is not an integer" % (where, v))
    if v < lo or v > hi:
        raise BadInput("%s: %d is out of range %d..%d" % (where, v, lo, hi))
    return v


def _flatten(table, prefix=""):
    """[(dotted key, value)] of a TOML table, nested tables flattened."""
    out = []
    for k, v in table.items():
        key = prefix + k
        if isinstance(v, dict):
            out.extend(_flatten(v, key + "."))
        else:
            out.append((key, v))
    return out


def from_toml(data, source="<rules>", default_name=None):
    """Ruleset of a parsed TOML document (dict). `source` names it in errors."""
    base = data.get("base")
    if base is None:
        raise BadInput('%s: missing key "base" (the preset to start from, e.g. base = "xuezhan")'
                       % source)
    if not isinstance(base, str):
        raise BadInput("%s: base: expected a preset name, got %r" % (source, base))
    try:
        rs = preset(base).copy()
    except BadInput as e:
        raise BadInput("%s: base: %s" % (source, e)) from None
    name = data.get("name", default_name or base)
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 32:
        raise BadInput("%s: name: expected a string of 1..32 bytes, got %r" % (source, name))
    rs.name = name
    for key, v in _flatten({k: v for k, v in data.items() if k not in _META}):
        try:
            pid = ruleset.param_id(key)
        except KeyError:
            raise BadInput("%s: unknown key %r" % (source, key)) from None
        rs.set(pid, _value("%s: %s" % (source, key), pid, v))
    return rs


def _read_toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput("%s: not valid TOML: %s" % (path, e)) from None
    except UnicodeDecodeError as e:  # a GBK file from a Chinese editor, say
        raise BadInput("%s: not UTF-8 text (byte %d); save it as UTF-8" % (path, e.start)) from None


def load_toml(path):
    """Ruleset of a TOML rule file; BadInput naming the file and the key."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return from_toml(_read_toml(path), path, stem.encode()[:32].decode("utf-8", "ignore") or None)


def load_blob(path):
    """Ruleset of a compiled blob (`rules compile` output)."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    try:
        return ruleset.from_blob(blob)
    except ValueError as e:
        raise BadInput("%s: %s" % (path, e)) from None


def load(spec):
    """Ruleset of `--rules SPEC`: a preset name, a .toml file or a compiled blob."""
    if spec is None:
        spec = "xuezhan"
    if os.path.isfile(spec):
        with open(spec, "rb") as f:
            magic = f.read(2)
        return load_blob(spec) if magic == b"SR" else load_toml(spec)
    if spec.endswith((".toml", ".bin")) or os.sep in spec:
        raise BadInput("rule file %r not found" % spec)
    return preset(spec)


def base_of(spec):
    """The preset a rule file starts from (a Ruleset), or None for a preset or a blob."""
    if spec is None or not os.path.isfile(spec):
        return None
    with open(spec, "rb") as f:
        if f.read(2) == b"SR":
            return None
    return preset(_read_toml(spec)["base"])

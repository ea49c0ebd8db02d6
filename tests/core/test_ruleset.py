"""Rulesets and their blobs (sichuan.ruleset): round trips, names, and every
way a blob can be bad.

Issue 2: "Rulesets: a fixed, versioned list of integer parameters with ids, a
name and a CRC, serialised to a small binary blob; a blob with a bad CRC,
unknown version or out-of-range value is rejected with the reason." and
"corrupt ruleset blobs (every single-byte change is rejected)".

Blob layout (ruleset.py docstring): b"SR" | version (1) | name length (1) |
name (UTF-8) | parameter count (1) | int16 LE values | CRC32 LE (4) over all
before it. Blobs with a *valid* CRC but bad content are built here with
binascii.crc32, so the content checks are reached and not masked by the CRC.
"""

import struct
from binascii import crc32

from check import raises
from sichuan import presets
from sichuan import ruleset as R

_ISSUE_PATTERNS = (
    "pinghu duiduihu qidui longqidui qingyise jingoudiao daiyaojiu jiangdui "
    "qingdui qingqidui qinglongqidui qingdaiyao qingjingoudiao menqing "
    "duanyaojiu gen gangshanghua gangshangpao qiangganghu haidi juezhang tianhu "
    "dihu zimo"
).split()


def _seal(body):
    """body + its CRC32 (LE): a blob whose CRC is right whatever the content."""
    return bytes(body) + struct.pack("<I", crc32(bytes(body)) & 0xFFFFFFFF)


def _build(name=b"t", version=None, count=None, values=None):
    if version is None:
        version = R.FORMAT_VERSION
    if values is None:
        values = [R.default(i) for i in range(R.NPARAMS)]
    if count is None:
        count = len(values)
    body = b"SR" + bytes((version, len(name))) + name + bytes((count,))
    body += struct.pack("<%dh" % len(values), *values)
    return _seal(body)


def _msg(e):
    return str(e.args[0]) if e.args else str(e)


def _all_rulesets():
    out = [R.Ruleset()]
    for n in presets.names():
        out.append(presets.get(n))
    return out


# ---- names and ids ------------------------------------------------------------

def test_pattern_ids_are_the_issue_list_in_order():
    assert tuple(R.PATTERNS) == tuple(_ISSUE_PATTERNS)
    assert R.NPATTERNS == 24
    assert R.PATTERNS[R.PINGHU] == "pinghu" and R.PATTERNS[R.ZIMO] == "zimo"
    assert R.PATTERNS[R.QINGLONGQIDUI] == "qinglongqidui" and R.PATTERNS[R.GEN] == "gen"


def test_param_name_id_round_trip():
    seen = set()
    for pid in range(R.NPARAMS):
        name = R.param_name(pid)
        assert name not in seen, name
        seen.add(name)
        assert R.param_id(name) == pid, name
    assert R.param_id("cap") == R.P_CAP
    assert R.param_id("fan.qingyise") == R.P_FAN0 + R.QINGYISE
    assert R.param_name(R.P_FAN0 + R.GEN) == "fan.gen"
    assert R.NPARAMS == R.P_FAN0 + R.NPATTERNS


def test_param_id_unknown_names_it():
    for bad in ("capp", "fan.nothing", "fan.", "", "Cap"):
        e = raises(KeyError, R.param_id, bad)
        assert repr(bad) in _msg(e) or bad in _msg(e), _msg(e)


def test_design_parameters_exist():
    # DESIGN.md §5 and core-api.md name these; the format must hold them now
    for name in ("players", "suits", "hand_size", "mode", "xueliu_lock", "huansanzhang",
                 "hsz_dirs", "dingque", "fan_shown_offset", "cap", "zimo_bonus",
                 "base_points", "gang_zhi", "gang_zhi_others", "gang_bu", "gang_an",
                 "bugang_when", "gang_payers", "zhuanyi", "zhuanyi_chain", "diangang_hua",
                 "qianggang", "haidi_gang", "gang_no_fan", "guoshou", "last4_forced",
                 "huazhu", "huazhu_payees", "chajiao", "sijiao", "tuigang", "tuigang_first",
                 "huazhu_chajiao", "dealer_next", "hands", "start_points", "max_winners",
                 "tingyong", "baohu", "qinghu", "jiaoma"):
        R.param_id(name)


def test_defaults_within_bounds():
    for pid in range(R.NPARAMS):
        lo, hi = R.bounds(pid)
        assert lo <= R.default(pid) <= hi, R.param_name(pid)
        assert -32768 <= lo and hi <= 32767, R.param_name(pid)  # fits int16


# ---- Ruleset object --------------------------------------------------------------

def test_getitem_and_fan():
    rs = R.Ruleset()
    assert rs[R.P_CAP] == R.default(R.P_CAP)
    assert rs.fan(R.QINGYISE) == rs[R.P_FAN0 + R.QINGYISE]


def test_set_in_range_and_out_of_range():
    rs = R.Ruleset()
    lo, hi = R.bounds(R.P_CAP)
    rs.set(R.P_CAP, hi)
    assert rs[R.P_CAP] == hi
    before = list(rs.values)
    e = raises(ValueError, rs.set, R.P_CAP, hi + 1)
    assert "cap" in _msg(e)
    raises(ValueError, rs.set, R.P_CAP, lo - 1)
    raises(ValueError, rs.set, R.P_CAP, "3")
    raises(ValueError, rs.set, R.P_FAN0 + R.QIDUI, R.bounds(R.P_FAN0)[1] + 1)
    assert rs.values == before  # a refused set changes nothing


def test_constructor_validates():
    vals = [R.default(i) for i in range(R.NPARAMS)]
    vals[R.P_PLAYERS] = R.bounds(R.P_PLAYERS)[1] + 1
    raises(ValueError, R.Ruleset, "x", vals)
    raises(ValueError, R.Ruleset, "x", [0] * (R.NPARAMS - 1))
    raises(ValueError, R.Ruleset, "", None)
    raises(ValueError, R.Ruleset, "n" * 33, None)
    R.Ruleset("n" * 32, None)


def test_copy_is_independent():
    a = R.Ruleset()
    b = a.copy("other")
    b.set(R.P_CAP, 3 if a[R.P_CAP] != 3 else 2)
    assert a[R.P_CAP] != b[R.P_CAP] and b.name == "other" and a.name == "xuezhan"
    assert a != b and a == a.copy()


# ---- blobs: round trip ------------------------------------------------------------

def test_every_preset_round_trips():
    for rs in _all_rulesets():
        blob = rs.to_blob()
        back = R.from_blob(blob)
        assert back == rs, rs.name
        assert back.name == rs.name and back.values == rs.values
        assert back.to_blob() == blob
        assert R.from_blob(bytearray(blob)) == rs  # any bytes-like


def test_blob_layout():
    rs = presets.get("chengdu")
    blob = rs.to_blob()
    name = rs.name.encode()
    n = len(name)
    assert blob[:2] == b"SR"
    assert blob[2] == R.FORMAT_VERSION
    assert blob[3] == n and blob[4:4 + n] == name
    assert blob[4 + n] == R.NPARAMS
    assert len(blob) == 5 + n + 2 * R.NPARAMS + 4
    vals = struct.unpack("<%dh" % R.NPARAMS, blob[5 + n:-4])
    assert list(vals) == list(rs.values)
    assert struct.unpack("<I", blob[-4:])[0] == crc32(blob[:-4]) & 0xFFFFFFFF


def test_crc_is_the_blob_crc_and_tells_rulesets_apart():
    crcs = set()
    for rs in _all_rulesets()[1:]:
        c = rs.crc()
        assert c == struct.unpack("<I", rs.to_blob()[-4:])[0]
        assert 0 <= c <= 0xFFFFFFFF
        crcs.add(c)
    assert len(crcs) == len(presets.names())


def test_utf8_name_round_trips():
    rs = R.Ruleset("成都麻将", None)
    back = R.from_blob(rs.to_blob())
    assert back.name == "成都麻将" and back == rs


def test_negative_values_round_trip():
    rs = R.Ruleset()
    lo = R.bounds(R.P_START_POINTS)[0]
    rs.set(R.P_START_POINTS, lo)
    rs.set(R.P_FAN0 + R.ZIMO, R.NONE)
    back = R.from_blob(rs.to_blob())
    assert back[R.P_START_POINTS] == lo and back.fan(R.ZIMO) == R.NONE


# ---- blobs: rejected ------------------------------------------------------------

def test_every_single_byte_change_is_rejected():
    for rs in _all_rulesets():
        blob = rs.to_blob()
        for i in range(len(blob)):
            for delta in (1, 0x80, 0xFF, 0x5A):
                bad = bytearray(blob)
                bad[i] = (bad[i] + delta) & 0xFF if delta != 0x5A else bad[i] ^ 0x5A
                if bytes(bad) == blob:
                    continue
                raises(ValueError, R.from_blob, bytes(bad))


def test_all_255_alternatives_at_key_offsets():
    blob = presets.get("xuezhan").to_blob()
    n = blob[3]
    offsets = (0, 1, 2, 3, 4, 4 + n, 5 + n, 6 + n, 5 + n + 2 * R.P_CAP + 1, len(blob) - 5,
               len(blob) - 4, len(blob) - 1)
    for i in offsets:
        for v in range(256):
            if v == blob[i]:
                continue
            bad = bytearray(blob)
            bad[i] = v
            raises(ValueError, R.from_blob, bytes(bad))


def test_bad_crc_reason():
    blob = bytearray(R.Ruleset().to_blob())
    blob[-1] ^= 1
    e = raises(ValueError, R.from_blob, bytes(blob))
    assert "CRC" in _msg(e) or "crc" in _msg(e), _msg(e)


def test_valid_crc_unknown_version():
    # 3 (HOUSE_VERSION) is format 2 with house patterns: tests/core/test_house_patterns.py
    for v in (0, R.FORMAT_VERSION - 1, R.HOUSE_VERSION + 1, 255):
        e = raises(ValueError, R.from_blob, _build(version=v))
        assert "version" in _msg(e), _msg(e)


def test_valid_crc_bad_magic():
    good = _build()
    body = bytearray(good[:-4])
    body[0] = ord("X")
    e = raises(ValueError, R.from_blob, _seal(body))
    assert "magic" in _msg(e) or "not a ruleset" in _msg(e), _msg(e)


def test_valid_crc_wrong_count():
    vals = [R.default(i) for i in range(R.NPARAMS)]
    for vs in (vals[:-1], vals + [0]):
        e = raises(ValueError, R.from_blob, _build(values=vs))
        assert "parameter" in _msg(e) or "count" in _msg(e), _msg(e)
    # the count byte disagreeing with the values that follow
    e = raises(ValueError, R.from_blob, _build(count=R.NPARAMS - 1))
    e = raises(ValueError, R.from_blob, _build(count=R.NPARAMS + 1))


def test_valid_crc_out_of_range_value_names_the_parameter():
    for pid in (R.P_PLAYERS, R.P_CAP, R.P_HUAZHU, R.P_FAN0 + R.QINGYISE, R.NPARAMS - 1):
        lo, hi = R.bounds(pid)
        for v in (lo - 1, hi + 1):
            if v < -32768 or v > 32767:
                continue
            vals = [R.default(i) for i in range(R.NPARAMS)]
            vals[pid] = v
            e = raises(ValueError, R.from_blob, _build(values=vals))
            assert R.param_name(pid) in _msg(e), (R.param_name(pid), _msg(e))


def test_valid_crc_bad_names():
    raises(ValueError, R.from_blob, _build(name=b""))
    raises(ValueError, R.from_blob, _build(name=b"n" * 33))
    raises(ValueError, R.from_blob, _build(name=b"\xff\xfe"))
    R.from_blob(_build(name=b"n" * 32))


def test_valid_crc_name_length_overruns():
    good = bytearray(_build(name=b"abc")[:-4])
    good[3] = 250
    raises(ValueError, R.from_blob, _seal(good))


def test_valid_crc_trailing_or_missing_bytes():
    body = _build()[:-4]
    raises(ValueError, R.from_blob, _seal(body + b"\x00"))
    raises(ValueError, R.from_blob, _seal(body + b"\x00\x00"))
    raises(ValueError, R.from_blob, _seal(body[:-1]))
    raises(ValueError, R.from_blob, _seal(body[:-2]))


def test_every_truncation_is_rejected():
    for rs in _all_rulesets():
        blob = rs.to_blob()
        for k in range(len(blob)):
            raises(ValueError, R.from_blob, blob[:k])
        # and every truncation re-sealed with a right CRC
        body = blob[:-4]
        for k in range(len(body)):
            raises(ValueError, R.from_blob, _seal(body[:k]))


def test_empty_and_tiny_blobs():
    for b in (b"", b"S", b"SR", b"SR\x01", bytes(8), bytes(9)):
        raises(ValueError, R.from_blob, b)


def test_spec_table_has_one_row_per_parameter_id():
    """ruleset._SPEC is text parsed on demand: its rows must line up with the P_* ids."""
    from sichuan import ruleset as R

    rows = list(R._rows())
    assert len(rows) == R.P_FAN0
    assert [r[0] for r in rows] == list(range(R.P_FAN0))
    assert R.param_id("cap") == R.P_CAP and R.param_id("jiaoma") == R.P_JIAOMA
    assert R.param_name(R.P_PENG_NO_KONG) == "peng_no_kong"

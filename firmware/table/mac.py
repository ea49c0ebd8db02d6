"""HMAC-SHA256 (RFC 2104) for MicroPython, which has hashlib.sha256 but no hmac.

The link authenticates state-changing requests with it; hand logs will carry it.
"""

import hashlib

_BLOCK = 64  # SHA-256 block size, bytes


class Mac:
    """HMAC-SHA256 with a fixed key; the key pads are computed once."""

    def __init__(self, key):
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        self._ipad = bytearray(_BLOCK)
        self._opad = bytearray(_BLOCK)
        for i in range(len(key)):
            self._ipad[i] = key[i]
            self._opad[i] = key[i]
        for i in range(_BLOCK):
            self._ipad[i] ^= 0x36
            self._opad[i] ^= 0x5C

    def digest(self, *parts):
        """32-byte MAC of the concatenation of parts (bytes-like), no copy made."""
        h = hashlib.sha256(self._ipad)
        for p in parts:
            h.update(p)
        inner = h.digest()
        h = hashlib.sha256(self._opad)
        h.update(inner)
        return h.digest()


def hmac_sha256(key, msg):
    return Mac(key).digest(msg)


def same(a, b):
    """Compare two MACs without stopping at the first differing byte."""
    if len(a) != len(b):
        return False
    d = 0
    for i in range(len(a)):
        d |= a[i] ^ b[i]
    return d == 0

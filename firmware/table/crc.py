"""CRC-32 (IEEE 802.3, reflected, init/xorout 0xFFFFFFFF), the zlib/binascii one.

crc32(data, value=0) -> int in 0..2**32-1, chainable like binascii.crc32.
Uses binascii.crc32 when the port has it (the unix and rp2 builds do);
otherwise crc32_soft: a 16-entry nibble table (two lookups per byte, 64 bytes
of constants instead of a 1 KB byte table).
"""

_T = (
    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC,
    0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
    0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
    0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
)


def crc32_soft(data, value=0):
    c = value ^ 0xFFFFFFFF
    for b in data:
        c ^= b
        c = (c >> 4) ^ _T[c & 15]
        c = (c >> 4) ^ _T[c & 15]
    return c ^ 0xFFFFFFFF


try:
    from binascii import crc32
except ImportError:  # a port built without MICROPY_PY_BINASCII_CRC32
    crc32 = crc32_soft

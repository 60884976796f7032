"""Compressed bodies for the content-decoding tests: zeros that inflate about 1000 times
per layer, so a page of a few KB on the wire stacks up to gigabytes.

Built in milliseconds, not by compressing gigabytes: after a full flush, deflate starts
afresh, so every further MiB of zeros compresses to the same block, and the stream is that
block repeated. Every body here is a valid stream (its checksums included).
"""

from __future__ import annotations

import gzip
import struct
import zlib

MIB = 1 << 20
_ZEROS = bytes(MIB)
# The fixed ten bytes of a gzip member with no name, time or extra field (RFC 1952).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"


def deflated_zeros(mib: int) -> bytes:
    """``mib`` MiB of zeros as a raw deflate stream (no zlib or gzip wrapper)."""
    deflater = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflater.compress(_ZEROS) + deflater.flush(zlib.Z_FULL_FLUSH)
    return block * mib + deflater.flush()


def gzip_zeros(mib: int) -> bytes:
    """``mib`` MiB of zeros as one gzip member."""
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(_ZEROS, crc)
    size = (mib * MIB) & 0xFFFFFFFF
    return _GZIP_HEADER + deflated_zeros(mib) + struct.pack("<II", crc, size)


def zlib_zeros(mib: int) -> bytes:
    """``mib`` MiB of zeros as a zlib stream (what HTTP's ``deflate`` names)."""
    adler = 1
    for _ in range(mib):
        adler = zlib.adler32(_ZEROS, adler)
    return b"\x78\xda" + deflated_zeros(mib) + struct.pack(">I", adler)


def gzip_of(data: bytes) -> bytes:
    """``data`` as one gzip member."""
    return gzip.compress(data, 9, mtime=0)


def zlib_of(data: bytes) -> bytes:
    """``data`` as a zlib stream."""
    return zlib.compress(data, 9)


def raw_deflate_of(data: bytes) -> bytes:
    """``data`` as a raw deflate stream, as some servers send ``deflate``."""
    deflater = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return deflater.compress(data) + deflater.flush()

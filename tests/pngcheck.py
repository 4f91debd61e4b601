"""A small PNG reader for tests, with the standard library only (zlib + struct).

Enough for screenshots and the mail's map: 8-bit truecolour (colour type 2, RGB),
truecolour with alpha (type 6, RGBA) or 8-bit palette (type 3, read as RGB), not interlaced. Chunk CRCs are checked and the five
scanline filters (None, Sub, Up, Average, Paeth) are undone.
"""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Image", "read_png"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4, 3: 1}


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int  # 3 (RGB) or 4 (RGBA)
    rows: tuple[bytes, ...]  # un-filtered scanlines, ``width * channels`` bytes each

    def row_rgb(self, y: int, x0: int = 0, x1: int | None = None) -> list[tuple[int, int, int]]:
        """The pixels of row ``y`` from ``x0`` to ``x1`` (excluded) as RGB tuples (alpha dropped)."""
        c = self.channels
        x1 = self.width if x1 is None else x1
        row = self.rows[y][x0 * c: x1 * c]
        return list(zip(row[0::c], row[1::c], row[2::c]))

    def colours(self, box: tuple[int, int, int, int] | None = None) -> Counter[tuple[int, int, int]]:
        """How many pixels of each RGB colour, in ``box`` (x0, y0, x1, y1; ends excluded) or everywhere."""
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        out: Counter[tuple[int, int, int]] = Counter()
        for y in range(y0, y1):
            out.update(self.row_rgb(y, x0, x1))
        return out


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    if kind == 0:
        return line
    if kind == 2:
        return bytes((x + b) & 0xFF for x, b in zip(line, prev))
    out = bytearray(line)
    n = len(out)
    if kind == 1:
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 3:
        for i in range(n):
            a = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((a + prev[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(n):
            if i >= bpp:
                out[i] = (out[i] + _paeth(out[i - bpp], prev[i], prev[i - bpp])) & 0xFF
            else:
                out[i] = (out[i] + prev[i]) & 0xFF  # Paeth with a = c = 0 is b
    else:
        raise ValueError(f"unknown PNG filter type {kind}")
    return bytes(out)


def read_png(source: bytes | Path | str) -> Image:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG; ``ValueError`` for anything else."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file (bad signature)")
    pos = len(SIGNATURE)
    header: tuple[int, ...] | None = None
    idat = bytearray()
    palette = b""
    while pos < len(data):
        if pos + 8 > len(data):
            raise ValueError("truncated PNG chunk header")
        length, kind = struct.unpack(">I4s", data[pos: pos + 8])
        body = data[pos + 8: pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise ValueError(f"truncated PNG chunk {kind!r}")
        (crc,) = struct.unpack(">I", data[pos + 8 + length: pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"bad CRC in PNG chunk {kind!r}")
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _compression, _filter, interlace = header
    if depth != 8 or colour not in _CHANNELS or interlace != 0 or (colour == 3 and not palette):
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {colour}, interlace {interlace}")
    channels = _CHANNELS[colour]
    stride = width * channels
    raw = zlib.decompress(bytes(idat))
    if len(raw) != height * (stride + 1):
        raise ValueError(f"PNG data is {len(raw)} bytes, expected {height * (stride + 1)}")
    rows: list[bytes] = []
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1: start + 1 + stride], prev, channels)
        rows.append(prev)
    if colour == 3:  # each byte an index into PLTE's RGB triples
        rgb = [palette[i * 3: i * 3 + 3] for i in range(len(palette) // 3)]
        rows = [b"".join(rgb[i] for i in row) for row in rows]
        channels = 3
    return Image(width, height, channels, tuple(rows))

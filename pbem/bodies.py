"""Report bodies as stored in the game file: compressed against a fixed dictionary.

An HTML report is about 100 KB, almost all of it the map's sea, roads and names,
which are the same in every report. Each body is stored as a zstandard frame
compressed with a *raw-content dictionary*: reports of the start of a game
(``pbem/data/report-dict-1.txt``), so only what differs from them takes
room (about 13 KB per step of six reports instead of about 330 KB; the HTML
reports at a faster level than the text ones: see LARGE_LEVEL).

A stored value is either

* ``str``: a body stored in full (game files written before compression, or a
  hand-edited row); read as it is, or
* ``bytes``: :data:`MAGIC` + the dictionary's number (one byte) + a zstandard
  frame (content size included, so reading never guesses a size).

The dictionaries are data, frozen once published: a stored body needs the very
dictionary it was compressed with, so a new one gets a new number and the old
ones stay. Compression is deterministic for a given zstandard version, but
nothing relies on that: ``pbem verify`` compares the *decompressed* body with a
fresh rendering, byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from pbem.errors import PbemError

__all__ = ["MAGIC", "DamagedBodyError", "pack", "unpack"]

MAGIC = b"pbz"
#: number -> (package, resource) of each dictionary ever used; never change or remove one.
DICTIONARIES = {1: ("pbem", "data/report-dict-1.txt")}
CURRENT = 1
LEVEL = 9  # a text report (a few KB): about 0.1 ms; higher levels cost ten times more for 2% less
#: A body over LARGE bytes (an HTML report, about 55 KB with its map) is compressed at LARGE_LEVEL: 0.16 ms
#: instead of 0.55 ms at level 9, for about 1.1 KB more (4.1 KB instead of 3.0 KB); a resolving step stores
#: three of them, and that compression was a tenth of its time.
LARGE, LARGE_LEVEL = 16_384, 3


class DamagedBodyError(PbemError, ValueError):
    """A stored report body that cannot be read."""


@cache
def _dictionary(number: int) -> Any:
    import zstandard

    package, name = DICTIONARIES[number]
    data = (resources.files(package) / name).read_bytes()
    return zstandard.ZstdCompressionDict(data, dict_type=zstandard.DICT_TYPE_RAWCONTENT)


#: this thread's compressors and decompressors, by what they are for: zstandard's may not serve two
#: threads at once, and making one loads the 98 KB dictionary into it, which costs more than a text
#: report's (de)compression; a thread's are freed with it
_MINE = threading.local()


def _kept(key: tuple[str, int], make: Callable[[], Any]) -> Any:
    kept: dict[tuple[str, int], Any] | None = getattr(_MINE, "kept", None)
    if kept is None:
        kept = _MINE.kept = {}
    got = kept.get(key)
    if got is None:
        got = kept[key] = make()
    return got


def _decompressor(number: int) -> Any:
    """This thread's decompressor of dictionary ``number``."""
    import zstandard

    return _kept(("decompress", number), lambda: zstandard.ZstdDecompressor(dict_data=_dictionary(number)))


def _compressor(level: int = LEVEL) -> Any:
    """This thread's compressor at ``level``, with the current dictionary."""
    import zstandard

    return _kept(("compress", level), lambda: zstandard.ZstdCompressor(
        level=level, dict_data=_dictionary(CURRENT), write_content_size=True, write_checksum=True))


def pack(text: str) -> bytes:
    """The stored form of a report body."""
    data = text.encode("utf-8")
    return MAGIC + bytes([CURRENT]) + _compressor(LARGE_LEVEL if len(data) > LARGE else LEVEL).compress(data)


def unpack(value: str | bytes) -> str:
    """A report body from its stored form (either form; see the module's docstring).

    Raises :class:`DamagedBodyError` for bytes that are not a body this
    version can read (damaged, or from a newer pbem)."""
    if isinstance(value, str):
        return value
    import zstandard

    number = value[len(MAGIC)] if len(value) > len(MAGIC) and value.startswith(MAGIC) else None
    if number not in DICTIONARIES:
        raise DamagedBodyError("a stored report body is not in a form this pbem reads (damaged, or written by a "
                               "newer pbem); `pbem verify` names the step; restore the file from a backup")
    try:
        data = _decompressor(number).decompress(value[len(MAGIC) + 1:])
        return data.decode("utf-8")
    except (zstandard.ZstdError, UnicodeDecodeError) as exc:
        raise DamagedBodyError(f"a stored report body is damaged ({exc}); `pbem verify` names the step; "
                               "restore the file from a backup") from None

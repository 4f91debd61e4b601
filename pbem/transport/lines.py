"""Splitting mail text into lines (shared by :mod:`pbem.transport.message` and :mod:`pbem.transport.mime`)."""

from __future__ import annotations

__all__ = ["split_lines"]


def split_lines(text: str) -> list[str]:
    # Not str.splitlines: it also splits on \v, \f, \x1c-\x1e, \x85 and U+2028/9,
    # which must stay inside a line (and are then rejected by validation).
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

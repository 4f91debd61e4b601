"""Stored report bodies: compressed against a fixed dictionary, read back exactly; old full bodies still read."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import report_helpers as reports
from pbem import bodies
from pbem.bodies import DamagedBodyError, pack, unpack
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.rules.playout import random_decisions
from pbem.games.caesar.view import views


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_round_trips(text: str) -> None:
    stored = pack(text)
    assert isinstance(stored, bytes) and stored.startswith(bodies.MAGIC)
    assert unpack(stored) == text


def test_a_report_round_trips_and_is_much_smaller() -> None:
    g = new_game(11)
    log = list(g.events) + random_decisions(g, Rng(5), 60)
    for viewer in (Side.CAESAR, Side.POMPEY, None):
        view = views.build_view(g, log, viewer, since=len(log) // 2)
        for body in (reports.render_html(view), reports.render_text(view)):
            stored = pack(body)
            assert unpack(stored) == body
            assert len(stored) < len(body.encode()) / 4


def test_a_body_stored_in_full_reads_as_it_is() -> None:
    assert unpack("<html>as stored by an earlier pbem</html>") == "<html>as stored by an earlier pbem</html>"


@pytest.mark.parametrize("stored", [b"", b"pbz", b"<html>", b"pbz\x09" + pack("x")[4:], b"pbz\x01garbage"])
def test_unreadable_bytes_are_a_clear_error(stored: bytes) -> None:
    with pytest.raises(DamagedBodyError, match="report body"):
        unpack(stored)


def test_a_flipped_byte_in_the_frame_is_caught() -> None:
    stored = bytearray(pack("Caesar's report " * 50))
    stored[len(stored) // 2] ^= 0x01
    with pytest.raises(DamagedBodyError):
        unpack(bytes(stored))


def test_the_published_dictionaries_are_there() -> None:
    assert bodies.CURRENT in bodies.DICTIONARIES
    for number in bodies.DICTIONARIES:
        assert bodies._dictionary(number) is not None


def test_a_compressor_and_a_decompressor_are_made_once_per_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # loading the dictionary into a new (de)compressor costs more than a text report's (de)compression:
    # one per thread and use, never one shared by two threads (zstandard's may not serve two at once)
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import zstandard

    made: dict[str, list[int]] = {"ZstdDecompressor": [], "ZstdCompressor": []}
    for name in made:
        real = getattr(zstandard, name)

        def counted(*args: object, real: Any = real, name: str = name, **kwargs: object) -> object:
            made[name].append(threading.get_ident())
            return real(*args, **kwargs)

        monkeypatch.setattr(zstandard, name, counted)
    monkeypatch.setattr(bodies, "_MINE", threading.local())  # none made yet in any thread
    texts = [f"report {i}\n" + "Roma, Brundisium, Capua. " * (50 + i) for i in range(40)]
    stored = [pack(t) for t in texts]
    assert [unpack(s) for s in stored] == texts
    me = threading.get_ident()
    assert made == {"ZstdDecompressor": [me], "ZstdCompressor": [me]}  # this thread's, made once for 40 bodies
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(unpack, stored * 5)) == texts * 5
        assert list(pool.map(unpack, pool.map(pack, texts * 5))) == texts * 5
    for ids in made.values():  # one more for each pool thread that packed or read
        assert len(ids) == len(set(ids)) and 2 <= len(ids) <= 5, made

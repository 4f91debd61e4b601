"""Shared fixtures and helpers of the test suite.

* ``play_random(game, rng, until=..., limit=...)``: random legal decisions in a Julius Caesar
  engine position until a condition holds (the one random-play loop of the suite; also a fixture);
* ``home``: a fresh, empty game folder; ``keys``: a key pair per side; ``game``: a game ``g`` made
  in ``home`` with those keys (seed 7, a practice game), as ``(home, keys)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from hypothesis import settings

# Property tests check what holds, never how fast: no per-example deadline (a shared or slow machine
# would make them flaky), the same number of examples everywhere.
settings.register_profile("pbem", deadline=None)
settings.load_profile("pbem")

from imap_server import ImapServer, Inboxes, dovecot, dovecot_binary
from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.envelope import KeyPair, generate_keypair
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.playout import random_choice

Until = Callable[[Game, list[Event]], bool]


def play_random(g: Game, rng: Rng, *, until: Until | None = None, limit: int | None = None,
                log: list[Event] | None = None, first: bool = False,
                each: Callable[[Game, list[Event], int], None] | None = None) -> list[Event]:
    """Make random legal decisions in ``g`` until ``until(g, log)`` holds, the game ends or ``limit``
    decisions were made; returns ``log`` (a new list unless given) with every event appended.

    The deciding side is drawn from the pending decisions (``first``: always the first one), and
    ``each(g, log, n)`` is called after the n-th decision."""
    log = [] if log is None else log
    n = 0
    while not g.is_over() and (limit is None or n < limit) and not (until is not None and until(g, log)):
        pend = g.pending()
        if not pend:
            break
        d = pend[0] if first else pend[rng.below(len(pend))]
        log += g.apply(d.side, random_choice(g, d, rng))
        n += 1
        if each is not None:
            each(g, log, n)
    return log


@pytest.fixture(name="play_random")
def _play_random() -> Callable[..., list[Event]]:
    return play_random


Spy = Callable[..., list[object]]


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """``calls(owner, name, note)``: every later call of ``owner.name`` goes through as before and
    leaves ``note(*args)`` in the list returned (the arguments as a tuple by default), undone after
    the test (or by ``monkeypatch.undo()``)."""

    def spy(owner: object, name: str, note: Callable[..., object] = lambda *args: args) -> list[object]:
        noted: list[object] = []
        real = getattr(owner, name)

        def noting(*args: object, **kw: object) -> object:
            noted.append(note(*args))
            return real(*args, **kw)

        monkeypatch.setattr(owner, name, noting)
        return noted

    return spy


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture()
def keys() -> dict[Side, KeyPair]:
    return {s: generate_keypair() for s in Side}


@pytest.fixture()
def game(home: Path, keys: dict[Side, KeyPair]) -> tuple[Path, dict[Side, KeyPair]]:
    from store_helpers import make_game

    make_game(home, "g", keys=keys)
    return home, keys


@pytest.fixture()
def servers(tmp_path: Path) -> Iterator[tuple[ImapServer, Inboxes, str]]:
    """A club's mail on loopback: Dovecot's IMAP (the club's mailbox) and an aiosmtpd SMTP server whose
    accepted messages land in :class:`Inboxes` (the players' mailboxes); yields (imap, inboxes, "host:port")."""
    if dovecot_binary() is None:
        pytest.skip("no dovecot binary (Debian: apt-get install dovecot-imapd; CI installs it)")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    inboxes = Inboxes()
    smtp = Controller(inboxes, hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        with dovecot(tmp_path / "dovecot", tls=False) as imap:
            yield imap, inboxes, f"127.0.0.1:{port}"
    finally:
        smtp.stop()

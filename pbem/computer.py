"""A computer opponent in a stored game: its key, its settings, and its turns in the moderator's loop.

``pbem new --computer SIDE`` makes an Ed25519 key pair for the bot in the home folder
(``<game>.computer-<side>.key`` / ``.pub``), registers the public key as that side's
credential, and writes ``<game>.computer.json`` (the side, the strength and a secret seed
for the bot's own generator; never the game's seed, which would tell it the dice).

:func:`play_computer_turns` is called by the moderator's loop (``pbem new``, ``inbox``,
``tick``) after steps open: whenever a game's open step waits for its computer side, the
bot reads that side's view from the store (the side's own event log and the position with
the enemy's hidden part removed), signs its submission with its key and hands it to the
same pipeline as a player's email. It is stored, checked and verified (``pbem verify``)
like any other submission.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.credentials import load_private_key, write_keypair
from pbem.envelope import new_envelope, sign_envelope
from pbem.records import computer_settings
from pbem.store import Home, Receipt, StoreError


@dataclass(frozen=True)
class Computer:
    side: str
    strength: float
    seed: int
    iterations: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "strength": self.strength, "seed": self.seed, "iterations": self.iterations}


def config_path(home: Path, game_id: str) -> Path:
    return computer_settings(home, game_id)


def key_prefix(home: Path, game_id: str, side: str) -> Path:
    return home / f"{game_id}.computer-{side}"


def key_file(home: Path, game_id: str, side: str, suffix: str) -> Path:
    """``<game>.computer-<side>.key`` or ``.pub`` (names appended, as ``write_keypair`` does)."""
    prefix = key_prefix(home, game_id, side)
    return prefix.with_name(prefix.name + suffix)


def make_computer_key(home: Path, game_id: str, side: str) -> Path:
    """Write the bot's key pair in the home folder; returns the public key file (for ``pbem new``)."""
    home.mkdir(parents=True, exist_ok=True)
    prefix = key_prefix(home, game_id, side)
    if key_file(home, game_id, side, ".key").exists():
        raise StoreError(f"{key_file(home, game_id, side, '.key')} already exists: a computer key for {game_id} was made before; "
                         "remove it (and the game file) to start again")
    _, public = write_keypair(prefix)
    return public


def remove_computer_key(home: Path, game_id: str, side: str) -> None:
    """Undo :func:`make_computer_key` when the game could not be created."""
    for suffix in (".key", ".pub"):
        key_file(home, game_id, side, suffix).unlink(missing_ok=True)


def save_computer(home: Path, game_id: str, computer: Computer) -> None:
    config_path(home, game_id).write_text(json.dumps(computer.to_json(), indent=2) + "\n", encoding="utf-8")


def new_computer(side: str, strength: float, iterations: int | None = None) -> Computer:
    return Computer(side, strength, secrets.randbelow(2**62), iterations)


def load_computer(home: Path, game_id: str) -> Computer | None:
    p = config_path(home, game_id)
    if not p.exists():
        return None
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
        it = d.get("iterations")
        return Computer(str(d["side"]), float(d["strength"]), int(d["seed"]), int(it) if it is not None else None)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{p} is not a readable computer-player file ({exc}); fix or remove it") from None


def computer_answer(home: Home, game_id: str, computer: Computer) -> tuple[int, str] | None:
    """(step, submission) the bot sends for the open step, or None when the step does not wait for it.
    The game's computer player is given only what its side may see (its events and its view)."""
    side = computer.side
    with home.open(game_id) as st:
        status = st.status()
        if status.over or side not in status.awaiting or side in status.received:
            return None
        adj = st.adjudication()
        log = [ev for _, _, ev in st.events(side)]  # only the events this side may see
        system = st.system
    from pbem.core.game import ComputerPlayers

    if not isinstance(system, ComputerPlayers):
        raise StoreError(f"game {game_id}: {system.title} has no computer player; remove {config_path(home.path, game_id)}")
    step = adj.step().number
    seed = (computer.seed + step * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
    text, _why = system.computer_answer(adj, log, side, strength=computer.strength, iterations=computer.iterations,
                                        seed=seed, clock=time.perf_counter)
    return step, text


def play_computer_turns(home: Home, game_id: str | None = None, *, limit: int = 1000) -> list[tuple[str, Receipt]]:
    """Answer every open step that waits for a computer side (in one game or all); returns the receipts."""
    out: list[tuple[str, Receipt]] = []
    for gid in [game_id] if game_id else home.games():
        computer = load_computer(home.path, gid)
        if computer is None:
            continue
        key = load_private_key(key_file(home.path, gid, computer.side, ".key").read_bytes())
        for _ in range(limit):
            found = computer_answer(home, gid, computer)
            if found is None:
                break
            step, text = found
            sub = sign_envelope(new_envelope(gid, computer.side, step, text, time=home.clock()), key)
            receipt = home.receive(sub.to_json().encode("utf-8"), source="computer", game=gid)
            out.append((gid, receipt))
            if receipt.verdict.value == "rejected":  # never loop on a bad answer
                break
    return out

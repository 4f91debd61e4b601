"""Helpers for the store and CLI tests: games with fresh keys, signed submissions, a game
played with random legal orders, the CLI in a subprocess (optionally killed at a named point
of the pipeline), a dump of a game file without its clock times, and a query on one."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.core.rng import Rng
from pbem.envelope import KeyPair, generate_keypair, new_envelope, sign_envelope
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.steps.session import StepKind
from pbem.store import GameSetup, Home, PlayerSetup, Store, Verdict

REPO = Path(__file__).resolve().parent.parent

# Runs the CLI; argv[1] names a checkpoint of pbem.store or pbem.sealed at which the process dies
# at once (os._exit: no cleanup, like a power cut), "-" for none; argv[2] a file to
# wait for before starting (to make processes race; each announces itself with
# <file>.<pid>.ready once imported), "-" for none.
CLI_SCRIPT = """
import os, sys, time
point, flag = sys.argv[1], sys.argv[2]
if point != "-":
    import pbem.sealed as sealed
    import pbem.store as store
    def crash(name):
        if name == point:
            os._exit(77)
    store._checkpoint = crash
    sealed._checkpoint = crash
from pbem.cli import main
if flag != "-":
    open(f"{flag}.{os.getpid()}.ready", "w").close()
while flag != "-" and not os.path.exists(flag):
    time.sleep(0.002)
main.main(args=sys.argv[3:], prog_name="pbem")
"""


def make_game(home: Path, game_id: str = "g", seed: int = 7, keys: dict[Side, KeyPair] | None = None,
              clock: Any = None, **kw: Any) -> dict[Side, KeyPair]:
    keys = keys or {s: generate_keypair() for s in Side}
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text) for s in Side)
    (Home(home, clock=clock) if clock else Home(home)).create(GameSetup(game_id, players, seed=seed, **kw)).close()
    return keys


def signed(keys: dict[Side, KeyPair], side: Side, step: int, orders: str, n: int = 0, game: str = "g") -> bytes:
    nonce = hashlib.sha256(f"test nonce {game} {side.value} {step} {n} {orders}".encode()).hexdigest()[:32]
    env = new_envelope(game, side.value, step, orders, nonce=nonce, time="2025-03-01T12:00:00Z")
    return sign_envelope(env, keys[side].private_pem).to_json().encode("utf-8")


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PBEM_HOME", None)
    return env


def run_pbem(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pbem ARGS`` as a user runs it (the whole program, its exit included), to the end."""
    return subprocess.run([sys.executable, "-m", "pbem", *args], env=cli_env(), cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def start_cli(args: list[str], *, crash_at: str = "-", wait_for: Path | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI_SCRIPT, crash_at, str(wait_for) if wait_for else "-", *args],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def play(home: Path, gid: str, keys: Any, until: Callable[[Store], bool], limit: int = 120) -> None:
    """Feed random legal signed submissions to game ``gid`` until ``until(store)`` or the limit."""
    rng = Rng(11)
    with Home(home).open(gid) as st:
        for n in range(limit):
            if until(st):
                return
            session = st.adjudication().session
            step = session.step()
            if step.kind is StepKind.OVER:
                return
            for side in step.awaiting:
                if side in session.sealed:
                    continue
                r = st.receive(signed(keys, side, step.number, random_orders(st.adjudication().session, side, rng), n, game=gid))
                assert r.verdict is Verdict.ACCEPTED, r
                if r.resolved:
                    break


def query(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query on a game file, read with the standard library (no store, no recovery)."""
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's content that must not depend on when or how often work ran."""
    con = sqlite3.connect(db)
    try:
        q = {
            "submission": "SELECT id, raw, side, step, digest, verdict, reason, errors, applied_step, orders, related "
                          "FROM submission ORDER BY id",
            "event": "SELECT seq, step, audience, kind, text, data, prev_hash, hash FROM event ORDER BY seq",
            "snapshot": "SELECT step, session, hash, last_event, cause, submission_id FROM snapshot ORDER BY step",
            "outbox": "SELECT step, kind, recipient, format, subject, body, since_event, upto_event FROM outbox "
                      "ORDER BY step, kind, recipient, format",
        }
        return {name: con.execute(sql).fetchall() for name, sql in q.items()}
    finally:
        con.close()

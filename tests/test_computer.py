"""A computer opponent in a stored game: a whole game by email against it, verified by replay."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.core.rng import Rng
from pbem.credentials import load_private_key, write_keypair
from pbem.envelope import new_envelope, sign_envelope
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side
from pbem.store import Home


def _run(home: Path, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_a_year_by_submissions_against_the_computer_is_stored_and_verified(tmp_path: Path) -> None:
    """The first Year and its winter (a whole game takes minutes through the store's reports;
    scenario games that end sooner cannot be verified yet: `pbem verify` rebuilds them without
    their opening events)."""
    home = tmp_path / "home"
    private, public = write_keypair(tmp_path / "ann")
    key = load_private_key(private.read_bytes())
    code, out, err = _run(home, "new", "g1", "--caesar-key", str(public), "--seed", "12",
                          "--computer", "Pompey", "--computer-iterations", "3")
    assert code == 0, out + err
    assert (home / "g1.computer-Pompey.key").exists() and "g1: computer: accepted" in err
    conf = json.loads((home / "g1.computer.json").read_text(encoding="utf-8"))
    assert conf["side"] == "Pompey" and conf["seed"] != 12  # its own seed, not the game's (the dice)
    rng = Rng(5)
    for _ in range(300):
        with Home(home).open("g1") as st:
            status = st.status()
            if status.over or status.year > 705:
                break
            # the computer has answered every step that waits for it as soon as it opened
            assert "Pompey" not in status.awaiting or "Pompey" in status.received
            session = st.adjudication().session
        step = session.step()
        text = random_orders(session, Side.CAESAR, rng)
        sub = sign_envelope(new_envelope("g1", "Caesar", step.number, text), key)
        (tmp_path / "orders.json").write_text(sub.to_json(), encoding="utf-8")
        code, out, err = _run(home, "submit", str(tmp_path / "orders.json"))
        assert code == 0 and out.startswith("accepted"), out + err
    assert status.over or status.year == 706  # the Year played out (or won outright in its winter)
    with Home(home).open("g1") as st:
        subs = st.submissions()
    pompey = [s for s in subs if b'"Pompey"' in s.raw]
    assert len(pompey) > 10 and all(s.verdict == "accepted" for s in pompey)
    code, out, _ = _run(home, "verify", "--game", "g1")
    assert code == 0 and "g1: OK" in out


def test_the_computer_side_cannot_also_have_a_players_credential(tmp_path: Path) -> None:
    _, public = write_keypair(tmp_path / "ann")
    r = CliRunner().invoke(main, ["--home", str(tmp_path / "h"), "new", "g1", "--caesar-key", str(public),
                                  "--pompey-key", str(public), "--computer", "Pompey"])
    assert r.exit_code == 2 and "drop --key Pompey=" in r.output


def test_a_failed_new_leaves_no_computer_key_behind(tmp_path: Path) -> None:
    _, public = write_keypair(tmp_path / "ann")
    home = tmp_path / "h"
    args = ["--home", str(home), "new", "bad id!", "--caesar-key", str(public), "--computer", "Pompey"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and "not a usable game id" in r.output
    assert not list(home.glob("*.computer-*"))

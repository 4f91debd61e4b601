"""Absences across games and the tournament's cap: `away until DATE` sent to one game moves the
deadlines of all the player's running games of the home (same registered address or same key), each
opponent told in its own hash chain; a tournament's `--away-cap` replaces the home's for its games."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

import toygame
from pbem import store as store_mod
from pbem.cli import main
from pbem.club import run_once
from pbem.envelope import KeyPair, generate_keypair, new_envelope, sign_envelope
from pbem.games import register
from pbem.store import GameSetup, Home, PlayerSetup
from pbem.tables import Verdict

register(toygame.SYSTEM)
NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _bid(key: KeyPair, game: str, side: str, text: str, step: int = 1) -> bytes:
    return sign_envelope(new_envelope(game, side, step, text), key.private_pem).to_json().encode()


def _games(home: Path, clock: list[datetime]) -> dict[str, KeyPair]:
    """g1: Ann (North) v Bob; g2: Cid v Ann (South, her address in capitals); g3: Ann's key under another
    address; g4: Cid v Bob, without Ann."""
    keys = {p: generate_keypair() for p in ("Ann", "Bob", "Cid")}
    h = Home(home, clock=lambda: clock[0])

    def make(gid: str, north: tuple[str, str], south: tuple[str, str]) -> None:
        players = tuple(PlayerSetup(side, email, public_key=keys[who].public_text)
                        for side, (who, email) in zip(("North", "South"), (north, south)))
        h.create(GameSetup(gid, players, seed=1, system="toy", deadline=timedelta(hours=72))).close()

    make("g1", ("Ann", "ann@example.org"), ("Bob", "bob@example.org"))
    make("g2", ("Cid", "cid@example.org"), ("Ann", "ANN@Example.org"))
    make("g4", ("Cid", "cid@example.org"), ("Bob", "bob@example.org"))
    # the same key under another address: the same player (a key is one person's)
    players = (PlayerSetup("North", "ann.home@example.org", public_key=keys["Ann"].public_text),
               PlayerSetup("South", "bob@example.org", public_key=generate_keypair().public_text))
    h.create(GameSetup("g3", players, seed=1, system="toy", deadline=timedelta(hours=72))).close()
    return keys


def test_an_absence_moves_the_deadlines_of_all_her_running_games_and_each_opponent_is_told(tmp_path: Path) -> None:
    home = tmp_path / "home"
    clock = [NOW]
    keys = _games(home, clock)
    h = Home(home, clock=lambda: clock[0])
    before = {g: h.open(g).status().deadline for g in ("g1", "g2", "g3", "g4")}
    assert set(before.values()) == {"2025-03-04T12:00:00Z"}
    with h.open("g1") as st:
        r = st.receive(_bid(keys["Ann"], "g1", "North", "away until 2025-03-09"))
        assert r.verdict is Verdict.ACCEPTED and st.status().deadline == "2025-03-09T00:00:00Z"
    for gid, side in (("g2", "South"), ("g3", "North")):
        with h.open(gid) as st:
            assert st.status().deadline == "2025-03-09T00:00:00Z", gid
            told = [e.text for _, _, e in st.events("North" if side == "South" else "South")][-1]
            assert told == (f"{side} is away until 2025-03-09T00:00:00Z (he said so in game g1): the deadlines wait "
                            "for him, within the club's limit")
            assert st.verify().ok
    with h.open("g4") as st:
        assert st.status().deadline == before["g4"] and not [e for _, _, e in st.events("North") if e.kind == "away"]
    # carried once: again (a run catching up after a crash) changes nothing
    assert store_mod.spread_absence(h, "g1", r.submission, "North", "2025-03-09T00:00:00Z") == []
    with h.open("g2") as st:
        assert len([e for _, _, e in st.events("North") if e.kind == "away"]) == 1
    out = CliRunner().invoke(main, ["--home", str(home), "log", "--game", "g2", "--side", "North"])
    assert "South is away until 2025-03-09T00:00:00Z (he said so in game g1)" in out.output


def test_a_run_carries_an_absence_a_crash_kept_from_the_other_games(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    clock = [NOW]
    keys = _games(home, clock)
    h = Home(home, clock=lambda: clock[0])
    with monkeypatch.context() as m:  # killed right after g1 committed the absence
        m.setattr(store_mod, "spread_absence", lambda *a, **k: [])
        with h.open("g1") as st:
            assert st.receive(_bid(keys["Ann"], "g1", "North", "away until 2025-03-09")).verdict is Verdict.ACCEPTED
    assert h.open("g2").status().deadline == "2025-03-04T12:00:00Z"
    lines: list[str] = []
    run_once(h, fetch=None, transport=None, sender="club@example.org", now=NOW, echo=lines.append)
    assert "g2: South is away until 2025-03-09T00:00:00Z (declared in g1)" in lines
    assert h.open("g2").status().deadline == "2025-03-09T00:00:00Z"
    lines.clear()
    run_once(h, fetch=None, transport=None, sender="club@example.org", now=NOW, echo=lines.append)
    assert not [x for x in lines if "away" in x]  # once only


def test_a_tournaments_away_cap_replaces_the_homes_for_its_games(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = CliRunner()

    def pbem(*args: str) -> str:
        r = run.invoke(main, ["--home", str(home), *args])
        assert r.exit_code == 0, r.output
        return r.output

    pbem("config", "--away-cap", "14d")
    r = run.invoke(main, ["--home", str(home), "tournament", "new", "t", "--rounds", "1", "--system", "toy",
                          "--deadline", "24h", "--away-cap", "soon"])
    assert r.exit_code == 1 and "'soon' is not a duration" in r.output
    pbem("tournament", "new", "t", "--rounds", "1", "--system", "toy", "--deadline", "24h", "--away-cap", "2d")
    assert pbem("tournament", "config", "t") == "t: deadline per step 1d; absences may move a deadline by at most 2d\n"
    keys = {p: generate_keypair() for p in ("Ann", "Bob")}
    for p, k in keys.items():
        (tmp_path / f"{p}.pub").write_text(k.public_text)
        pbem("tournament", "add", "t", "--player", p, "--email", f"{p.lower()}@example.org", "--key",
             str(tmp_path / f"{p}.pub"))
    pbem("tournament", "pair", "t")
    h = Home(home)
    with h.open("t-r1-1") as st:
        side = next(p.side for p in st.players() if p.email == "ann@example.org")
        due = store_mod.parse_time(st.status().deadline or "")
        assert st.receive(_bid(keys["Ann"], "t-r1-1", side, "away until 2099-01-01")).verdict is Verdict.ACCEPTED
        assert st.status().deadline == store_mod.format_time(due + timedelta(days=2))  # the tournament's cap
        pbem("tournament", "config", "t", "--away-cap", "5d")
        assert st.status().deadline == store_mod.format_time(due + timedelta(days=5))  # at once, running games too
        out = pbem("tournament", "config", "t", "--away-cap", "home")
        assert "at most the home's, 14d" in out
        assert st.status().deadline == store_mod.format_time(due + timedelta(days=14))
        assert st.verify().ok


def test_a_game_outside_any_tournament_keeps_the_homes_cap(tmp_path: Path) -> None:
    from pbem.settings import away_cap_of

    home = tmp_path / "home"
    assert CliRunner().invoke(main, ["--home", str(home), "tournament", "new", "t", "--rounds", "1", "--system", "toy",
                                     "--away-cap", "3d"]).exit_code == 0
    assert away_cap_of(home, "t-r1-1") is None  # not paired: no such game in the tournament
    assert away_cap_of(home, "other-r1-1") is None and away_cap_of(home, "g1") is None

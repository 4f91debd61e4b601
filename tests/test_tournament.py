"""Club tournaments: a Swiss tournament of the toy game played to its end through the real pipeline
(signed mail into `pbem inbox`, a deadline, `pbem send`), standings exactly as the rules say,
round-robin schedules, Julius Caesar games made by a tournament, and properties of the pairing."""

from __future__ import annotations

import email
import itertools
import json
import mailbox
from email import policy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import toygame
from homecli import cli, ok
from pbem.cli import main
from pbem.envelope import generate_keypair, new_envelope, password_submission, sign_envelope
from pbem.games import register
from pbem.store import Home
from pbem.tournament import (
    PairingRecord,
    Tournament,
    assign_sides,
    compute_standings,
    knockout_pairs,
    round_robin,
    swiss_pairing,
)

register(toygame.SYSTEM)
PLAYERS = ("Ann", "Bob", "Cid", "Dan")


class Club:
    """Four players of a toy-game tournament who send their bids by mail."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.home, self.box = tmp, tmp / "home", mailbox.Maildir(tmp / "mail")
        self.keys = {p: generate_keypair() for p in PLAYERS[:3]}
        for p, k in self.keys.items():
            (tmp / f"{p}.pub").write_text(k.public_text + "\n")
        self.n = 0

    def side_of(self, game: str, player: str) -> str:
        with Home(self.home).open(game) as s:
            return next(p.side for p in s.players() if p.email == f"{player.lower()}@example.org")

    def bid(self, game: str, player: str, amount: int) -> None:
        side = self.side_of(game, player)
        env = new_envelope(game, side, 1, f"bid {amount}")
        sub = password_submission(env, "dan's secret") if player == "Dan" else \
            sign_envelope(env, self.keys[player].private_pem)
        self.n += 1
        self.box.add(f"From: {player.lower()}@example.org\nTo: club@example.org\nSubject: my bid\n"
                     f"Message-ID: <{self.n}@example.org>\n\n{sub.to_armor()}".encode())


def test_a_swiss_tournament_of_four_played_to_its_end(tmp_path: Path) -> None:
    c = Club(tmp_path)
    home = c.home
    out = ok(home, "tournament", "new", "club", "--rounds", "2", "--deadline", "24h", "--system", "toy",
             "-o", "rounds=1", "-o", "budget=5", "--seed", "7")
    assert "created tournament club" in out
    assert "Tournament club (swiss, Sealed bids (a test game), 2 rounds, 0 players): not paired yet" in out
    for p in PLAYERS[:3]:
        ok(home, "tournament", "add", "club", "--player", p, "--email", f"{p.lower()}@example.org",
           "--key", str(tmp_path / f"{p}.pub"))
    assert "Dan joined club (4 players)" in ok(home, "tournament", "add", "club", "--player", "Dan", "--email",
                                                "dan@example.org", "--password", "dan's secret")
    r = cli(home, "tournament", "add", "club", "--player", "ann", "--email", "x@example.org", "--password", "p")
    assert r.exit_code == 1 and "Ann is already a player of club" in r.output

    # round 1: everyone on 0 points, by name: Ann v Bob, Cid v Dan; sides alternate by table
    out = ok(home, "tournament", "pair", "club")
    assert "club-r1-1: Ann (North) v Bob (South)" in out and "club-r1-2: Dan (North) v Cid (South)" in out
    assert "club-r1-1" in ok(home, "games") and "tournaments" not in ok(home, "games")
    r = cli(home, "tournament", "pair", "club")
    assert r.exit_code == 1 and "round 1 is not complete: 2 game(s) still running (club-r1-1, club-r1-2)" in r.output

    c.bid("club-r1-1", "Ann", 3)
    c.bid("club-r1-1", "Bob", 1)
    c.bid("club-r1-2", "Cid", 2)
    c.bid("club-r1-2", "Dan", 2)
    out = ok(home, "inbox", "--maildir", str(tmp_path / "mail"))
    assert out.count(": accepted") == 4, out
    st1 = json.loads(ok(home, "tournament", "standings", "club", "--format", "json"))
    table = [(r["rank"], r["player"], r["points"], r["buchholz"], r["margin"]) for r in st1["standings"]]
    assert table == [(1, "Ann", 1, 0, 1), (2, "Cid", 0.5, 0.5, 0), (2, "Dan", 0.5, 0.5, 0), (4, "Bob", 0, 1, -1)]

    # round 2: by score, no rematch: Ann v Cid, Dan v Bob; whoever had South takes North now
    out = ok(home, "tournament", "pair", "club")
    assert "round 1 complete; standings queued for every player" in out
    assert "club-r2-1: Cid (North) v Ann (South)" in out and "club-r2-2: Bob (North) v Dan (South)" in out
    c.bid("club-r2-1", "Ann", 4)
    c.bid("club-r2-1", "Cid", 0)
    c.bid("club-r2-2", "Bob", 1)  # Dan sends nothing: at the deadline his bid is 0
    ok(home, "inbox", "--maildir", str(tmp_path / "mail"))
    ok(home, "tick", "--now", "2999-01-01T00:00:00Z")
    text = ok(home, "tournament", "standings", "club")
    assert "Tournament club (swiss, Sealed bids (a test game), 2 rounds, 4 players): over" in text
    assert "Tie-breaks, in order: Buchholz (the sum of the opponents' points); then VP margin" in text
    final = json.loads(ok(home, "tournament", "standings", "club", "--format", "json"))
    table = [(r["rank"], r["player"], r["points"], r["buchholz"], r["margin"], r["wins"], r["draws"], r["losses"])
             for r in final["standings"]]
    assert table == [(1, "Ann", 2, 1.5, 2, 2, 0, 0), (2, "Bob", 1, 2.5, 0, 1, 0, 1),
                     (3, "Cid", 0.5, 2.5, -1, 0, 1, 1), (4, "Dan", 0.5, 1.5, -1, 0, 1, 1)]
    assert final["over"] is True
    assert [(p["game"], p["winner"]) for p in final["pairings"]] == [
        ("club-r1-1", "Ann"), ("club-r1-2", None), ("club-r2-1", "Ann"), ("club-r2-2", "Bob")]
    html = ok(home, "tournament", "standings", "club", "--format", "html")
    assert "<td>Ann</td><td>2</td><td>1½</td><td>+2</td>" in html
    r = cli(home, "tournament", "pair", "club")
    assert r.exit_code == 1 and "tournament club is over: all 2 rounds are played" in r.output

    # the mail: each player's pairings and the standings, only to him; the games' reports as usual
    with Tournament(Home(home), "club") as t:
        assert t.advance() == ["club: round 2 complete; final standings queued for every player"]
        assert t.advance() == []  # once only
    ok(home, "send", "--from", "club@example.org", "--dry-run", str(tmp_path / "out"))
    mails: dict[str, list[Any]] = {}
    for f in sorted((tmp_path / "out").rglob("*.eml")):
        m = email.message_from_bytes(f.read_bytes(), policy=policy.default)
        mails.setdefault(m["To"], []).append(m)
    subjects = sorted(m["Subject"] for m in mails["ann@example.org"] if m["Subject"].startswith("[club]"))
    assert subjects == ["[club] final standings", "[club] round 1: you play North against Bob (club-r1-1)",
                        "[club] round 2: you play South against Cid (club-r2-1)", "[club] standings after round 1"]
    body = next(m for m in mails["dan@example.org"] if "round 1: you play" in m["Subject"]).get_content()
    assert "Dan, you play North against Cid (South) in game club-r1-2 (Sealed bids (a test game))" in body
    assert "Each step has a deadline of 1d." in body
    assert all(m["To"] == who for who, ms in mails.items() for m in ms)
    assert any("club-r1-1" in m["Subject"] for m in mails["bob@example.org"])  # the game's own reports
    assert all("club-r1-1" not in m["Subject"] for m in mails["cid@example.org"])
    for g in ("club-r1-1", "club-r1-2", "club-r2-1", "club-r2-2"):
        assert "OK" in ok(home, "verify", "--game", g)


def test_odd_count_byes_and_julius_caesar_games(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = cli(home, "tournament", "new", "ko", "--format", "elimination", "--rounds", "2")
    assert r.exit_code == 2 and "'elimination' is not one of 'swiss', 'round-robin', 'knockout'" in r.output
    r = cli(home, "tournament", "new", "x", "--format", "swiss")
    assert r.exit_code == 1 and "needs its number of rounds: --rounds N" in r.output
    r = cli(home, "tournament", "new", "rome", "--rounds", "3")
    assert r.exit_code == 0 and "warning: no deadline (no --deadline and no home default" in r.output
    r = cli(home, "tournament", "new", "rome", "--rounds", "3")
    assert r.exit_code == 1 and "tournament 'rome' already exists" in r.output
    (home / "tournaments" / "rome.db").unlink()
    ok(home, "tournament", "new", "rome", "--rounds", "3", "--deadline", "72h")
    r = cli(home, "tournament", "pair", "roma")
    assert r.exit_code == 1 and "no tournament 'roma' in" in r.output and "(tournaments there: rome)" in r.output
    for p in ("Marcus", "Gnaeus", "Titus"):
        ok(home, "tournament", "add", "rome", "--player", p, "--email", f"{p.lower()}@example.org",
           "--password", f"{p} pw")
    out = ok(home, "tournament", "pair", "rome")
    assert "rome-r1-1: Gnaeus (Caesar) v Marcus (Pompey)" in out and "Titus has the bye (a win)" in out
    status = json.loads(ok(home, "status", "--game", "rome-r1-1", "--json"))[0]
    assert status["step"] == 1 and status["kind"] == "year-start" and status["over"] is False
    with Home(home).open("rome-r1-1") as s:
        assert s.game().system == "caesar" and s.game().deadline_seconds == 72 * 3600
        assert {p.side: p.email for p in s.players()} == {"Caesar": "gnaeus@example.org",
                                                          "Pompey": "marcus@example.org"}
    r = cli(home, "tournament", "add", "rome", "--player", "Late", "--email", "l@example.org", "--password", "x")
    assert r.exit_code == 1 and "has started" in r.output
    st = json.loads(ok(home, "tournament", "standings", "rome", "--format", "json"))
    assert [(s["player"], s["points"], s["byes"], s["running"]) for s in st["standings"]] == [
        ("Titus", 1, 1, 0), ("Gnaeus", 0, 0, 1), ("Marcus", 0, 0, 1)]
    with Tournament(Home(home), "rome") as t:
        kinds = sorted((m.recipient, m.kind) for m in t.mail())
    assert kinds == [("Gnaeus", "pairing"), ("Marcus", "pairing"), ("Titus", "bye")]


def test_round_robin_everyone_meets_everyone_once(tmp_path: Path) -> None:
    for n in range(2, 9):
        names = [f"p{i}" for i in range(n)]
        rounds = round_robin(names)
        assert len(rounds) == (n - 1 if n % 2 == 0 else n)
        met = [frozenset(p) for r in rounds for p in r if p[1] is not None]
        assert len(met) == len(set(met)) == n * (n - 1) // 2
        for r in rounds:
            seen = [x for p in r for x in p if x is not None]
            assert len(seen) == len(set(seen)) == n  # each once: in a game or with the bye
            assert sum(p[1] is None for p in r) == n % 2
    home = tmp_path / "home"
    ok(home, "tournament", "new", "league", "--format", "round-robin", "--system", "toy", "-o", "rounds=1")
    keys = {p: generate_keypair() for p in PLAYERS}
    for p in PLAYERS:
        (tmp_path / f"{p}.pub").write_text(keys[p].public_text)
        ok(home, "tournament", "add", "league", "--player", p, "--email", f"{p.lower()}@example.org",
           "--key", str(tmp_path / f"{p}.pub"))
    assert "3 rounds, 4 players" in ok(home, "tournament", "standings", "league")
    pairs = set()
    for rnd in (1, 2, 3):
        ok(home, "tournament", "pair", "league")
        with Tournament(Home(home), "league") as t:
            prs = t.pairings(rnd)
        for p in prs:
            assert p.game is not None
            pairs.add(frozenset((p.first, p.second)))
            # finish by hand: both bid 0, a draw
            for side in toygame.SIDES:
                with Home(home).open(p.game) as s:
                    who = p.first if side == "North" else p.second
                    assert who is not None
                    raw = sign_envelope(new_envelope(p.game, side, 1, "bid 0"), keys[who].private_pem).to_json().encode()
                    assert s.receive(raw).verdict.value == "accepted"
    assert len(pairs) == 6
    st = json.loads(ok(home, "tournament", "standings", "league", "--format", "json"))
    assert st["over"] and all(s["points"] == 1.5 and s["draws"] == 3 for s in st["standings"])


def test_standings_tie_breaks_in_order() -> None:
    def game(r: int, a: str, b: str, winner: str | None, sa: int, sb: int) -> PairingRecord:
        return PairingRecord(round=r, table=1, first=a, second=b, game=f"g{r}{a}", created=True, over=True,
                             winner=winner, score_first=sa, score_second=sb)

    rows = compute_standings(["A", "B", "C", "D", "E", "F"], [
        game(1, "A", "B", "A", 3, 1), game(1, "C", "D", "C", 5, 0), game(1, "E", "F", None, 2, 2),
        game(2, "A", "C", "C", 1, 2), game(2, "B", "E", "B", 4, 0), game(2, "D", "F", "D", 1, 0),
    ])
    got = [(r.player, r.points, r.buchholz, r.margin, r.rank) for r in rows]
    # points; then Buchholz (A: B 1 + C 2 = 3; D: C 2 + F 1/2; B: A 1 + E 1/2); then the margin (F -1, E -4)
    assert got == [("C", 2, 2, 6, 1), ("A", 1, 3, 1, 2), ("D", 1, 2.5, -4, 3), ("B", 1, 1.5, 2, 4),
                   ("F", 0.5, 1.5, -1, 5), ("E", 0.5, 1.5, -4, 6)]
    # equal points and Buchholz: the VP margin decides
    rows = compute_standings(["P", "Q", "R", "S"], [game(1, "P", "R", "P", 9, 1), game(1, "Q", "S", "Q", 2, 1)])
    assert [(r.player, r.margin, r.rank) for r in rows] == [("P", 8, 1), ("Q", 1, 2), ("S", -1, 3), ("R", -8, 4)]


def test_sides_alternate_where_possible() -> None:
    assert assign_sides("a", "b", {"a": [0], "b": [1]}, 1) == ("b", "a")
    assert assign_sides("a", "b", {"a": [1], "b": [0]}, 2) == ("a", "b")
    assert assign_sides("a", "b", {"a": [0, 1], "b": [1, 0]}, 1) == ("a", "b")  # b had the first side last
    assert assign_sides("a", "b", {"a": [0, 0], "b": [0]}, 1) == ("b", "a")  # fewer first sides
    assert assign_sides("a", "b", {}, 1) == ("a", "b") and assign_sides("a", "b", {}, 2) == ("b", "a")


# ---- the Swiss pairing's invariants ---------------------------------------------------------------


def _perfect_without_rematch(players: list[str], played: set[frozenset[str]]) -> bool:
    if not players:
        return True
    a = players[0]
    return any(frozenset((a, b)) not in played and _perfect_without_rematch(
        [p for p in players[1:] if p != b], played) for b in players[1:])


def _possible(players: list[str], played: set[frozenset[str]]) -> bool:
    if len(players) % 2 == 0:
        return _perfect_without_rematch(players, played)
    return any(_perfect_without_rematch([p for p in players if p != bye], played) for bye in players)


@st.composite
def histories(draw: Any) -> tuple[list[str], set[frozenset[str]], dict[str, int]]:
    n = draw(st.integers(2, 9))
    players = [f"p{i}" for i in range(n)]
    order = draw(st.permutations(players))
    pairs = list(itertools.combinations(players, 2))
    played = {frozenset(p) for p in draw(st.lists(st.sampled_from(pairs), max_size=3 * n))}
    byes = {p: draw(st.integers(0, 2)) for p in players}
    return list(order), played, byes


@settings(max_examples=300, deadline=None)
@given(histories())
def test_swiss_pairing_never_repeats_while_it_can_and_pairs_each_once(
        case: tuple[list[str], set[frozenset[str]], dict[str, int]]) -> None:
    order, played, byes = case
    pairs, bye = swiss_pairing(order, played, byes)
    seen = [p for pair in pairs for p in pair] + ([bye] if bye is not None else [])
    assert sorted(seen) == sorted(order)  # every player exactly once a round
    assert (bye is None) == (len(order) % 2 == 0)
    if _possible(order, played):
        assert not any(frozenset(p) in played for p in pairs), (pairs, played)
    if bye is not None and _possible(order, played):
        # the bye goes to someone with the fewest byes whenever that still allows no rematch
        fewest = min(byes.values())
        if any(_perfect_without_rematch([p for p in order if p != c], played) for c in order
               if byes[c] == fewest):
            assert byes[bye] == fewest
    for a, b in pairs:  # the higher-placed player is named first
        assert order.index(a) < order.index(b)


def test_the_readme_club_tournament_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line of README's "Running a club tournament" works, in order, in an empty folder, and the
    tournament it runs ends as its comments say."""
    import os
    import shlex
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Running a club tournament"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[: block.index("```")].replace("\\\n", " ")
    lines = [ln.split("  #")[0].strip() for ln in block.splitlines() if ln.strip()]
    assert len(lines) >= 20
    # `pbem` is this pbem, except that a report mail's map is not drawn as a PNG (about a second a mail,
    # and a dry run writes every mail again; the PNG is tested in test_mail_side.py). A line that is one
    # pbem command runs in this process (its argv as the shell would give it); the others in the shell.
    monkeypatch.setattr("pbem.transport.outbox.mail_map", lambda html, message_id: (html, None))
    monkeypatch.chdir(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pbem").write_text(f"#!{sys.executable}\nimport pbem.transport.outbox as outbox\n"
                                  "outbox.mail_map = lambda html, message_id: (html, None)\n"
                                  "from pbem.cli import main\nmain()\n")
    (bin_dir / "pbem").chmod(0o755)
    env = dict(os.environ, PBEM_HOME=str(tmp_path / "home"), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for line in lines:
        if line.startswith("pbem ") and not set("|&;<>$`") & set(line):
            r = CliRunner().invoke(main, shlex.split(line)[1:], env={"PBEM_HOME": str(tmp_path / "home")},
                                   catch_exceptions=False)
            assert r.exit_code == 0, f"{line}\n{r.output}"
            continue
        p = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"{line}\n{p.stdout}\n{p.stderr}"
    with Tournament(Home(tmp_path / "home"), "spring") as t:
        assert [e.name for e in t.entrants()] == ["Ann", "Bob", "Cid", "Dan"]
        assert t.record().away_cap_seconds == 10 * 86400  # --away-cap 10d
        cid, dan = t.entrants()[2:]  # joined by mail: Cid's signed block carried his key, Dan a password
        assert cid.public_key == (tmp_path / "cid.pub").read_text().strip() and dan.password_hash
        assert [(p.game, p.first, p.second) for p in t.pairings()] == [  # as the README's comments say
            ("spring-r1-1", "Ann", "Bob"), ("spring-r1-2", "Dan", "Cid"),
            ("spring-r2-1", "Ann", "Dan"), ("spring-r2-2", "Cid", "Bob")]
        assert [p.winner for p in t.pairings()] == ["Ann", "Dan", "Ann", "Cid"]
        assert "Dan resigned" not in t.pairings()[2].result and "Pompey resigned" in t.pairings()[2].result
        assert "Pompey forfeited" in t.pairings()[3].result
        table = [(s.player, s.points, s.buchholz) for s in t.standings()]
        assert table == [("Ann", 2, 1), ("Dan", 1, 3), ("Cid", 1, 1), ("Bob", 0, 3)]
        assert t.finished() and all(m.sent is None for m in t.mail())  # a dry run marks nothing sent
    for g in ("spring-r1-1", "spring-r1-2", "spring-r2-1", "spring-r2-2"):
        with Home(tmp_path / "home").open(g) as s:
            assert s.game().system == "caesar" and s.status().over
            assert s.game().deadline_seconds == 72 * 3600  # the home's default deadline
    sent = [email.message_from_bytes(p.read_bytes(), policy=policy.default) for p in
            (tmp_path / "outgoing").rglob("*.eml")]
    for n in (1, 2):
        pairing = [m for m in sent if m["Subject"].startswith(f"[spring] round {n}: you play")]
        assert sorted(m["To"] for m in pairing) == ["ann@example.org", "bob@example.org", "cid@example.org",
                                                     "dan@example.org"]
    assert sum(1 for m in sent if "spring-r1-1" in m["Subject"] and "step 1" in m["Subject"]) >= 2  # the reports
    assert sorted(m["To"] for m in sent if m["Subject"] == "[spring] final standings") == [
        "ann@example.org", "bob@example.org", "cid@example.org", "dan@example.org"]
    # the cron line that follows (a real mailbox and mail server) is a valid command line
    cron = section[section.index("```\n*/5 * * * *") + 4:]
    cron = cron[: cron.index("```")].replace("\\\n", " ")
    words = shlex.split(cron)
    words = words[words.index("pbem") + 1:]
    at = words.index("run")
    parent = main.make_context("pbem", words[: at + 1])
    assert parent.params["home"] == Path("~/club")
    run = main.commands["run"].make_context("run", words[at + 1:], parent=parent)
    assert run.params["imap_url"] == "imaps://club@mail.example.org/INBOX" and run.params["starttls"]


class Killed(BaseException):
    """The process dies here."""


def test_a_pairing_killed_half_way_is_finished_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Home(tmp_path / "home")
    t = Tournament.create(home, "cup", fmt="swiss", rounds=2, system="toy", options={"rounds": "1"})
    for p in PLAYERS:
        t.add_player(p, f"{p.lower()}@example.org", password_hash=f"scrypt$fake${p}")
    real_create = Home.create
    made: list[str] = []

    def create_then_die(self: Home, setup: Any) -> Any:
        if made:
            raise Killed()  # the second game is never made
        made.append(setup.game_id)
        return real_create(self, setup)

    with monkeypatch.context() as m:
        m.setattr(Home, "create", create_then_die)
        with pytest.raises(Killed):
            t.pair()
    assert made == ["cup-r1-1"] and home.games() == ["cup-r1-1"]
    assert [p.created for p in t.pairings(1)] == [True, False]  # the first game and its mails are in
    assert sorted(m.recipient for m in t.mail()) == ["Ann", "Bob"]
    # killed between making the second game and recording it
    with monkeypatch.context() as m:
        m.setattr(Tournament, "_mail_pairing", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            t.pair()
    assert home.games() == ["cup-r1-1", "cup-r1-2"] and [p.created for p in t.pairings(1)] == [True, False]
    # the next pair (or pbem run) finishes the round with the game that is there; nothing made or queued twice
    assert t.pair() == ["cup-r1-2: Dan (North) v Cid (South)"]
    assert home.games() == ["cup-r1-1", "cup-r1-2"] and [p.created for p in t.pairings(1)] == [True, True]
    assert sorted(m.recipient for m in t.mail()) == list(PLAYERS)  # each pairing mail once
    with pytest.raises(Exception, match="round 1 is not complete"):
        t.pair()
    t.close()


def test_a_knockout_seeded_by_joining_order_to_its_final(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    names = ["A", "B", "C", "D", "E", "F"]
    keys = {p: generate_keypair() for p in names}
    t = Tournament.create(home, "ko", fmt="knockout", rounds=None, system="toy", options={"rounds": "1"})
    for p in names:
        t.add_player(p, f"{p.lower()}@example.org", public_key=keys[p].public_text)
    assert t.total_rounds() == 3

    def play(game: str, bids: dict[str, int]) -> None:
        with home.open(game) as s:
            for pl in s.players():
                who = pl.email[0].upper()
                raw = sign_envelope(new_envelope(game, pl.side, 1, f"bid {bids[who]}"), keys[who].private_pem)
                assert s.receive(raw.to_json().encode()).verdict.value == "accepted"

    # round 1 of a bracket of 8: seeds 1 and 2 (A, B) have byes; 4 v 5 (D v E) and 3 v 6 (C v F)
    t.pair()
    assert [(p.table, {p.first, p.second}, p.game) for p in t.pairings(1)] == [
        (1, {"A", None}, None), (2, {"D", "E"}, "ko-r1-2"), (3, {"B", None}, None), (4, {"C", "F"}, "ko-r1-4")]
    play("ko-r1-2", {"D": 0, "E": 0})  # a draw: D, the higher seed, goes through
    play("ko-r1-4", {"C": 0, "F": 1})
    t.pair()  # the winners of tables 1 and 2 meet, then of 3 and 4
    assert [{p.first, p.second} for p in t.pairings(2)] == [{"A", "D"}, {"B", "F"}]
    play("ko-r2-1", {"A": 0, "D": 2})
    play("ko-r2-2", {"B": 3, "F": 1})
    t.pair()
    assert [{p.first, p.second} for p in t.pairings(3)] == [{"D", "B"}]
    play("ko-r3-1", {"B": 2, "D": 1})
    rows = t.standings()
    # first the rounds gone through (B 3, D 2, A and F 1), then points (E's draw), then Buchholz (F met B)
    assert [(r.player, r.through, r.points) for r in rows] == [
        ("B", 3, 3), ("D", 2, 1.5), ("F", 1, 1), ("A", 1, 1), ("E", 0, 0.5), ("C", 0, 0)]
    assert t.finished() and "Knockout: ranked first by the rounds each player went through" in t.standings_text()
    with pytest.raises(Exception, match="is over: all 3 rounds are played"):
        t.pair()
    t.close()
    assert knockout_pairs(["p1", "p2", "p3", "p4", "p5"], None) == [
        ("p1", None), ("p4", "p5"), ("p2", None), ("p3", None)]

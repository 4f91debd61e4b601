"""A club season of Julius Caesar, end to end by mail (issue 14, "Done means").

Five players (so a bye each round), a two-round Swiss tournament made with the home's default
deadline. `pbem run` (the command, as cron runs it) reads the club's IMAP mailbox (a real Dovecot on
loopback) and sends through SMTP (aiosmtpd on loopback). The players know only what their mail tells
them: their game and side from the pairing mail, the step from their last report mail; their orders
are random but legal, chosen by the library's random player from their side's view, and mailed back
(signed with a key, or a plain reply with a password). On the way: a resignation, an absence (`away
until ...`: the deadline moves, within the cap, and the opponent is told), a replacement (`pbem
replace`: the old password is refused, the substitute plays on), and a late player defaulted at a
deadline by the run's tick and then forfeited by the moderator. At the end the standings are what
the published rules give for the results the games recorded, round 2 has no rematch and balanced
sides, every game verifies, and every player's mail holds only his own side's reports.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from imap_server import PASSWORD, ImapServer, Inboxes
from pbem.cli import main
from pbem.core.rng import Rng
from pbem.envelope import KeyPair, generate_keypair, new_envelope, sign_envelope
from pbem.games.caesar.ai.match import observe_session
from pbem.games.caesar.ai.players import RandomPlayer
from pbem.games.caesar.rules.board import Side
from pbem.store import Home, parse_time
from pbem.transport.imap import INGESTED

CLUB = "club@example.org"
T = "spring"  # the tournament


@dataclass
class Player:
    name: str
    email: str
    key: KeyPair | None = None  # else a password
    password: str = ""


def report_subject(subject: str, game: str) -> int | None:
    """The step a report mail of ``game`` asks about (None: not a report mail of that game)."""
    m = re.match(rf"\[{re.escape(game)}\] step (\d+): (?!your submission)", subject)
    return int(m.group(1)) if m else None


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


class Club:
    """The moderator's folder and commands, the mail servers, and the players at their mail programs."""

    def __init__(self, tmp: Path, imap: ImapServer, inboxes: Inboxes, smtp: str) -> None:
        self.tmp, self.home, self.imap, self.inboxes, self.smtp = tmp, tmp / "home", imap, inboxes, smtp
        self.n = 0
        self.seats: dict[tuple[str, str], Player] = {}  # (game, side) -> who holds it now

    # -- the moderator
    def cli(self, *args: str) -> Result:
        return CliRunner().invoke(main, ["--home", str(self.home), *args], catch_exceptions=False,
                                  env={"PBEM_IMAP_PASSWORD": PASSWORD})

    def ok(self, *args: str) -> str:
        r = self.cli(*args)
        assert r.exit_code == 0, r.output
        return r.output

    def run(self, *extra: str) -> str:
        """`pbem run` as cron runs it: the club's IMAP mailbox in, the SMTP server out."""
        return self.ok("run", "--imap", self.imap.url(), "--smtp", self.smtp, "--from", CLUB, *extra)

    def status(self, game: str) -> dict[str, Any]:
        (s,) = json.loads(self.ok("status", "--game", game, "--json"))
        assert isinstance(s, dict)
        return s

    # -- the players
    def mail_of(self, p: Player) -> list[EmailMessage]:
        return self.inboxes.got.get(p.email, [])

    def seat(self, p: Player, round_number: int) -> tuple[str, str, str] | None:
        """(game, side, opponent) from the player's pairing mail for the round; None: his mail says he has the bye."""
        subjects = [m["Subject"] for m in self.mail_of(p) if m["Subject"].startswith(f"[{T}] round {round_number}: ")]
        assert len(subjects) == 1, (p.name, subjects)
        if subjects[0] == f"[{T}] round {round_number}: you have the bye":
            return None
        m = re.fullmatch(rf"\[{T}\] round {round_number}: you play (\w+) against (\w+) \((\S+)\)", subjects[0])
        assert m is not None, subjects
        side, opponent, game = m.groups()
        self.seats[(game, side)] = p
        return game, side, opponent

    def last_report(self, p: Player, game: str) -> tuple[int, EmailMessage]:
        """The step the player's latest report mail of ``game`` asks about, and that mail."""
        reports = [(n, m) for m in self.mail_of(p) if (n := report_subject(m["Subject"], game)) is not None]
        assert reports, f"{p.name} has no report mail of {game}"
        return reports[-1]

    def post(self, p: Player, game: str, side: str, text: str, *, step: int | None = None, name_side: bool = False) -> None:
        """The player answers his last report mail of ``game``: a signed block, or a plain reply with his
        password (``name_side``: with a line naming his side, for a From address the game does not know)."""
        n, report = self.last_report(p, game)
        step = n if step is None else step
        self.n += 1
        if p.key is not None:
            body = sign_envelope(new_envelope(game, side, step, text), p.key.private_pem).to_armor()
        else:
            body = (f"side: {side}\n" if name_side else "") + f"{text.rstrip()}\npassword: {p.password}\n\n-- \n{p.name}\n"
        raw = (f"From: {p.email}\r\nTo: {CLUB}\r\nSubject: Re: {report['Subject']}\r\nDate: {formatdate()}\r\n"
               f"Message-ID: <{self.n}.{p.name.lower()}@example.org>\r\nIn-Reply-To: {report['Message-ID']}\r\n\r\n"
               + body.replace("\r\n", "\n").replace("\n", "\r\n"))
        c: Any = self.imap.client()
        try:
            c.append("INBOX", raw.encode())
        finally:
            c.logout()

    def orders(self, game: str, side: str, seed: int) -> str:
        """Random legal orders for the open step, chosen by the library's random player from what
        ``side`` may see (the events of its view and the position with the enemy's hidden part removed)."""
        with Home(self.home).open(game) as st:
            adj = st.adjudication()
            log = [ev for _, _, ev in st.events(side)]
        obs = observe_session(adj.session, log, Side(side))  # type: ignore[attr-defined]
        return RandomPlayer().answer(obs, Rng(seed)).text

    def play(self, games: list[str], steps: int, *, skip: tuple[str, str] | None = None) -> None:
        """``steps`` times: every side the open step of a running game waits for answers the step its
        last report mail asks about with random legal orders; then one run. ``skip``: a (game, side) that
        does not answer."""
        for _ in range(steps):
            for game in games:
                s = self.status(game)
                if s["over"]:
                    continue
                for side in s["awaiting"]:
                    if side in s["received"] or (game, side) == skip:
                        continue
                    p = self.seats[(game, side)]
                    step, _mail = self.last_report(p, game)
                    assert step == s["step"], f"{p.name}'s last report of {game} is for step {step}, not {s['step']}"
                    seed = int(hashlib.sha256(f"{game}/{side}/{step}".encode()).hexdigest()[:12], 16)
                    self.post(p, game, side, self.orders(game, side, seed))
            out = self.run()
            assert "rejected" not in out, out


def points(text: str) -> float:
    """Points as the standings write them: 1, ½, 1½."""
    whole = text.removesuffix("½")
    return float(whole or 0) + (0.5 if whole != text else 0.0)


def seated(club: Club, players: list[Player], round_number: int) -> tuple[dict[str, tuple[str, str, str]], list[str]]:
    """Every player's (game, side, opponent) in the round, from his pairing mail; and who has the bye."""
    seats: dict[str, tuple[str, str, str]] = {}
    byes: list[str] = []
    for p in players:
        seat = club.seat(p, round_number)
        if seat is None:
            byes.append(p.name)
        else:
            seats[p.name] = seat
    return seats, byes


def expected_standings(players: list[str], results: list[dict[str, Any]]) -> list[tuple[str, float, float, int]]:
    """The published rules, applied to the recorded results: win 1, draw 1/2, bye 1; ranked by points,
    then Buchholz (the opponents' points), then the VP margin; (player, points, Buchholz, margin)."""
    points = dict.fromkeys(players, 0.0)
    margin = dict.fromkeys(players, 0)
    met: dict[str, list[str]] = {p: [] for p in players}
    for r in results:
        a, b = r["first"], r["second"]
        if b is None:
            points[a] += 1
            continue
        met[a].append(b)
        met[b].append(a)
        margin[a] += r["score"][0] - r["score"][1]
        margin[b] += r["score"][1] - r["score"][0]
        for x in (a, b):
            points[x] += 1.0 if r["winner"] == x else 0.5 if r["winner"] is None else 0.0
    buchholz = {p: sum(points[o] for o in met[p]) for p in players}
    return sorted(((p, points[p], buchholz[p], margin[p]) for p in players), key=lambda t: (-t[1], -t[2], -t[3], t[0]))


def test_a_club_season_by_imap_and_smtp(servers: tuple[ImapServer, Inboxes, str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # the map as a PNG in the mail is tested in test_mail_side.py; drawing it takes about a second a mail
    monkeypatch.setattr("pbem.transport.outbox.mail_map", lambda html, mid: (html, None))
    imap, inboxes, smtp = servers
    club = Club(tmp_path, imap, inboxes, smtp)
    players = [Player("Ann", "ann@example.org", generate_keypair()), Player("Bob", "bob@example.org", generate_keypair()),
               Player("Cid", "cid@example.org", generate_keypair()),
               Player("Dan", "dan@example.org", password="open sesame"),
               Player("Fay", "fay@example.org", generate_keypair())]  # five: a bye each round
    eve = Player("Eve", "eve@example.org", generate_keypair())  # Dan's substitute
    by_name = {p.name: p for p in players}

    # The moderator sets the home's default deadline; the tournament (and so each game) takes it.
    club.ok("config", "--deadline", "72h")
    r = club.cli("tournament", "new", T, "--rounds", "2")
    assert r.exit_code == 0 and "warning" not in r.output, r.output
    for p in players + [eve]:
        if p.key is not None:
            (tmp_path / f"{p.name}.pub").write_text(p.key.public_text)
    for p in players:
        cred = ["--key", str(tmp_path / f"{p.name}.pub")] if p.key else ["--password", p.password]
        club.ok("tournament", "add", T, "--player", p.name, "--email", p.email, *cred)
    club.ok("tournament", "pair", T)
    paired_at = datetime.now(UTC)
    out = club.run()
    assert out.strip().endswith("sent: 9 message(s)"), out  # 4 pairings, a bye, each side's first report

    # ---- round 1: everyone learns his game and side from his pairing mail
    seats1, byes1 = seated(club, players, 1)
    games1 = sorted({g for g, _, _ in seats1.values()})
    assert len(games1) == 2 and len(byes1) == 1
    for g in games1:
        s = club.status(g)
        assert s["deadline"] is not None  # the home's default
        assert timedelta(hours=71) < parse_time(s["deadline"]) - paired_at <= timedelta(hours=72)
    assert "Dan" in seats1, byes1  # on equal points the lowest placed (by name: Fay) has the bye
    dan_game, dan_side, rival_name = seats1["Dan"]
    other_game = next(g for g in games1 if g != dan_game)
    resigner = next(p for p in players if seats1[p.name][0] == other_game and seats1[p.name][1] == "Pompey")

    # Dan will be away: his game's deadlines wait, but no further than the home's cap (14 days) allows
    base = parse_time(club.status(dan_game)["deadline"])
    away = (paired_at + timedelta(days=20)).strftime("%Y-%m-%d")
    club.post(by_name["Dan"], dan_game, dan_side, f"away until {away}")
    out = club.run()
    assert "mail: 1 accepted" in out, out
    assert parse_time(club.status(dan_game)["deadline"]) == base + timedelta(days=14)  # capped: not 20 days
    assert club.status(other_game)["deadline"] != club.status(dan_game)["deadline"]

    club.play(games1, 3)  # a few steps of real play by mail in both games
    # the opponent was told, in his reports and in his log
    rival = by_name[rival_name]
    told = [m for m in club.mail_of(rival) if report_subject(m["Subject"], dan_game) is not None
            and f"{dan_side} is away until {away}" in text_of(m)]
    assert told, [m["Subject"] for m in club.mail_of(rival)]
    rival_side = seats1[rival_name][1]
    assert f"{dan_side} is away until {away}" in club.ok("log", "--game", dan_game, "--side", rival_side)

    # a resignation ends the other game at once
    assert not club.status(other_game)["over"]  # three steps never end a game of Julius Caesar
    club.post(resigner, other_game, "Pompey", "resign", step=club.status(other_game)["step"])
    out = club.run()
    assert f"{T}: round 1, {other_game}: " in out and "Pompey resigned" in out, out
    assert club.status(other_game)["over"]
    winner1 = next(p for p in players if seats1[p.name][0] == other_game and p is not resigner)
    for p in (resigner, winner1):  # both got the final report
        step, final = club.last_report(p, other_game)
        assert step == club.status(other_game)["step"] and "Pompey resigned" in text_of(final)

    # three days later Dan's game is not defaulted: his absence moved its deadline
    out = club.run("--now", (paired_at + timedelta(hours=73)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert "deadlines: 0 step(s) resolved" in out, out
    assert not club.status(dan_game)["over"]

    # Dan is not coming back in time: the moderator gives his side to Eve
    assert "Eve" not in club.ok("tournament", "standings", T)
    club.ok("replace", dan_game, "--side", dan_side, "--email", eve.email, "--key", str(tmp_path / "Eve.pub"))
    club.seats[(dan_game, dan_side)] = eve
    club.run()  # Eve's first report: the position as her side sees it
    step, first = club.last_report(eve, dan_game)
    assert step == club.status(dan_game)["step"] and f"report for {dan_side}" in text_of(first)
    # Dan's password no longer works, and nothing of his reply is taken
    s = club.status(dan_game)
    club.post(by_name["Dan"], dan_game, dan_side, "pass", step=s["step"], name_side=True)
    out = club.run()
    assert "mail: 1 rejected" in out, out
    assert club.status(dan_game)["received"] == s["received"]
    subs = json.loads(club.ok("submissions", dan_game, "--json"))
    refused = [x for x in subs if x["message_ids"] == [f"<{club.n}.dan@example.org>"]]
    assert len(refused) == 1 and refused[0]["verdict"] == "rejected", refused
    def eve_sent() -> list[dict[str, Any]]:
        return [x for x in json.loads(club.ok("submissions", dan_game, "--json"))
                if any(i.endswith(".eve@example.org>") for i in x["message_ids"])]

    for _ in range(6):  # Eve plays on (a step or two after she has sent her first orders)
        club.play([dan_game], 1)
        if len(eve_sent()) >= 2:
            break
    assert len(eve_sent()) >= 2 and all(x["verdict"] == "accepted" and x["side"] == dan_side for x in eve_sent())
    # and Dan's rival, down on his luck, resigns
    club.post(rival, dan_game, rival_side, "resign", step=club.status(dan_game)["step"])
    out = club.run()
    assert f"{T}: round 1 complete; standings queued for every player" in out, out
    assert f"{T}: round 2 paired" in out, out

    # ---- round 2: by points, no rematch, and whoever had one side now has the other where possible
    seats2, byes2 = seated(club, players, 2)
    games2 = sorted({g for g, _, _ in seats2.values()})
    assert len(games2) == 2 and not set(games1) & set(games2)
    assert len(byes2) == 1 and byes2 != byes1  # the bye goes to one who has not had it
    met1 = {frozenset((p, seats1[p][2])) for p in seats1}
    met2 = {frozenset((p, seats2[p][2])) for p in seats2}
    assert len(met2) == 2 and not met1 & met2  # no rematch
    for pair in met2:  # sides: whoever had one side now has the other, where both cannot
        had = [x for x in sorted(pair) if x in seats1]
        flipped = [seats1[x][1] != seats2[x][1] for x in had]
        if len(had) == 2 and seats1[had[0]][1] == seats1[had[1]][1]:
            assert any(flipped), (pair, seats1, seats2)
        else:  # different sides before, or one had the bye: each who played flips
            assert all(flipped), (pair, seats1, seats2)
    standings1 = [m for m in club.mail_of(rival) if m["Subject"] == f"[{T}] standings after round 1"]
    assert len(standings1) == 1

    assert "Dan" in seats2, byes2  # he won in round 1: the bye goes to one without a point
    dan2_game, dan2_side, _ = seats2["Dan"]
    other2 = next(g for g in games2 if g != dan2_game)
    club.play([other2], 2)
    s = club.status(other2)
    loser2 = club.seats[(other2, s["awaiting"][0])]
    club.post(loser2, other2, s["awaiting"][0], "resign")
    out = club.run()
    assert f"{T}: round 2, {other2}: " in out, out

    # Dan never answers in round 2; his opponent does; at the deadline the run's tick applies the defaults
    round2_opened = parse_time(club.status(dan2_game)["deadline"]) - timedelta(hours=72)
    club.play([dan2_game], 1, skip=(dan2_game, dan2_side))
    s = club.status(dan2_game)
    assert dan2_side in s["awaiting"] and dan2_side not in s["received"] and not s["over"]
    late = (round2_opened + timedelta(hours=72, minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = club.run("--now", late)
    assert "deadlines: 1 step(s) resolved" in out, out
    assert f"step {s['step']} resolved at its deadline" in out and f"defaults for {dan2_side}" in out
    after = club.status(dan2_game)
    assert after["step"] > s["step"] and not after["over"]
    # still nothing from Dan: the moderator forfeits him; the run records it and ends the tournament
    club.ok("forfeit", dan2_game, "--side", dan2_side)
    out = club.run()
    assert f"{T}: round 2 complete; final standings queued for every player" in out, out
    opp2 = club.seats[(dan2_game, next(x for x in ("Caesar", "Pompey") if x != dan2_side))]
    for p in (opp2, by_name["Dan"]):  # both were told of the defaults and of the forfeit
        texts = [text_of(m) for m in club.mail_of(p) if report_subject(m["Subject"], dan2_game) is not None]
        assert any(f"the deadline passed without orders from {dan2_side}; defaults apply" in t for t in texts), p
        assert f"{dan2_side} forfeited" in texts[-1], texts[-1][:2000]

    # ---- the standings are the published rules applied to the results the games recorded
    final = json.loads(club.ok("tournament", "standings", T, "--format", "json"))
    assert final["over"] is True
    results = final["pairings"]
    assert [r["first"] for r in results if r["second"] is None] == byes1 + byes2
    for r in results:  # each result is the game's own
        if r["second"] is None:
            continue
        s = club.status(r["game"])
        assert s["over"]
        seat_of = {r["first"]: "Caesar", r["second"]: "Pompey"}
        winner_side = s["winner"]
        assert (r["winner"] is None) == (winner_side is None)
        if winner_side is not None:
            assert seat_of[r["winner"]] == winner_side
        assert r["score"] == [s["score"]["Caesar"], s["score"]["Pompey"]]
    want = expected_standings([p.name for p in players], results)
    got = [(x["player"], x["points"], x["buchholz"], x["margin"]) for x in final["standings"]]
    assert got == want
    ranks = [x["rank"] for x in final["standings"]]
    for i in range(1, len(ranks)):
        assert (ranks[i] == ranks[i - 1]) == (want[i][1:] == want[i - 1][1:])
    text = club.ok("tournament", "standings", T)
    for p in players:  # everyone got the same final standings by mail
        (m,) = [m for m in club.mail_of(p) if m["Subject"] == f"[{T}] final standings"]
        assert text_of(m).rstrip("\n") == text.rstrip("\n")
    assert "Eve" not in text  # a substitute plays for the entrant; the result is the entrant's
    assert "Tie-breaks, in order: Buchholz (the sum of the opponents' points); then VP margin" in text
    # the standings mailed after round 1 were the rules applied to round 1's results
    (after1,) = [m for m in club.mail_of(rival) if m["Subject"] == f"[{T}] standings after round 1"]
    rows = [ln.split() for ln in text_of(after1).splitlines() if re.match(r"\s+\d+\s", ln)]
    assert [(r[1], points(r[2]), points(r[3]), int(r[4])) for r in rows] == \
        expected_standings([p.name for p in players], [r for r in results if r["round"] == 1])

    # ---- every game verifies
    for g in games1 + games2:
        assert "OK" in club.ok("verify", "--game", g)

    # ---- each player's mail holds only his own side's reports (Eve: only after she took the side over)
    holders: dict[str, set[tuple[str, str]]] = {p.email: set() for p in players + [eve]}
    for p in players:
        for seats in (seats1, seats2):
            if p.name in seats:
                holders[p.email].add(seats[p.name][:2])
    holders[eve.email].add((dan_game, dan_side))
    for who, seats_held in holders.items():
        for m in inboxes.got.get(who, []):
            assert m["To"] == who
            g = re.match(r"\[([\w-]+)\]", m["Subject"])
            assert g is not None, m["Subject"]
            if g.group(1) == T:
                continue  # the tournament's own mail: pairings, standings
            sides = {side for game, side in seats_held if game == g.group(1)}
            assert len(sides) == 1, (who, m["Subject"])
            (side,) = sides
            if report_subject(m["Subject"], g.group(1)) is not None:  # a report: his side's, no other
                assert re.findall(r"report for (\w+)", text_of(m)) == [side], (who, m["Subject"])
            for part in m.iter_attachments():
                name = part.get_filename() or ""
                if name.endswith(".html"):
                    assert name.endswith(f"-{side}.html"), (who, name)
    # Dan's mail of his first game stops where Eve took over; Eve has none from before
    eve_steps = [n for m in club.mail_of(eve) if (n := report_subject(m["Subject"], dan_game)) is not None]
    dan_steps = [n for m in club.mail_of(by_name["Dan"]) if (n := report_subject(m["Subject"], dan_game)) is not None]
    assert eve_steps and dan_steps and max(dan_steps) <= min(eve_steps)

    # ---- the club's mailbox: every message the players put there is still there, marked as taken in
    c: Any = imap.client()
    try:
        c.select_folder("INBOX")
        uids = c.search(["ALL"])
        assert len(uids) == club.n and all(INGESTED in f for f in c.get_flags(uids).values())
    finally:
        c.logout()

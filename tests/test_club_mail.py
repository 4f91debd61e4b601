"""A 4-player, 2-round Swiss tournament of the toy game, end to end by mail: `pbem run` reads the
club's IMAP mailbox (a real Dovecot on loopback) and sends through SMTP (aiosmtpd on loopback).
The players learn their game and side from the pairing mail they receive, answer by mail, and one
of them never answers in round 2 and is defaulted at the deadline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

import toygame
from imap_server import PASSWORD, ImapServer, Inboxes
from pbem.cli import main
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import register
from pbem.transport.imap import INGESTED

register(toygame.SYSTEM)
BIDS = {"Ann": 3, "Bob": 2, "Cid": 1, "Dan": 0}


def cli(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False,
                              env={"PBEM_IMAP_PASSWORD": PASSWORD})


def ok(home: Path, *args: str) -> str:
    r = cli(home, *args)
    assert r.exit_code == 0, r.output
    return r.output


def test_a_swiss_tournament_by_imap_and_smtp(servers: tuple[ImapServer, Inboxes, str], tmp_path: Path) -> None:
    imap, inboxes, smtp = servers
    home = tmp_path / "home"
    keys = {p: generate_keypair() for p in BIDS}
    ok(home, "tournament", "new", "cup", "--rounds", "2", "--deadline", "24h", "--system", "toy", "-o", "rounds=1")
    for p in BIDS:
        (tmp_path / f"{p}.pub").write_text(keys[p].public_text)
        ok(home, "tournament", "add", "cup", "--player", p, "--email", f"{p.lower()}@example.org",
           "--key", str(tmp_path / f"{p}.pub"))
    ok(home, "tournament", "pair", "cup")
    run = ["run", "--imap", imap.url(), "--smtp", smtp, "--from", "club@example.org"]

    def answer(round_number: int, absent: str = "") -> None:
        """Each player reads his pairing mail and mails his bid to the club's mailbox."""
        c: Any = imap.client()
        try:
            for p, amount in BIDS.items():
                mail = [m for m in inboxes.got[f"{p.lower()}@example.org"]
                        if m["Subject"].startswith(f"[cup] round {round_number}: you play")]
                assert len(mail) == 1, [m["Subject"] for m in inboxes.got[f"{p.lower()}@example.org"]]
                m = re.fullmatch(r"\[cup\] round \d: you play (\w+) against \w+ \((\S+)\)", mail[0]["Subject"])
                assert m is not None
                side, game = m.groups()
                if p == absent:
                    continue
                armor = sign_envelope(new_envelope(game, side, 1, f"bid {amount}"), keys[p].private_pem).to_armor()
                c.append("INBOX", (f"From: {p.lower()}@example.org\r\nTo: club@example.org\r\nSubject: bid\r\n"
                                   f"Message-ID: <{game}.{p}@example.org>\r\n\r\n"
                                   + armor.replace("\n", "\r\n")).encode())
        finally:
            c.logout()

    out = ok(home, *run)
    assert out.strip().endswith("sent: 8 message(s)"), out  # 4 pairing mails, each side's first report
    answer(1)
    out = ok(home, *run)
    assert "mail: 4 accepted" in out and "cup: round 1 complete" in out and "cup: round 2 paired" in out
    answer(2, absent="Dan")  # Dan never answers in round 2
    out = ok(home, *run)
    assert "mail: 3 accepted" in out and "round(s) paired" in out
    out = ok(home, *run, "--now", "2999-01-01T00:00:00Z")  # past the deadline: Dan bids 0 by default
    assert "deadlines: 1 step(s) resolved" in out and "cup: round 2 complete; final standings queued" in out

    # Round 1 by name: Ann v Bob, Cid v Dan (Ann and Cid win); round 2 by score: Ann v Cid, Bob v Dan.
    final = [m for m in inboxes.got["cid@example.org"] if m["Subject"] == "[cup] final standings"]
    assert len(final) == 1
    table = [ln.split() for ln in final[0].get_content().splitlines() if re.match(r"\s+\d+\s", ln)]
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in table] == [
        ("1", "Ann", "2", "2", "+2"), ("2", "Bob", "1", "2", "+0"), ("2", "Cid", "1", "2", "+0"),
        ("4", "Dan", "0", "2", "-2")]
    for p in BIDS:  # everyone got both pairings, both standings, his games' reports, and nothing of others
        got = inboxes.got[f"{p.lower()}@example.org"]
        subjects = [m["Subject"] for m in got]
        assert sum(s.startswith("[cup] round") for s in subjects) == 2
        assert {"[cup] standings after round 1", "[cup] final standings"} <= set(subjects)
        assert all(m["To"] == f"{p.lower()}@example.org" for m in got)
    # every mail was taken from the mailbox and marked, none deleted; a last run has nothing to do
    c: Any = imap.client()
    try:
        c.select_folder("INBOX")
        uids = c.search(["ALL"])
        assert len(uids) == 7 and all(INGESTED in f for f in c.get_flags(uids).values())
    finally:
        c.logout()
    out = ok(home, *run, "--now", "2999-01-01T00:10:00Z")
    assert out.strip().splitlines()[-1].endswith("mail: nothing new; deadlines: 0 step(s) resolved, 0 reminder(s); "
                                                  "tournaments: 0 result(s), 0 round(s) paired; sent: 0 message(s)")
    for g in ("cup-r1-1", "cup-r1-2", "cup-r2-1", "cup-r2-2"):
        assert "OK" in ok(home, "verify", "--game", g)

"""Joining a tournament by mail (pbem/join.py): a block signed with the key it carries, from the address
it names, or a plain `join NAME` mail with `name:` and `password:` lines; `pbem inbox` / `pbem run` take
it, the player gets a confirmation or a refusal naming what is wrong, and nothing is taken twice."""

from __future__ import annotations

import email
import mailbox
from email import policy
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as hs

import toygame
from pbem.cli import main
from pbem.credentials import check_password
from pbem.envelope import generate_keypair, new_envelope, password_submission
from pbem.games import register
from pbem.join import JoinError, JoinRequest, join_block, read_join
from pbem.store import Home
from pbem.tables import Verdict
from pbem.tournament import Tournament

register(toygame.SYSTEM)


def _mail(sender: str, body: str, n: int, subject: str = "join") -> bytes:
    return f"From: {sender}\nTo: club@example.org\nSubject: {subject}\nMessage-ID: <j{n}@x>\n\n{body}".encode()


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    r = CliRunner().invoke(main, ["--home", str(home), "tournament", "new", "spring", "--rounds", "1", "--system",
                                  "toy", "--deadline", "24h"])
    assert r.exit_code == 0, r.output
    mailbox.Maildir(tmp_path / "mail")
    return home, tmp_path / "mail"


def _inbox(home: Path, mail: Path) -> list[str]:
    r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--maildir", str(mail)])
    assert r.exit_code == 0, r.output
    return r.output.splitlines()


def test_a_signed_join_and_a_password_join_by_mail_are_taken_and_confirmed(tmp_path: Path) -> None:
    home, mail = _setup(tmp_path)
    ann = generate_keypair()
    (tmp_path / "ann.key").write_bytes(ann.private_pem)
    r = CliRunner().invoke(main, ["tournament", "join", "spring", "--player", "Ann", "--email", "ann@example.org",
                                  "--key", str(tmp_path / "ann.key")])
    assert r.exit_code == 0 and r.output.startswith("-----BEGIN PBEM JOIN-----\nTournament: spring\nPlayer: Ann\n")
    box = mailbox.Maildir(mail)
    box.add(_mail("Ann <ann@example.org>", f"Hello, please take me.\n\n{r.output}\n-- \nAnn", 1))
    box.add(_mail("dan@example.org", "join spring\nname: Dan\npassword: open sesame\n", 2))
    lines = _inbox(home, mail)
    assert lines[:2] == ["spring: Ann joined by mail (ann@example.org; 1 players)",
                         "spring: Dan joined by mail (dan@example.org; 2 players)"]
    assert lines[-1].endswith("this run: 2 joined")
    with Tournament(Home(home), "spring") as t:
        ents = {e.name: e for e in t.entrants()}
        assert ents["Ann"].public_key == ann.public_text and ents["Ann"].email == "ann@example.org"
        assert ents["Dan"].password_hash and check_password(ents["Dan"].password_hash, "open sesame")
        assert "open sesame" not in (home / "tournaments" / "spring.db").read_bytes().decode("latin-1")
        answers = {m.address: m for m in t.mail() if m.kind == "join"}
        assert answers["ann@example.org"].subject == "[spring] you joined as Ann"
        assert "your orders are checked with your key " + ann.fingerprint in answers["ann@example.org"].body
        assert "with your password" in answers["dan@example.org"].body
    assert _inbox(home, mail)[-1].endswith("nothing new")  # fed again: nothing taken or answered twice
    # the answers go by pbem send, to the address the join came from
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["--home", str(home), "send", "--from", "club@example.org", "--dry-run", str(out)])
    assert r.exit_code == 0, r.output
    sent = {m["To"]: m["Subject"] for m in (email.message_from_bytes(p.read_bytes(), policy=policy.default)
                                            for p in out.rglob("*.eml"))}
    assert sent == {"ann@example.org": "[spring] you joined as Ann", "dan@example.org": "[spring] you joined as Dan"}
    # both play: the pairing makes their game, and Dan's password works in it
    assert CliRunner().invoke(main, ["--home", str(home), "tournament", "pair", "spring"]).exit_code == 0
    with Home(home).open("spring-r1-1") as st:
        side = next(p.side for p in st.players() if p.email == "dan@example.org")
        sub = password_submission(new_envelope("spring-r1-1", side, 1, "bid 1"), "open sesame")
        assert st.receive(sub.to_armor().encode()).verdict is Verdict.ACCEPTED


def test_bad_joins_are_refused_naming_what_is_wrong(tmp_path: Path) -> None:
    home, mail = _setup(tmp_path)
    ann, eve = generate_keypair(), generate_keypair()
    block = join_block("spring", "Ann", "ann@example.org", ann.private_pem)
    box = mailbox.Maildir(mail)
    box.add(_mail("eve@example.org", block, 1))  # Ann's block, mailed by someone else
    box.add(_mail("ann@example.org", block.replace("Player: Ann", "Player: Queen Ann"), 2))  # changed after signing
    box.add(_mail("bob@example.org", "join spring\nname: Bob\n", 3))  # no password
    box.add(_mail("cid@example.org", "join autumn\nname: Cid\npassword: x\n", 4))  # no such tournament
    lines = _inbox(home, mail)
    assert lines[0] == ("spring: join refused: the join block names the address ann@example.org but came from "
                        "eve@example.org: a player joins from the address he registers; mail the block `pbem "
                        "tournament join` printed, unchanged, from the address it names")
    assert "is not signed by the key it carries" in lines[1]
    assert lines[2].startswith("spring: join refused: a join by mail needs one line `password: YOUR PASSWORD`")
    assert lines[3].startswith("not delivered: it asks to join tournament 'autumn', which is not in ")
    with Tournament(Home(home), "spring") as t:
        assert t.entrants() == []
        answers = {m.address: m for m in t.mail()}
        assert set(answers) == {"eve@example.org", "ann@example.org", "bob@example.org"}  # each to its sender
        assert answers["eve@example.org"].subject == "[spring] your join was refused"
        assert "Nothing was registered." in answers["bob@example.org"].body
    # joining twice (by name, or from an address already registered), and after round 1
    box.add(_mail("ann@example.org", block, 5))
    assert _inbox(home, mail)[0] == "spring: Ann joined by mail (ann@example.org; 1 players)"
    box.add(_mail("ann2@example.org", join_block("spring", "Ann", "ann2@example.org", eve.private_pem), 6))
    box.add(_mail("ann@example.org", "join spring\nname: Annie\npassword: pw\n", 7))
    lines = _inbox(home, mail)
    assert lines[0] == "spring: join refused: Ann is already a player of spring; choose another name"
    assert lines[1] == "spring: join refused: ann@example.org already plays in spring as Ann; a player joins once"
    box.add(_mail("bob@example.org", "join spring\nname: Bob\npassword: pw\n", 8))
    _inbox(home, mail)
    assert CliRunner().invoke(main, ["--home", str(home), "tournament", "pair", "spring"]).exit_code == 0
    box.add(_mail("cid@example.org", "join spring\nname: Cid\npassword: pw\n", 9))
    lines = _inbox(home, mail)
    assert lines[0].startswith("spring: join refused: tournament spring has started (round 1 is paired)")


def test_pbem_run_takes_a_join_and_the_same_message_twice_is_answered_once(tmp_path: Path) -> None:
    home, mail = _setup(tmp_path)
    raw = _mail("dan@example.org", "join spring\nname: Dan\npassword: pw\n", 1)
    mailbox.Maildir(mail).add(raw)
    r = CliRunner().invoke(main, ["--home", str(home), "run", "--maildir", str(mail), "--from", "club@example.org",
                                  "--dry-run", str(tmp_path / "out")])
    assert r.exit_code == 0 and "mail: 1 joined" in r.output.splitlines()[-1], r.output
    with Tournament(Home(home), "spring") as t:  # a crash before the mailbox was marked: fed once more
        import hashlib

        request = read_join(raw)
        assert request is not None
        again = t.join_by_mail(request[1], hashlib.sha256(raw).hexdigest(), request[2])
        assert again[0] and "received before" in again[1]
        assert len([m for m in t.mail() if m.kind == "join"]) == 1 and len(t.entrants()) == 1


def test_what_is_and_is_not_a_join() -> None:
    assert read_join(_mail("a@example.org", "move Roma -> Genua: Legio 1\npassword: x\n", 1)) is None
    got = read_join(_mail("a@example.org", "> join spring\n", 1))
    assert got is None  # a quoted line is someone else's text
    got = read_join(_mail("a@example.org", "JOIN spring\nName: Al\npassword: x\n", 1))
    assert got is not None and got[1] == JoinRequest("spring", "Al", "a@example.org", password="x")


@given(hs.text(alphabet="joinspr :\n-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghiklmnopqrstuvwxyz0123456789+/=", max_size=300))
def test_reading_a_join_never_fails_but_by_naming_the_problem(body: str) -> None:
    got = read_join(_mail("x@example.org", body, 1))
    assert got is None or isinstance(got[1], JoinRequest | JoinError)
    blocked = read_join(_mail("x@example.org", "-----BEGIN PBEM JOIN-----\n" + body, 1))
    assert blocked is not None and isinstance(blocked[1], JoinError) and "the join block" in str(blocked[1])

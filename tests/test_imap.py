"""`pbem inbox --imap` against a real Dovecot on loopback: the Maildir guarantees over IMAP.

Delivered messages get \\Seen and $PbemIngested; the others stay unread; nothing is deleted;
nothing is fed twice, across runs and across a crash between storing and remembering, or
between remembering and marking. TLS off, implicit TLS (imaps://) and STARTTLS.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import toygame
from imap_server import PASSWORD, ImapServer, dovecot, dovecot_binary
from pbem.cli import main
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import register
from pbem.store import Home
from pbem.transport import inbox as mailbox_mod
from pbem.transport.common import MailError
from pbem.transport.imap import INGESTED, parse_imap_url, read_imap

register(toygame.SYSTEM)

needs_dovecot = pytest.mark.skipif(dovecot_binary() is None,
                                   reason="no dovecot binary (Debian: apt-get install dovecot-imapd; CI installs it)")


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False,
                              env={"PBEM_IMAP_PASSWORD": PASSWORD} if env is None else env)


@pytest.fixture()
def game(tmp_path: Path) -> dict[str, Any]:
    keys = {s: generate_keypair() for s in toygame.SIDES}
    for s, k in keys.items():
        (tmp_path / f"{s}.pub").write_text(k.public_text + "\n")
    home = tmp_path / "home"
    r = cli(home, "new", "t1", "--system", "toy", "-o", "rounds=2", "--seed", "1",
            "--player", "North=north@example.org", "--key", f"North={tmp_path / 'North.pub'}",
            "--player", "South=south@example.org", "--key", f"South={tmp_path / 'South.pub'}")
    assert r.exit_code == 0, r.output
    return {"home": home, "keys": keys}


def mail(keys: dict[str, Any], side: str, step: int, text: str, mid: str) -> bytes:
    armor = sign_envelope(new_envelope("t1", side, step, text), keys[side].private_pem).to_armor()
    return (f"From: {side.lower()}@example.org\r\nTo: club@example.org\r\nSubject: orders\r\n"
            f"Message-ID: <{mid}@example.org>\r\n\r\n{armor}").replace("\r\n", "\n").replace("\n", "\r\n").encode()


JUNK = b"From: spam@example.org\r\nSubject: offer\r\nMessage-ID: <junk@example.org>\r\n\r\nbuy now\r\n"


def flags_by_mid(server: ImapServer) -> dict[str, set[bytes]]:
    c: Any = server.client()
    try:
        c.select_folder("INBOX")
        uids = c.search(["ALL"])
        got = c.fetch(uids, ["FLAGS", "BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"]) if uids else {}
        out = {}
        for data in got.values():
            head = next(v for k, v in data.items() if k.startswith(b"BODY[HEADER"))
            mid = head.decode().split(":", 1)[1].strip()
            out[mid] = {bytes(f) for f in data[b"FLAGS"]}
        return out
    finally:
        c.logout()


def append(server: ImapServer, *messages: bytes) -> None:
    c: Any = server.client()
    try:
        for m in messages:
            c.append("INBOX", m)
    finally:
        c.logout()


@pytest.fixture()
def plain(tmp_path: Path) -> Iterator[ImapServer]:
    if dovecot_binary() is None:
        pytest.skip("no dovecot binary (Debian: apt-get install dovecot-imapd; CI installs it)")
    with dovecot(tmp_path / "dovecot", tls=False) as server:
        yield server


@needs_dovecot
def test_imap_inbox_delivers_marks_and_never_feeds_twice(plain: ImapServer, game: dict[str, Any]) -> None:
    home, keys = game["home"], game["keys"]
    append(plain, mail(keys, "North", 1, "bid 3", "n1"), JUNK)
    r = cli(home, "inbox", "--imap", plain.url())
    assert r.exit_code == 0, r.output
    assert "t1: North, step 1: accepted" in r.output
    assert "not delivered: no submission in it" in r.output and "Message-ID: <junk@example.org>" in r.output
    assert r.output.rstrip().endswith("this run: 1 accepted, 1 not delivered")
    flags = flags_by_mid(plain)
    assert flags["<n1@example.org>"] >= {b"\\Seen", INGESTED}
    assert flags["<junk@example.org>"] == set()  # left unread for the moderator, not deleted
    # a second run feeds nothing; new mail is fed in delivery order
    append(plain, mail(keys, "South", 1, "bid 2", "s1"))
    r = cli(home, "inbox", "--imap", plain.url(), "--json")
    import json

    out = json.loads(r.output)
    assert [x["receipt"]["verdict"] for x in out["results"]] == ["accepted"]
    assert out["counts"]["messages"] == 3 and out["counts"]["already processed"] == 2
    r = cli(home, "inbox", "--imap", plain.url())
    assert "3 messages, 3 processed before; this run: nothing new" in r.output
    assert len(flags_by_mid(plain)) == 3  # nothing deleted
    with Home(home).open("t1") as st:
        assert st.status().step == 2 and len(st.submissions()) == 2
        replies = [o for o in st.outbox(kind="reply")]
        assert {o.recipient for o in replies} == {"North", "South"}  # mail from IMAP gets its reply


class Killed(BaseException):
    """The process dies here."""


@needs_dovecot
def test_imap_exactly_once_across_crashes(plain: ImapServer, game: dict[str, Any],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home, keys = Home(game["home"]), game["keys"]
    url = parse_imap_url(plain.url())
    append(plain, mail(keys, "North", 1, "bid 3", "n1"))

    # killed after the game stored the submission, before the message was remembered
    def die(*a: Any, **k: Any) -> None:
        raise Killed()

    with monkeypatch.context() as m:
        m.setattr(mailbox_mod, "_remember", die)
        with pytest.raises(Killed):
            read_imap(home, url, PASSWORD)
    assert flags_by_mid(plain)["<n1@example.org>"] == set()  # not marked: it is looked at again
    run = read_imap(home, url, PASSWORD)
    # the game file knows the message: its earlier receipt, nothing stored or answered twice
    assert [(r.receipt.verdict.value, r.receipt.again) for r in run.results if r.receipt] == [("accepted", True)]
    assert INGESTED in flags_by_mid(plain)["<n1@example.org>"]

    # killed after remembering, before marking: the next run marks it and feeds nothing
    append(plain, mail(keys, "South", 1, "bid 1", "s1"))
    import imapclient

    with monkeypatch.context() as m:
        m.setattr(imapclient.IMAPClient, "add_flags", die)
        with pytest.raises(Killed):
            read_imap(home, url, PASSWORD)
    assert flags_by_mid(plain)["<s1@example.org>"] == set()
    run = read_imap(home, url, PASSWORD)
    assert run.results == [] and run.already == 2
    assert INGESTED in flags_by_mid(plain)["<s1@example.org>"]
    with home.open("t1") as st:
        accepted = [s for s in st.submissions() if s.verdict == "accepted"]
        assert len(accepted) == 2 and st.status().step == 2  # each side's bid counted once


@needs_dovecot
def test_imap_tls_starttls_and_their_failures(tmp_path: Path, game: dict[str, Any]) -> None:
    home, keys = game["home"], game["keys"]
    with dovecot(tmp_path / "dovecot-tls", tls=True) as server:
        assert server.cafile is not None
        append(server, mail(keys, "North", 1, "bid 3", "n1"))
        ca = ["--imap-cafile", str(server.cafile)]
        # implicit TLS, the self-signed certificate trusted through --imap-cafile
        r = cli(home, "inbox", "--imap", server.url(tls=True), *ca)
        assert r.exit_code == 0 and "t1: North, step 1: accepted" in r.output, r.output
        # without trusting it: a clear refusal, nothing read
        r = cli(home, "inbox", "--imap", server.url(tls=True))
        assert r.exit_code == 1 and "TLS with the IMAP server 127.0.0.1" in r.output
        assert "certificate" in r.output and "--imap-cafile" in r.output
        # STARTTLS with a certificate nobody vouches for: refused before the password is sent
        append(server, mail(keys, "South", 1, "bid 1", "s1"))
        r = cli(home, "inbox", "--imap", server.url(), "--imap-starttls")
        assert r.exit_code == 1 and "STARTTLS with the IMAP server 127.0.0.1" in r.output, r.output
        # STARTTLS on the plain port, the password from a file
        pw = tmp_path / "imap-password"
        pw.write_text(PASSWORD + "\n")
        r = cli(home, "inbox", "--imap", server.url(), "--imap-starttls", "--imap-password-file", str(pw), *ca,
                env={})
        assert r.exit_code == 0 and "t1: South, step 1: accepted" in r.output, r.output
        # a wrong password
        pw.write_text("wrong\n")
        r = cli(home, "inbox", "--imap", server.url(), "--imap-starttls", "--imap-password-file", str(pw), *ca,
                env={})
        assert r.exit_code == 1 and "refused the login of 'club'" in r.output


def test_imap_addresses_and_passwords_are_checked_before_connecting(tmp_path: Path) -> None:
    u = parse_imap_url("imaps://club%40example.org@mail.example.org/Orders")
    assert (u.tls, u.user, u.host, u.port, u.folder) == (True, "club@example.org", "mail.example.org", 993, "Orders")
    u = parse_imap_url("imap://club@127.0.0.1:1143")
    assert (u.tls, u.port, u.folder) == (False, 1143, "INBOX")
    for bad, says in [("pop3://a@b/INBOX", "must start with imaps://"), ("imaps://mail.example.org/", "names no user"),
                      ("imaps://a:secret@b/", "never put the password in the address"),
                      ("imaps://a@b:99999/", "not a usable address")]:
        with pytest.raises(MailError, match=says):
            parse_imap_url(bad)
    home = tmp_path / "home"
    home.mkdir()
    r = cli(home, "inbox", "--imap", "imaps://a@127.0.0.1:1/", env={})
    assert r.exit_code == 2 and "PBEM_IMAP_PASSWORD" in r.output and "never on the command line" in r.output
    r = cli(home, "inbox", "--imap", "imaps://a:pw@127.0.0.1:1/")
    assert r.exit_code == 1 and "never put the password in the address" in r.output
    r = cli(home, "inbox", "--imap", "imaps://a@127.0.0.1:1/", "--maildir", str(tmp_path))
    assert r.exit_code == 2 and "exactly one of --imap URL, --maildir DIR or --mbox FILE" in r.output
    r = cli(home, "inbox", "--maildir", str(tmp_path), "--imap-starttls")
    assert r.exit_code == 2 and "go with --imap URL" in r.output
    # the password never travels in clear text to another machine
    r = cli(home, "inbox", "--imap", "imap://a@mail.example.org/")
    assert r.exit_code == 1 and "would send the password unencrypted" in r.output and "--imap-starttls" in r.output
    # nobody listens: a clear message, exit 1
    r = cli(home, "inbox", "--imap", f"imap://a@127.0.0.1:{_closed_port()}/")
    assert r.exit_code == 1 and "cannot reach the IMAP server 127.0.0.1" in r.output


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@needs_dovecot
def test_imap_inbox_spreads_its_games_over_workers_with_jobs(plain: ImapServer, game: dict[str, Any],
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs N`` reaches an IMAP folder as it does a Maildir: each game in a worker, every message
    delivered and marked once."""
    home, keys = game["home"], game["keys"]
    r = cli(home, "new", "t2", "--system", "toy", "-o", "rounds=2", "--seed", "2",
            "--player", "North=north@example.org", "--key", f"North={tmp_path / 'North.pub'}",
            "--player", "South=south@example.org", "--key", f"South={tmp_path / 'South.pub'}")
    assert r.exit_code == 0, r.output
    other = sign_envelope(new_envelope("t2", "North", 1, "bid 4"), keys["North"].private_pem).to_armor().encode()
    append(plain, mail(keys, "North", 1, "bid 3", "n1"),
           b"From: north@example.org\r\nSubject: orders\r\nMessage-ID: <n2@example.org>\r\n\r\n" + other.replace(b"\n", b"\r\n"))
    jobs: list[int] = []
    deliver = mailbox_mod._deliver_all

    def spying(*args: Any, **kw: Any) -> Any:
        jobs.append(args[3])
        return deliver(*args, **kw)

    monkeypatch.setattr(mailbox_mod, "_deliver_all", spying)
    r = cli(home, "inbox", "--imap", plain.url(), "--jobs", "2")
    assert r.exit_code == 0, r.output
    assert jobs == [2]
    assert "t1: North, step 1: accepted" in r.output and "t2: North, step 1: accepted" in r.output
    assert all(f >= {b"\\Seen", INGESTED} for f in flags_by_mid(plain).values())
    for gid in ("t1", "t2"):
        with Home(home).open(gid) as st:
            assert [s.verdict for s in st.submissions()] == ["accepted"]

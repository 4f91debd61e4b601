"""The email transport: `pbem inbox` feeds an mbox or a Maildir to the games exactly once,
and `pbem send` delivers the outbox to a real SMTP server on the loopback interface
(aiosmtpd), each recipient receiving only his own reports, each report once."""

from __future__ import annotations

import email
import json
import mailbox
import socket
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner, Result

from pbem.cli import main
from pbem.envelope import KeyPair, generate_keypair, new_envelope, parse_submission, sign_envelope
from pbem.games.caesar.rules.board import Side
from pbem.store import GameSetup, Home, PlayerSetup

C, P = Side.CAESAR, Side.POMPEY
EMAILS = {
    "g": {"Caesar": "ann@example.org", "Pompey": "bob@example.net", "moderator": "mod@example.com"},
    "h": {"Caesar": "cat@example.org", "Pompey": "dan@example.net", "moderator": ""},
}


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], env=env, catch_exceptions=True)


def make_games(home: Path, *ids: str) -> dict[str, dict[Side, KeyPair]]:
    keys = {}
    for n, gid in enumerate(ids):
        keys[gid] = {s: generate_keypair() for s in Side}
        players = tuple(PlayerSetup(s, EMAILS.get(gid, {}).get(s.value, ""), public_key=keys[gid][s].public_text)
                        for s in Side)
        Home(home).create(GameSetup(gid, players, seed=11 + n,
                                    moderator_email=EMAILS.get(gid, {}).get("moderator", ""))).close()
    return keys


def year_start_orders(home: Path, gid: str, side: Side) -> str:
    with Home(home).open(gid) as st:
        hand = st.adjudication().session.game.state.hands[side]
    return f"discard {hand[0]}\nplay {hand[1]}\n"


def signed(keys: dict[Side, KeyPair], gid: str, side: Side, orders: str, *, key_of: Side | None = None) -> Any:
    env = new_envelope(gid, side.value, 1, orders, time="2025-03-01T12:00:00Z")
    return sign_envelope(env, keys[key_of or side].private_pem)


def armored_mail(armor: str, msg_id: str, sender: str) -> bytes:
    """A reply as mail programs write it: ARC headers first, the old block quoted, a signature."""
    quoted = "".join(f"> {line}\n" for line in armor.splitlines())
    body = (f"Salve,\n\nmy orders:\n\n{armor}\nVale,\nAnn\n\nOn Sat, Bob wrote:\n{quoted}\n"
            f"-- \nAnn | {sender}\n{armor}")
    head = (f"ARC-Seal: i=1; a=rsa-sha256; t=1740850000; cv=none; d=example.org; s=arc; b=abc\n"
            f"Return-Path: <{sender}>\nFrom: Ann <{sender}>\nTo: pbem@club.example\n"
            f"Subject: Re: [g] step 1\nDate: Sat, 01 Mar 2025 18:31:00 +0000\nMessage-ID: <{msg_id}>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n")
    return (head + body).encode()


def html_mail(armor: str, msg_id: str, sender: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "pbem@club.example", "orders", f"<{msg_id}>"
    msg.set_content("Voilà mes ordres, très long pour forcer une coupure douce du quoted-printable:\n\n" + armor,
                    cte="quoted-printable")
    msg.add_alternative(f"<p>Voilà mes ordres</p><pre>{armor}</pre>", subtype="html")
    raw = msg.as_bytes()
    assert b"multipart/alternative" in raw and b"quoted-printable" in raw
    return raw


def attachment_mail(json_text: str, msg_id: str, sender: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "pbem@club.example", "orders", f"<{msg_id}>"
    msg.set_content("My orders are attached.\n\n-- \nCat\n")
    msg.add_attachment(json_text.encode(), maintype="application", subtype="json", filename="orders.json")
    return msg.as_bytes()


def plain_mail(text: str, msg_id: str, sender: str, subject: str = "hello") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "pbem@club.example", subject, f"<{msg_id}>"
    msg.set_content(text)
    return msg.as_bytes()


def realistic_mailbox(home: Path) -> tuple[dict[str, dict[Side, KeyPair]], list[tuple[str, bytes]]]:
    """Two games and seven messages: (expected line start, message bytes)."""
    keys = make_games(home, "g", "h")
    stranger = {s: generate_keypair() for s in Side}
    g_caesar = signed(keys["g"], "g", C, year_start_orders(home, "g", C))
    messages = [
        ("g: Caesar, step 1: accepted", armored_mail(g_caesar.to_armor(), "1@example.org", "ann@example.org")),
        ("g: Pompey, step 1: accepted",
         html_mail(signed(keys["g"], "g", P, year_start_orders(home, "g", P)).to_armor(), "2@example.net",
                   "Bob <bob@example.net>")),
        ("h: Caesar, step 1: accepted",
         attachment_mail(signed(keys["h"], "h", C, year_start_orders(home, "h", C)).to_json(), "3@example.org",
                         "cat@example.org")),
        ("not delivered: it names game 'nope'",
         armored_mail(signed(stranger, "nope", C, "discard 2/1\nplay 3/2").to_armor(), "4@example.org",
                      "eve@example.org")),
        ("not delivered: no submission in it",
         plain_mail("Are we still playing on Friday?\n\x1b[31mred\n", "5@spam.example", "spam@spam.example",
                    subject="WIN \x1b[2J big")),
        ("h: Pompey, step 1: rejected",  # signed with Caesar's key: a forgery
         armored_mail(signed(keys["h"], "h", P, year_start_orders(home, "h", P), key_of=C).to_armor(),
                      "6@example.net", "dan@example.net")),
        ("g: Caesar, step 1: duplicate",  # the same signed orders again, in a new message
         plain_mail(g_caesar.to_armor(), "7@example.org", "ann@example.org", subject="again")),
    ]
    return keys, messages


def submissions(home: Path) -> dict[str, list[tuple[str, str | None, str]]]:
    out = {}
    for gid in Home(home).games():
        with Home(home).open(gid) as st:
            out[gid] = [(s.verdict, s.side, s.source) for s in st.submissions()]
    return out


# ---- pbem inbox -----------------------------------------------------------------------------


def test_attachment_and_body_parse() -> None:
    keys = {s: generate_keypair() for s in Side}
    sub = signed(keys, "g", C, "play 3/2")
    assert parse_submission(attachment_mail(sub.to_json(), "a@x", "a@example.org")) == sub
    # A broken block in the body wins over an attachment: its error is the one reported.
    broken = sub.to_armor().replace("-----END PBEM ORDERS-----", "")
    msg = email.message_from_bytes(attachment_mail(sub.to_json(), "b@x", "a@example.org"), policy=policy.default)
    assert isinstance(msg, EmailMessage)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    body.set_content(broken)
    with pytest.raises(ValueError, match="no '-----END PBEM ORDERS-----' line"):
        parse_submission(msg.as_bytes())


def test_inbox_mbox_twice(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys, messages = realistic_mailbox(home)
    path = tmp_path / "pbem.mbox"
    box = mailbox.mbox(str(path))
    for _, raw in messages:
        box.add(raw)
    box.close()
    before = path.read_bytes()

    r = cli(home, "inbox", "--mbox", str(path))
    assert r.exit_code == 0, (r.output, r.exception)
    lines = r.stdout.splitlines()
    assert len(lines) == len(messages) + 1
    for (expect, _), line in zip(messages, lines):
        assert line.startswith(expect), (expect, line)
    assert "From: Ann <eve@example.org>; Subject: Re: [g] step 1; Message-ID: <4@example.org>]" in lines[3]
    assert "\x1b" not in r.stdout and "Subject: WIN ?[2J big" in lines[4]  # no terminal escapes from strangers
    assert "signature" in lines[5]
    assert lines[-1] == (f"mbox:{path}: 7 messages, 0 processed before; this run: 3 accepted, 1 rejected, "
                         "1 duplicate, 2 not delivered")
    subs = submissions(home)
    assert [v for v, _, _ in subs["g"]] == ["accepted", "accepted", "duplicate"]
    assert [v for v, _, _ in subs["h"]] == ["accepted", "rejected"]
    assert subs["g"][0][2] == f"mbox:{path} <1@example.org>"
    with Home(home).open("g") as st:
        assert st.status().step == 2  # both year-start submissions in: step 1 resolved
    assert cli(home, "verify").exit_code == 0  # the audit reads the stored messages the same way

    again = cli(home, "inbox", "--mbox", str(path))
    assert again.exit_code == 0
    assert again.stdout == f"mbox:{path}: 7 messages, 7 processed before; this run: nothing new\n"
    assert submissions(home) == subs
    assert path.read_bytes() == before  # the mailbox itself is never changed

    # The game of a message that could not be delivered is created later: --retry delivers it.
    stranger_msg = messages[3][1]
    sub = parse_submission(stranger_msg)
    make_games(home, "nope")
    with open(home / "inbox-seen.jsonl", "a") as f:
        f.write('{"digest": "torn by a cr')  # a crash in the middle of a line loses nothing else
    assert cli(home, "inbox", "--mbox", str(path)).stdout.endswith("this run: nothing new\n")
    r = cli(home, "inbox", "--mbox", str(path), "--retry", "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert [x["outcome"] for x in data["results"]] == ["delivered", "not delivered"]
    assert data["results"][0]["receipt"]["verdict"] == "rejected"  # the stranger's key is not registered
    assert data["results"][0]["receipt"]["side"] == sub.envelope.side
    assert data["counts"]["already processed"] == 5
    assert cli(home, "inbox", "--mbox", str(path), "--retry").stdout.endswith(
        "6 processed before; this run: 1 not delivered\n")  # the garbage message, looked at again
    assert cli(home, "inbox", "--mbox", str(path)).stdout.endswith("7 processed before; this run: nothing new\n")


def test_inbox_maildir(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _, messages = realistic_mailbox(home)
    md = tmp_path / "Maildir"
    box = mailbox.Maildir(str(md))
    keys = []
    for i, (_, raw) in enumerate(messages):
        msg = mailbox.MaildirMessage(raw)
        if i == 0:
            msg.set_subdir("cur")  # already read in a mail program: still fed
            msg.add_flag("F")
        keys.append(box.add(msg))
    box.close()

    r = cli(home, "inbox", "--maildir", str(md), "--json")
    assert r.exit_code == 0, (r.output, r.exception)
    data = json.loads(r.stdout)
    got = [(x["game"], x["receipt"]["verdict"] if "receipt" in x else x["outcome"]) for x in data["results"]]
    assert got == [("g", "accepted"), ("g", "accepted"), ("h", "accepted"), (None, "not delivered"),
                   (None, "not delivered"), ("h", "rejected"), ("g", "duplicate")]
    assert data["results"][4]["message_id"] == "<5@spam.example>"
    # Delivered messages are marked seen in cur; the others stay new and unread for the moderator.
    new = sorted(p.name for p in (md / "new").iterdir())
    cur = sorted(p.name for p in (md / "cur").iterdir())
    assert new == sorted([keys[3], keys[4]])
    assert sorted(n.split(":")[0] for n in cur) == sorted(k for i, k in enumerate(keys) if i not in (3, 4))
    assert all(n.split(":2,")[1] in ("S", "FS") for n in cur)
    subs = submissions(home)
    again = cli(home, "inbox", "--maildir", str(md))
    assert again.exit_code == 0 and again.stdout.endswith("7 processed before; this run: nothing new\n")
    assert submissions(home) == subs


def test_inbox_bad_mailboxes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_games(home, "g")
    (tmp_path / "notmbox").write_text("hello\n")
    (tmp_path / "plain").mkdir()
    for args in (["--mbox", str(tmp_path / "missing")], ["--mbox", str(tmp_path / "notmbox")],
                 ["--maildir", str(tmp_path / "plain")]):
        r = cli(home, "inbox", *args)
        assert r.exit_code == 1, (args, r.output)
        assert "Error:" in r.output
    assert cli(home, "inbox").exit_code == 2
    assert cli(home, "inbox", "--mbox", "a", "--maildir", "b").exit_code == 2
    empty = tmp_path / "empty.mbox"
    empty.write_bytes(b"")
    r = cli(home, "inbox", "--mbox", str(empty))
    assert r.exit_code == 0 and "0 messages" in r.stdout


# ---- pbem send ------------------------------------------------------------------------------


class Recorder:
    """An aiosmtpd handler that keeps every accepted message; it refuses some recipients."""

    def __init__(self, refuse: tuple[str, ...] = ()) -> None:
        self.refuse = set(refuse)
        self.messages: list[tuple[str, list[str], EmailMessage]] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        if address in self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[Recorder, Controller, str]]:
    handler = Recorder()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, controller, f"127.0.0.1:{port}"
    finally:
        controller.stop()


def parts(msg: EmailMessage) -> tuple[str, str]:
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content().replace("\r\n", "\n"), html.get_content().replace("\r\n", "\n")


def test_send_delivers_each_report_once_to_its_own_recipient(tmp_path: Path, smtp: Any) -> None:
    handler, _, server = smtp
    home = tmp_path / "home"
    keys = make_games(home, "g", "h")
    home_ = Home(home)
    for side in Side:  # game g: step 1 resolves, so g has the reports of steps 1 and 2
        home_.receive(signed(keys["g"], "g", side, year_start_orders(home, "g", side)).to_json().encode())
    unsent = {}
    for gid in ("g", "h"):
        with home_.open(gid) as st:
            unsent[gid] = st.with_bodies([r for r in st.outbox(kind=None) if r.sent is None])
    assert len(unsent["g"]) == 12 and len(unsent["h"]) == 6

    r = cli(home, "send", "--smtp", server, "--from", "Club PBEM <pbem@club.example>")
    assert r.exit_code == 0, (r.output, r.exception)
    assert "h: moderator has no email address" in r.stdout
    # Step 2 of g asks only Player 1 for orders: the other player's step-2 report waits for his next mail.
    with home_.open("g") as st:
        (idle,) = [s for s in ("Caesar", "Pompey") if s not in st.status().awaiting]
    assert r.stdout.splitlines()[-1] == ("7 message(s) sent; 1 without an address; 1 held for the "
                                         "player's next mail that asks something of him")
    # g: Caesar, Pompey and the moderator at step 1, Player 1 and the moderator at step 2; h: Caesar and Pompey.
    assert len(handler.messages) == 7
    delivered = set()
    for mail_from, rcpts, msg in handler.messages:
        assert mail_from == "pbem@club.example"
        assert len(rcpts) == 1 and msg["To"] == rcpts[0]
        assert msg.get_content_type() == "multipart/mixed"  # text | HTML with the map as PNG; the report attached
        assert msg["Auto-Submitted"] == "auto-generated"
        subject = " ".join(msg["Subject"].split())  # a long Subject may be folded after the colon
        gid = "g" if subject.startswith("[g]") else "h"
        (recipient,) = [who for who, addr in EMAILS[gid].items() if addr == rcpts[0]]
        text, html = parts(msg)
        if recipient != "moderator":  # a player's report ends with how to answer it
            text, footer = text.rstrip("\n").rsplit("\n\n", 1)
            assert footer.startswith("To answer:") and len(footer.splitlines()) == 3
        own = [row for row in unsent[gid] if row.recipient == recipient and row.body
               and row.body.strip() == text.strip()]
        assert len(own) == 1, (gid, recipient)
        step = own[0].step
        assert subject == own[0].subject
        (own_html,) = [row for row in unsent[gid] if (row.recipient, row.step, row.format) == (recipient, step, "html")]
        (attached,) = [p for p in msg.iter_attachments() if p.get_content_type() == "text/html"]
        assert attached.get_content().replace("\r\n", "\n").strip() == (own_html.body or "").strip()
        assert html.split("<img src=\"cid:")[0] == (own_html.body or "").split("<svg")[0]
        assert ('<p class="answer"' in html) == (recipient != "moderator")
        for row in unsent[gid]:  # nothing of another recipient's reports, of any step
            if row.recipient != recipient:
                assert (row.body or "").strip() not in text and (row.body or "").strip() not in html
                assert (row.body or "").strip() not in attached.get_content()
        delivered.add((gid, step, recipient))
    assert len(delivered) == 7
    for gid in ("g", "h"):
        with home_.open(gid) as st:
            for row in st.outbox(kind=None):
                assert (row.sent is None) == ((row.recipient == "moderator" and gid == "h")
                                              or (gid, row.step, row.recipient) == ("g", 2, idle)), row

    again = cli(home, "send", "--smtp", server, "--from", "pbem@club.example", "--json")
    assert again.exit_code == 0
    assert len(handler.messages) == 7  # nothing sent twice
    assert {x["status"] for x in json.loads(again.stdout)["results"]} == {"no address", "held"}


def test_refused_message_stays_unsent(tmp_path: Path, smtp: Any) -> None:
    handler, _, server = smtp
    home = tmp_path / "home"
    make_games(home, "g")
    handler.refuse = {EMAILS["g"]["Caesar"]}
    r = cli(home, "send", "--smtp", server, "--from", "pbem@club.example")
    assert r.exit_code == 1
    assert "g: step 1 report for Caesar -> ann@example.org: refused by the server (550 5.1.1 mailbox unavailable)" \
        in r.stdout
    assert sorted(rcpts[0] for _, rcpts, _ in handler.messages) == ["bob@example.net", "mod@example.com"]
    with Home(home).open("g") as st:
        assert {row.recipient for row in st.outbox() if row.sent is None} == {"Caesar"}
    handler.refuse = set()
    assert cli(home, "send", "--smtp", server, "--from", "pbem@club.example").exit_code == 0
    assert [rcpts[0] for _, rcpts, _ in handler.messages][-1] == "ann@example.org"
    with Home(home).open("g") as st:
        assert all(row.sent for row in st.outbox())


def test_send_uses_bdat_when_the_server_offers_chunking(tmp_path: Path) -> None:
    """With CHUNKING (RFC 3030) the message goes as one BDAT chunk and an empty last one: the same
    bytes as with DATA; a message refused at its end stays unsent."""
    from crashkit import LocalSmtp

    got: dict[bool, list[EmailMessage]] = {}
    for chunking in (False, True):
        home = tmp_path / f"home-{chunking}"
        make_games(home, "g")
        server = LocalSmtp([], lambda: None, chunking=chunking, keep=True)
        try:
            r = cli(home, "send", "--smtp", f"127.0.0.1:{server.port}", "--from", "pbem@club.example")
        finally:
            server.close()
        assert r.exit_code == 0, r.output
        assert server.bdat == (2 * len(server.kept) if chunking else 0)
        got[chunking] = [email.message_from_bytes(raw, policy=policy.default) for raw in server.kept]  # type: ignore[misc]
    assert len(got[True]) == len(got[False]) == 3
    for a, b in zip(got[False], got[True], strict=True):  # two games made apart: other Message-IDs, the same parts
        assert [p.get_content_type() for p in a.walk()] == [p.get_content_type() for p in b.walk()]
        for kind in ("text/plain", "image/png"):
            (pa,), (pb,) = ([p for p in m.walk() if p.get_content_type() == kind] for m in (a, b))
            assert pa.get_content() == pb.get_content()

    home = tmp_path / "home-refused"
    make_games(home, "g")
    server = LocalSmtp([], lambda: None, chunking=True)
    server.answer = "554 5.7.1 rejected by the content filter"
    try:
        r = cli(home, "send", "--smtp", f"127.0.0.1:{server.port}", "--from", "pbem@club.example")
    finally:
        server.close()
    assert r.exit_code == 1 and "refused by the server (554 5.7.1 rejected by the content filter)" in r.stdout
    with Home(home).open("g") as st:
        assert all(row.sent is None for row in st.outbox())


def test_dry_run_and_no_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_games(home, "g")
    out = tmp_path / "outgoing"
    r = cli(home, "send", "--game", "g", "--from", "pbem@club.example", "--dry-run", str(out))
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in (out / "g").iterdir())
    assert files == ["step-001-report-Caesar.eml", "step-001-report-Pompey.eml", "step-001-report-moderator.eml"]
    msg = email.message_from_bytes((out / "g" / files[0]).read_bytes(), policy=policy.default)
    assert isinstance(msg, EmailMessage) and msg["To"] == "ann@example.org"
    with Home(home).open("g") as st:
        caesar = st.report("Caesar").body or ""
        assert all(row.sent is None for row in st.outbox())  # a dry run marks nothing
    assert parts(msg)[0].startswith(caesar.rstrip("\n") + "\n\nTo answer:")
    # Nobody listens on this port: exit 1 with a message, and nothing is marked sent.
    r = cli(home, "send", "--smtp", f"127.0.0.1:{_free_port()}", "--from", "pbem@club.example")
    assert r.exit_code == 1 and "cannot use the mail server" in r.output
    assert cli(home, "send", "--from", "pbem@club.example", "--user", "mod", env={"PBEM_SMTP_PASSWORD": None}
               ).exit_code == 2
    assert cli(home, "send", "--from", "nobody", "--dry-run", str(out)).exit_code == 2


# ---- replies to submissions that came by email ---------------------------------------------


def test_replies_to_mailed_submissions(tmp_path: Path, smtp: Any) -> None:
    handler, _, server = smtp
    home = tmp_path / "home"
    keys = make_games(home, "g", "h")
    with Home(home).open("g") as st:  # a mail at every step, and every reply on its own (no folding)
        for side in Side:
            st.set_folding(side.value, False)
    stranger = {s: generate_keypair() for s in Side}
    caesar = signed(keys["g"], "g", C, year_start_orders(home, "g", C))
    froms = ["someone@elsewhere.example", "bob.private@example.net", "eve@evil.example", "ann.work@example.org",
             "bob.private@example.net"]
    raws = [
        plain_mail(caesar.to_armor(), "r1@x", froms[0]),  # accepted, sealed
        plain_mail(signed(keys["g"], "g", P, "discard 9/9\nplay nonsense\n").to_armor(), "r2@x", froms[1]),
        plain_mail(signed(stranger, "g", C, year_start_orders(home, "g", C)).to_armor(), "r3@x", froms[2]),  # forged
        plain_mail(caesar.to_armor(), "r4@x", froms[3], subject="again"),  # duplicate of #1
        plain_mail(signed(keys["g"], "g", P, year_start_orders(home, "g", P)).to_armor(), "r5@x", froms[4]),
    ]
    path = tmp_path / "pbem.mbox"
    box = mailbox.mbox(str(path))
    for raw in raws:
        box.add(raw)
    box.close()
    r = cli(home, "inbox", "--mbox", str(path))
    assert r.exit_code == 0, (r.output, r.exception)
    assert [v for v, _, _ in submissions(home)["g"]] == ["accepted", "rejected", "rejected", "duplicate", "accepted"]
    with Home(home).open("g") as st:
        rejected = st.receipt(2)
        assert rejected.errors and st.status().step == 2  # #5 resolved step 1

    # A file given to `pbem submit` gets its answer on the terminal: no reply is queued.
    orders = tmp_path / "orders.json"
    orders.write_text(signed(keys["h"], "h", C, year_start_orders(home, "h", C)).to_json())
    assert cli(home, "submit", str(orders)).exit_code == 0
    orders.write_text(signed(stranger, "h", P, year_start_orders(home, "h", P)).to_json())
    assert cli(home, "submit", str(orders)).exit_code == 1
    with Home(home).open("h") as st:
        assert [row for row in st.outbox(kind="reply")] == []

    r = cli(home, "send", "--smtp", server, "--from", "pbem@club.example")
    assert r.exit_code == 0, (r.output, r.exception)
    replies = {}
    for _, rcpts, msg in handler.messages:
        assert rcpts[0] not in froms and msg["To"] == rcpts[0]
        subject = " ".join(msg["Subject"].split())
        if "your submission #" in subject:
            assert msg.get_content_type() == "text/plain"
            replies[subject] = (rcpts[0], msg.get_content().replace("\r\n", "\n"))
    ann, bob = EMAILS["g"]["Caesar"], EMAILS["g"]["Pompey"]
    assert sorted(replies) == ["[g] step 1: your submission #1: accepted", "[g] step 1: your submission #2: rejected",
                               "[g] step 1: your submission #3: rejected", "[g] step 1: your submission #4: duplicate",
                               "[g] step 1: your submission #5: accepted"]
    to1, body1 = replies["[g] step 1: your submission #1: accepted"]
    assert to1 == ann and "they stay sealed until the step resolves; you may revise them until then" in body1
    to2, body2 = replies["[g] step 1: your submission #2: rejected"]
    assert to2 == bob and rejected.reason in body2
    for e in rejected.errors:
        assert e["message"] in body2
    to3, body3 = replies["[g] step 1: your submission #3: rejected"]
    assert to3 == ann  # the side it claims to be, at its registered address: the forger gets nothing
    assert body3 == ("A message claiming to be your orders for game g failed verification and was ignored; "
                     "if it was you, sign again with your key.\n")
    to4, body4 = replies["[g] step 1: your submission #4: duplicate"]
    assert to4 == ann and "an exact resend of submission #1; nothing changed" in body4
    to5, body5 = replies["[g] step 1: your submission #5: accepted"]
    assert to5 == bob and "resolved step 1" in body5 and len(body5.splitlines()) == 1
    count = len(handler.messages)
    assert cli(home, "send", "--smtp", server, "--from", "pbem@club.example").exit_code == 0
    assert len(handler.messages) == count  # nothing sent twice
    assert cli(home, "verify").exit_code == 0


def test_game_file_of_the_old_schema_is_refused(tmp_path: Path) -> None:
    import sqlite3

    home = tmp_path / "home"
    make_games(home, "g")
    with sqlite3.connect(home / "g.db") as db:  # a file of the first format (no outbox.submission_id)
        db.execute("UPDATE game SET schema_version = 'pbem-store 1'")
    db.close()
    r = cli(home, "status", "--game", "g")
    assert r.exit_code == 1 and "format 'pbem-store 1', this one reads 'pbem-store 3' and 'pbem-store 2'" in r.output

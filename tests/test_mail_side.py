"""The mail a player receives: replies and reports thread in his mail program, a signature for
the wrong game is answered to the signer, the map travels as a PNG, a plain reply with a
password plays, and a player gets at most one mail per step."""

from __future__ import annotations

import email
import mailbox
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.envelope import generate_keypair
from pbem.games.caesar.rules.board import Side
from pbem.store import Home, PlayerSetup
from pbem.transport.inbox import read_inbox
from pbem.transport.outbox import DryRunTransport, send_outbox
from test_mail import make_games, plain_mail, signed, year_start_orders

C, P = Side.CAESAR, Side.POMPEY
SENDER = "Club PBEM <pbem@club.example>"


def feed(home: Path, mbox: Path, *raws: bytes) -> None:
    box = mailbox.mbox(str(mbox))
    for raw in raws:
        box.add(raw)
    box.close()
    read_inbox(Home(home), mbox=mbox)


def sent_mail(home: Path, out: Path, game: str | None = None) -> list[EmailMessage]:
    """Send the outbox into ``out`` (a dry run that marks the rows sent) and read back every message."""
    before = set(out.rglob("*.eml")) if out.exists() else set()
    results, failure = send_outbox(Home(home), DryRunTransport(out), SENDER, game=game)
    assert not failure
    msgs = []
    for r in results:
        assert r.status in ("sent", "no address", "held"), r
    for path in sorted(set(out.rglob("*.eml")) - before):
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(msg, EmailMessage)
        msgs.append(msg)
    return msgs


def subject(msg: EmailMessage) -> str:
    return " ".join(str(msg["Subject"]).split())


# ---- threading ------------------------------------------------------------------------------


def test_replies_and_reports_thread_and_name_the_step_of_the_submission(tmp_path: Path) -> None:
    home, mbox, out = tmp_path / "home", tmp_path / "in.mbox", tmp_path / "out"
    keys = make_games(home, "g")["g"]
    with Home(home).open("g") as st:  # every reply on its own (no folding: tested below)
        for side in Side:
            st.set_folding(side.value, False)
    caesar = signed(keys, "g", C, year_start_orders(home, "g", C))
    pompey = signed(keys, "g", P, year_start_orders(home, "g", P))
    first = sent_mail(home, out)  # the step-1 reports
    reports1 = {str(m["To"]): m for m in first}
    feed(home, mbox, plain_mail(caesar.to_armor(), "c1@ann.example", "ann@example.org"),
         plain_mail(pompey.to_armor(), "p1@bob.example", "bob@example.net"))
    with Home(home).open("g") as st:
        assert st.status().step == 2
    # Step 1 is resolved: an exact resend of Caesar's orders, and new orders for step 1, come late.
    late = signed(keys, "g", C, year_start_orders(home, "g", C).replace("discard", "# late\ndiscard"))
    feed(home, mbox, plain_mail(caesar.to_armor(), "c2@ann.example", "ann@example.org", subject="again"),
         plain_mail(late.to_armor(), "c3@ann.example", "ann@example.org", subject="late"))
    msgs = sent_mail(home, out)
    by_subject = {subject(m): m for m in msgs}
    dup = by_subject["[g] step 1: your submission #3: duplicate"]
    assert "Game g, step 1, submission #3:" in dup.get_content()
    rej = by_subject["[g] step 1: your submission #4: rejected"]
    assert "Game g, step 1, submission #4: rejected: this answers step 1, but the game is at step 2" \
        in rej.get_content()
    # Each reply answers the player's own message, in the game's thread.
    assert dup["In-Reply-To"] == "<c2@ann.example>" and rej["In-Reply-To"] == "<c3@ann.example>"
    acc = by_subject["[g] step 1: your submission #1: accepted"]
    assert acc["In-Reply-To"] == "<c1@ann.example>"
    root = str(acc["References"]).split()[0]
    assert str(acc["References"]).split() == [root, "<c1@ann.example>"]
    # The step-2 report to Caesar answers his step-1 report, under the same thread head.
    (report2,) = [m for m in msgs if m["To"] == "ann@example.org" and subject(m).startswith("[g] step 2:")]
    report1 = reports1["ann@example.org"]
    assert report2["In-Reply-To"] == report1["Message-ID"]
    assert str(report2["References"]).split() == [root, report1["Message-ID"]]
    assert report1["In-Reply-To"] == root and str(report1["References"]) == root
    # Another recipient's thread is another one.
    bob = reports1["bob@example.net"]
    assert str(bob["References"]) != root


# ---- signed for the wrong game ---------------------------------------------------------------


def test_a_key_of_another_game_is_answered_to_its_signer(tmp_path: Path) -> None:
    from pbem.envelope import generate_keypair

    home, mbox, out = tmp_path / "home", tmp_path / "in.mbox", tmp_path / "out"
    keys = make_games(home, "g", "h")
    sent_mail(home, out)  # the step-1 reports, out of the way
    stranger = {s: generate_keypair() for s in Side}
    wrong_game = signed(keys["h"], "g", C, year_start_orders(home, "g", C))  # h's Caesar signs for g
    forged = signed(stranger, "g", C, year_start_orders(home, "g", C))
    feed(home, mbox, plain_mail(wrong_game.to_armor(), "w1@cat.example", "cat@example.org"),
         plain_mail(forged.to_armor(), "f1@eve.example", "eve@evil.example"))
    msgs = sent_mail(home, out)
    assert sorted((str(m["To"]), subject(m)) for m in msgs) == [
        ("ann@example.org", "[g] step 1: your submission #2: rejected"),  # the forgery: g's Caesar is told
        ("cat@example.org", "[g] step 1: your submission #1: rejected"),  # the signer, at his address in h
    ]
    (to_cat,) = [m for m in msgs if m["To"] == "cat@example.org"]
    text = to_cat.get_content()
    assert "signed by you as Caesar of h; this was sent for g" in text
    assert to_cat["In-Reply-To"] == "<w1@cat.example>"
    (to_ann,) = [m for m in msgs if m["To"] == "ann@example.org"]
    assert "failed verification" in to_ann.get_content() and "h" not in to_ann.get_content().split()
    with Home(home).open("g") as st:
        assert [s.verdict for s in st.submissions()] == ["rejected", "rejected"]
        assert st.status().step == 1
    with Home(home).open("h") as st:
        assert st.submissions() == [] and st.outbox(kind="reply") == []  # nothing in h's file


# ---- the map as a PNG -----------------------------------------------------------------------


def test_the_html_mail_carries_the_map_as_a_png_and_the_whole_report_attached(tmp_path: Path) -> None:
    import re
    from html import unescape as html_unescape

    from pngcheck import read_png

    home, out = tmp_path / "home", tmp_path / "out"
    make_games(home, "g")
    msgs = {str(m["To"]): m for m in sent_mail(home, out)}
    msg = msgs["ann@example.org"]
    with Home(home).open("g") as st:
        stored = st.report("Caesar", "html").body or ""
        text = st.report("Caesar", "text").body or ""
    assert "<svg" in stored
    assert msg.get_content_type() == "multipart/mixed"
    plain = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    assert plain is not None and html is not None
    assert plain.get_content().replace("\r\n", "\n").startswith(text.rstrip("\n") + "\n\nTo answer:")
    body = html.get_content()
    assert "<svg" not in body  # webmail drops inline SVG: the map is an image
    ((cid, alt),) = re.findall(r'<img src="cid:([^"]+)" alt="([^"]+)"', body)
    assert html_unescape(alt).startswith("Caesar's view: 705")  # the map's description, for blocked images
    related = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert len(related) == 1 and related[0]["Content-ID"] == f"<{cid}>"
    png = related[0].get_content()
    image = read_png(png)
    assert (image.width, image.height) == (1600, 800)
    colours = image.colours()
    # Drawn, not blank: the sea, Caesar's tan and Pompey's green blocks are there in quantity.
    assert len(colours) > 50 and colours.most_common(1)[0][1] < image.width * image.height * 0.9
    assert any(abs(r - 0xd2) < 8 and abs(g - 0xb4) < 8 and abs(b - 0x8c) < 8 for r, g, b in colours)
    # The whole report, with its SVG map, is attached as a file any browser opens.
    (attached,) = [p for p in msg.iter_attachments() if p.get_content_type() == "text/html"]
    assert attached.get_filename() == "g-step-001-Caesar.html"
    assert attached.get_content().replace("\r\n", "\n").strip() == stored.strip()
    # Outside the map the mail's HTML is the report's.
    body = re.sub(r'<p class="answer".*?</p>\n', "", body, flags=re.S)
    assert re.sub(r"<img src=\"cid:[^>]*>", "", body).replace("\r\n", "\n").strip() == \
        re.sub(r"<svg\b.*?</svg>", "", stored, flags=re.S).strip()


# ---- playing with nothing but a mail program ---------------------------------------------


def password_game(home: Path) -> dict[Side, object]:
    from pbem.envelope import generate_keypair, hash_password
    from pbem.store import GameSetup, PlayerSetup

    keys = {P: generate_keypair()}
    Home(home).create(GameSetup("g", (
        PlayerSetup(C, "ann@example.org", password_hash=hash_password("open sesame")),
        PlayerSetup(P, "bob@example.net", public_key=keys[P].public_text)), seed=11)).close()
    return keys  # type: ignore[return-value]


def reply_mail(orders: str, msg_id: str, subject: str, *, sender: str = "Ann <ann@example.org>",
               received: str = "") -> bytes:
    body = (f"{orders}\n\nOn Mon, 23 Nov 2026 at 16:00, Club PBEM <pbem@club.example> wrote:\n"
            "> JULIUS CAESAR\n> move Genua -> Roma: Legio 8\n> password: the quoted report is left out\n"
            "\n-- \nAnn\nplay Vulcan\n")
    head = (received + f"From: {sender}\nTo: pbem@club.example\nSubject: {subject}\n"
            f"Date: Mon, 23 Nov 2026 17:01:00 +0100\nMessage-ID: <{msg_id}>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n")
    return (head + body).encode()


def test_a_plain_reply_with_a_password_plays(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    password_game(home)
    with Home(home).open("g") as st:  # every reply on its own (no folding: tested below)
        st.set_folding("Caesar", False)
    first = {str(m["To"]): m for m in sent_mail(home, out)}
    ann = first["ann@example.org"].get_body(preferencelist=("plain",))
    bob = first["bob@example.net"].get_body(preferencelist=("plain",))
    assert ann is not None and bob is not None
    ann_end = ann.get_content().rstrip("\n").splitlines()[-3:]
    assert ann_end == ["To answer: reply to this mail and keep its subject ([g] step 1).",
                       "Write your orders, one per line, and one line: password: YOUR PASSWORD",
                       "Quoted text and your signature are left out; a reply tells you what was accepted."]
    bob_end = bob.get_content().rstrip("\n").splitlines()[-3:]
    assert bob_end[0].startswith("To answer:") and \
        bob_end[1] == "  pbem sign --game g --side Pompey --step 1 --key YOUR.key --armor < orders.txt"
    subject1 = subject(first["ann@example.org"])

    orders = year_start_orders(home, "g", C).strip()
    raw = reply_mail(f"{orders}\npassword: open sesame", "plain1@ann.example", "Re: " + subject1)
    feed(home, tmp_path / "a.mbox", raw)
    # The same message again (delivered a second time, other transport headers): a duplicate.
    feed(home, tmp_path / "b.mbox", reply_mail(f"{orders}\npassword: open sesame", "plain1@ann.example",
                                               "Re: " + subject1, received="Received: from relay2\n"))
    # A new message whose subject names the game but no step: the step of Ann's last report, step 1.
    feed(home, tmp_path / "c.mbox", reply_mail(f"password: open sesame\n{orders}", "plain2@ann.example",
                                               "[g] my orders"))
    # A wrong password: the fixed sentence; nothing applied.
    feed(home, tmp_path / "d.mbox", reply_mail(f"{orders}\npassword: open sesam", "plain3@ann.example",
                                               "Re: " + subject1))
    with Home(home).open("g") as st:
        subs = st.submissions()
        assert [(s.verdict, s.side, s.step) for s in subs] == [
            ("superseded", "Caesar", 1), ("duplicate", "Caesar", 1), ("accepted", "Caesar", 1),
            ("rejected", "Caesar", 1)]
        assert subs[0].orders == orders and subs[2].related == 1
        assert st.status().step == 1 and st.status().received == ("Caesar",)
    data = (home / "g.db").read_bytes() + b"".join(p.read_bytes() for p in home.glob("g.db-*"))
    assert b"open sesame" not in data and b"open sesam" not in data  # never stored, right or wrong
    replies = {subject(m): m.get_content() for m in sent_mail(home, out)}
    assert "your orders for step 1 were received" in replies["[g] step 1: your submission #1: accepted"]
    assert "an exact resend of submission #1" in replies["[g] step 1: your submission #2: duplicate"]
    assert "failed verification" in replies["[g] step 1: your submission #4: rejected"]
    from pbem.store import Home as H
    with H(home).open("g") as st:
        assert st.verify().ok


def test_a_plain_reply_that_cannot_be_read_is_refused_once_and_not_tried_again(tmp_path: Path) -> None:
    """Alone in the mailbox as in a batch: refused with the reason, stored nowhere, never fed again
    (before, a lone one was an error to try again at every run, and every `pbem run` exited 1)."""
    home, mbox = tmp_path / "home", tmp_path / "in.mbox"
    password_game(home)
    box = mailbox.mbox(str(mbox))
    box.add(reply_mail("play 3/2\npassword: open sesame", "stranger@x.example", "Re: [g] step 1: ...",
                       sender="Someone <someone@elsewhere.example>"))
    box.close()
    first = read_inbox(Home(home), mbox=mbox)
    (r,) = first.results
    assert r.outcome == "delivered" and r.receipt is not None and r.receipt.verdict.value == "rejected"
    assert r.line().startswith("g: rejected, not stored: a plain reply with a password that cannot be read")
    assert "add a line 'side: NAME'" in r.line() and not first.failed
    assert read_inbox(Home(home), mbox=mbox).counts()["already processed"] == 1
    with Home(home).open("g") as st:
        assert st.submissions() == []  # it holds a password: nothing of it is stored


# ---- one mail per step that asks something -------------------------------------------------


def test_steps_that_ask_nothing_are_folded_into_the_next_mail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    from pbem.core.rng import Rng
    from pbem.envelope import new_envelope, sign_envelope
    from pbem.games.caesar.rules.autoplay import random_orders

    monkeypatch.setattr("pbem.transport.outbox.mail_map", lambda html, mid: (html, None))  # the PNG is tested above; slow here
    home, out = tmp_path / "home", tmp_path / "out"
    keys = make_games(home, "g")["g"]
    with Home(home).open("g") as st:
        st.set_folding("Pompey", False)  # Pompey opts out: a mail at every step
        assert st.folding() == {"Caesar": True, "Pompey": False}
    mails: dict[str, list[tuple[int, list[int], object]]] = {"Caesar": [], "Pompey": []}

    def send() -> None:
        results, failure = send_outbox(Home(home), DryRunTransport(out), SENDER, game="g")
        assert not failure
        for r in results:
            if r.status == "sent" and r.kind == "report" and r.recipient in mails:
                mails[r.recipient].append((r.step, r.folded, r))  # type: ignore[arg-type]

    send()
    rng, n = Rng(3), 0
    while n < 40:
        with Home(home).open("g") as st:
            status = st.status()
            if status.step > 14:
                break
            side = next(s for s in status.awaiting if s not in status.received)
            session = st.adjudication().session
            orders = random_orders(session, Side(side), rng)
            env = new_envelope("g", side, status.step, orders,
                               nonce=hashlib.sha256(str(n).encode()).hexdigest()[:32])
            st.receive(sign_envelope(env, keys[Side(side)].private_pem).to_json().encode())
            n += 1
        send()
    with Home(home).open("g") as st:
        last = st.status().step
        asks = st.asks(range(1, last + 1))
        reports = {(r.recipient, r.step, r.format): r for r in st.outbox()}
    assert [s for s, _, _ in mails["Pompey"]] == list(range(1, last + 1))  # opted out: every step
    caesar = [s for s, _, _ in mails["Caesar"]]
    assert len(caesar) == len(set(caesar))  # at most one mail a step
    asked = [s for s in range(1, last + 1) if "Caesar" in asks[s][0] or asks[s][1]]
    assert caesar == asked and len(asked) < last  # exactly the steps that ask him something
    held = [s for s in range(1, last + 1) if s not in asked]
    assert sorted(s for _, folded, _ in mails["Caesar"] for s in folded) == [s for s in held if s < caesar[-1]]
    for (s, _, _), (prev, _, _) in zip(mails["Caesar"][1:], mails["Caesar"]):
        # His report tells everything since his last mail, the folded steps included.
        assert reports[("Caesar", s, "text")].since_event == reports[("Caesar", prev, "text")].upto_event
    with Home(home).open("g") as st:
        assert st.verify().ok


def test_a_folding_player_gets_his_acceptances_in_his_next_report_mail(tmp_path: Path) -> None:
    home, mbox, out = tmp_path / "home", tmp_path / "in.mbox", tmp_path / "out"
    keys = make_games(home, "g")["g"]
    sent_mail(home, out)  # the step-1 reports
    caesar = signed(keys, "g", C, year_start_orders(home, "g", C))
    feed(home, mbox, plain_mail(caesar.to_armor(), "c1@ann.example", "ann@example.org"))
    assert sent_mail(home, out) == []  # the acceptance waits for his next report mail
    bad = signed(keys, "g", C, "discard 9/9\nplay nonsense\n")
    feed(home, tmp_path / "b.mbox", plain_mail(bad.to_armor(), "c2@ann.example", "ann@example.org"))
    (rejection,) = sent_mail(home, out)  # a rejection goes at once: he must send again
    assert subject(rejection) == "[g] step 1: your submission #2: rejected"
    pompey = signed(keys, "g", P, year_start_orders(home, "g", P))
    feed(home, tmp_path / "c.mbox", plain_mail(pompey.to_armor(), "p1@bob.example", "bob@example.net"))
    msgs = sent_mail(home, out)
    with Home(home).open("g") as st:
        awaited = st.status().awaiting
        caesar_reply = next(r for r in st.outbox(kind="reply") if r.submission_id == 1)
        assert (caesar_reply.sent is not None) == ("Caesar" in awaited)
    for who, addr in (("Caesar", "ann@example.org"), ("Pompey", "bob@example.net")):
        mine = [m for m in msgs if m["To"] == addr]
        if who not in awaited:
            assert mine == []  # nothing asked of him: his report and reply wait for his next mail
            continue
        (report,) = mine
        assert subject(report).startswith("[g] step 2:")
        text = report.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        sid = 1 if who == "Caesar" else 3
        assert text.startswith(f"Game g, step 1, submission #{sid}: your orders")


def test_a_substitute_gets_the_position_at_once_though_the_step_asks_nothing_of_his_side(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    keys = make_games(home, "g")["g"]
    with Home(home).open("g") as st:
        for side in Side:
            assert st.receive(signed(keys, "g", side, year_start_orders(home, "g", side)).to_json().encode()).resolved or side is C
        (idle,) = [s for s in ("Caesar", "Pompey") if s not in st.status().awaiting]  # step 2 asks one side
    sent_mail(home, out)
    with Home(home).open("g") as st:
        assert [r.sent for r in st.outbox(kind="report") if r.recipient == idle and r.step == 2] == [None, None]
        st.moderator_action("replace", idle, substitute=PlayerSetup(idle, "cato@example.org",
                                                                    public_key=generate_keypair().public_text))
    msgs = [m for m in sent_mail(home, out) if m["To"] == "cato@example.org"]
    assert [subject(m).split(":")[0] for m in msgs] == ["[g] step 2"]  # his own mail, not held for a later one
    text = msgs[0].get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    assert f"report for {idle}" in text
    with Home(home).open("g") as st:
        assert all(r.sent for r in st.outbox(kind="report") if r.recipient == idle)


def test_a_player_opts_out_of_folding_and_back_in_by_a_mail_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'mailing every step' in a player's mail: from then on a report mail at every step; 'mailing fold'
    later: back to one mail per step that asks something of him, the steps between folded into it."""
    import hashlib

    from pbem.core.rng import Rng
    from pbem.envelope import new_envelope, sign_envelope
    from pbem.games.caesar.rules.autoplay import random_orders

    monkeypatch.setattr("pbem.transport.outbox.mail_map", lambda html, mid: (html, None))  # the PNG is tested above; slow here
    home, mbox, out = tmp_path / "home", tmp_path / "in.mbox", tmp_path / "out"
    keys = make_games(home, "g")["g"]
    mails: dict[str, list[tuple[int, list[int]]]] = {"Caesar": [], "Pompey": []}

    def send() -> None:
        results, failure = send_outbox(Home(home), DryRunTransport(out), SENDER, game="g")
        assert not failure
        for r in results:
            if r.status == "sent" and r.kind == "report" and r.recipient in mails:
                mails[r.recipient].append((r.step, r.folded))

    send()
    # a mail in: Pompey's orders for step 1 with the line (in Spanish words: any language's work)
    pompey = signed(keys, "g", P, "# cada etapa, por favor\ncorreo cada etapa\n" + year_start_orders(home, "g", P))
    caesar = signed(keys, "g", C, year_start_orders(home, "g", C))
    feed(home, mbox, plain_mail(pompey.to_armor(), "p1@bob.example", "bob@example.net"),
         plain_mail(caesar.to_armor(), "c1@ann.example", "ann@example.org"))
    with Home(home).open("g") as st:
        assert st.folding() == {"Caesar": True, "Pompey": False}  # the setting changed
        assert st.status().step == 2 and st.submissions()[0].verdict == "accepted"
    send()
    rng, n, back_at = Rng(3), 0, 0
    while n < 60:
        with Home(home).open("g") as st:
            status = st.status()
            if status.step > 24:
                break
            side = next(s for s in status.awaiting if s not in status.received)
            session = st.adjudication().session
            orders = random_orders(session, Side(side), rng)
            if side == "Pompey" and not back_at and status.step >= 10:
                back_at, orders = status.step, "mailing fold\n" + orders  # back to folding
            env = new_envelope("g", side, status.step, orders, nonce=hashlib.sha256(str(n).encode()).hexdigest()[:32])
            assert st.receive(sign_envelope(env, keys[Side(side)].private_pem).to_json().encode()).verdict.value == "accepted"
            n += 1
        send()
    with Home(home).open("g") as st:
        last = st.status().step
        asks = st.asks(range(1, last + 1))
        assert st.folding() == {"Caesar": True, "Pompey": True}
        assert st.verify().ok
    assert back_at
    pompey_steps = [s for s, _ in mails["Pompey"]]
    asked = [s for s in range(1, last + 1) if "Pompey" in asks[s][0] or asks[s][1]]
    # opted out: a mail at every step up to the one whose submission opted back in
    assert [s for s in pompey_steps if s <= back_at] == list(range(1, back_at + 1))
    assert all(not folded for s, folded in mails["Pompey"] if s <= back_at)
    # opted back in: only the steps that ask him something, the others folded into them
    after = [s for s in pompey_steps if s > back_at]
    assert after == [s for s in asked if s > back_at] and len(after) < last - back_at
    folded = sorted(f for s, fs in mails["Pompey"] if s > back_at for f in fs)
    assert folded and folded == [s for s in range(back_at + 1, after[-1]) if s not in asked]


@pytest.mark.parametrize(("line", "fold"), [
    ("mailing every step", False), ("Mailing: every-step", False), ("correo cada etapa", False),
    ("utskick varje etapp", False), ("mailing fold", True), ("CORREO agrupar", True), ("utskick samla", True),
    ("move Genua -> Roma: Legio 8", None), ("language es", None),
])
def test_the_mailing_line_in_every_language(line: str, fold: bool | None) -> None:
    from pbem.core.mailing import mailing_line

    assert mailing_line(line) is fold


def test_a_mailing_line_with_another_choice_is_rejected_naming_the_line(game: tuple[Path, dict[Side, object]]) -> None:
    from pbem.store import Verdict
    from store_helpers import signed as signed_bytes

    home, keys = game
    with Home(home).open("g") as st:
        orders = "mailing sometimes\n" + year_start_orders(home, "g", P)
        out = st.receive(signed_bytes(keys, P, 1, orders))  # type: ignore[arg-type]
        assert out.verdict is Verdict.REJECTED and st.folding()["Pompey"] is True
        assert [e["line"] for e in out.errors] == [1]
        assert "'sometimes' is not a choice; write 'mailing every step'" in out.errors[0]["message"]


def test_a_spanish_players_mail_is_spanish_and_his_reply_to_it_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The subject, the report and the three lines on how to answer come in his language; a plain
    reply keeping the Spanish subject ('[g] etapa 2') answers that step."""
    from dataclasses import replace

    from pbem.envelope import generate_keypair, hash_password
    from pbem.store import GameSetup, PlayerSetup

    monkeypatch.setattr("pbem.transport.outbox.mail_map", lambda html, mid: (html, None))
    home, out = tmp_path / "home", tmp_path / "out"
    keys = {P: generate_keypair()}
    Home(home).create(GameSetup("g", (
        replace(PlayerSetup(C, "ann@example.org", password_hash=hash_password("open sesame")), language="es"),
        replace(PlayerSetup(P, "bob@example.net", public_key=keys[P].public_text), language="sv")), seed=11)).close()
    first = {str(m["To"]): m for m in sent_mail(home, out)}
    ann, bob = first["ann@example.org"], first["bob@example.net"]
    assert subject(ann).startswith("[g] etapa 1: Comienza el Año 705: descarta 1 carta y juega 1 carta")
    assert subject(bob).startswith("[g] etapp 1: År 705 börjar: kasta 1 kort och spela 1 kort")
    text = ann.get_body(preferencelist=("plain",))
    assert text is not None
    body = text.get_content()
    assert "LO QUE HA OCURRIDO" in body and "Comienza el Año 705: seis cartas para cada bando" in body
    assert body.rstrip("\n").splitlines()[-3:][0] == \
        "Para responder: contesta a este correo y conserva su asunto ([g] etapa 1)."
    bob_text = bob.get_body(preferencelist=("plain",))
    assert bob_text is not None and "Så svarar du: skriv dina order" in bob_text.get_content()
    orders = year_start_orders(home, "g", C).strip()
    feed(home, tmp_path / "a.mbox", reply_mail(f"{orders}\npassword: open sesame", "es1@ann.example", "Re: " + subject(ann)))
    with Home(home).open("g") as st:
        assert [(s.verdict, s.side, s.step) for s in st.submissions()] == [("accepted", "Caesar", 1)]


@pytest.mark.parametrize("words", ["step", "etapa", "etapp", "Etapa"])
def test_the_subject_of_a_report_in_any_language_names_its_step(words: str) -> None:
    from pbem.plainreply import subject_game

    raw = f"From: a@b.example\nSubject: Re: [club-1] {words} 37: whatever\n\nplay 3/1\n".encode()
    assert subject_game(raw) == ("club-1", 37)

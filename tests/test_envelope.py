"""Tests for pbem.envelope: keys, canonical bytes, JSON and armor, email, trust checks."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from email.message import EmailMessage
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.envelope import (
    ARMOR_BEGIN,
    CredentialError,
    Envelope,
    EnvelopeError,
    KeyFileExistsError,
    KeyFormatError,
    SignatureError,
    SignedSubmission,
    WrongGameError,
    WrongSideError,
    WrongStepError,
    authenticate,
    canonical_bytes,
    check_addressing,
    check_password,
    extract_body_from_email,
    generate_keypair,
    hash_password,
    key_fingerprint,
    keypair_from_private_key,
    load_private_key,
    load_public_key,
    new_envelope,
    normalize_orders,
    parse_submission,
    password_submission,
    sign_envelope,
    submission_digest,
    verify_signature,
    write_keypair,
)
from pbem.errors import PbemError

DOC = Path(__file__).parents[1] / "docs" / "envelope.md"
KEY = generate_keypair()
OTHER_KEY = generate_keypair()
NONCE = "00112233445566778899aabbccddeeff"
TIME = "2025-03-01T18:30:00Z"
ORDERS = (
    "play 3/2",
    "move Genua -> Roma: Legio 8, Legio 12, Antonius",
    "",
    "levy Auxilia 1 at Massilia",
)


def make_env(**changes: object) -> Envelope:
    fields: dict[str, object] = dict(
        game="caesar-1", side="Caesar", step=5, orders=ORDERS, nonce=NONCE, time=TIME
    )
    fields.update(changes)
    return new_envelope(**fields)  # type: ignore[arg-type]


SIGNED = sign_envelope(make_env(), KEY.private_pem)


# --------------------------------------------------------------------------- keys


def test_keygen_round_trip() -> None:
    pair = generate_keypair()
    assert re.fullmatch(r"pbem-ed25519 [A-Za-z0-9+/]{43}=", pair.public_text)
    assert pair.private_pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert keypair_from_private_key(pair.private_pem) == pair
    load_public_key(pair.public_text + "\n")
    assert re.fullmatch(r"[0-9a-f]{16}", pair.fingerprint)
    assert pair.fingerprint == key_fingerprint(pair.public_text)
    assert pair.fingerprint != KEY.fingerprint
    assert "PRIVATE" not in repr(pair)
    sub = sign_envelope(make_env(), load_private_key(pair.private_pem))
    verify_signature(sub, pair.public_text)


def test_write_keypair(tmp_path: Path) -> None:
    private_path, public_path = write_keypair(tmp_path / "alice")
    assert (private_path.name, public_path.name) == ("alice.key", "alice.pub")
    if os.name == "posix":
        assert stat.S_IMODE(private_path.stat().st_mode) == 0o600
    pair = keypair_from_private_key(private_path.read_bytes())
    assert public_path.read_text() == pair.public_text + "\n"
    with pytest.raises(KeyFileExistsError, match="already exists; refusing to overwrite"):
        write_keypair(tmp_path / "alice")
    assert keypair_from_private_key(private_path.read_bytes()) == pair
    (tmp_path / "bob.pub").write_text("old")
    with pytest.raises(KeyFileExistsError, match="bob.pub already exists"):
        write_keypair(tmp_path / "bob")
    assert not (tmp_path / "bob.key").exists()


def test_write_given_keypair_with_dotted_prefix(tmp_path: Path) -> None:
    private_path, public_path = write_keypair(tmp_path / "alice.v2", KEY)
    assert private_path.name == "alice.v2.key"
    assert public_path.read_text().strip() == KEY.public_text


def test_load_private_key_errors() -> None:
    with pytest.raises(KeyFormatError, match="BEGIN PRIVATE KEY"):
        load_private_key(b"garbage")
    with pytest.raises(KeyFormatError, match="public key"):
        load_private_key(KEY.public_text.encode())
    encrypted = load_private_key(KEY.private_pem).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    )
    with pytest.raises(KeyFormatError, match="passphrase"):
        load_private_key(encrypted)
    ec_pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with pytest.raises(KeyFormatError, match="needs an Ed25519 key"):
        load_private_key(ec_pem)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "it must be one line 'pbem-ed25519"),
        ("ssh-ed25519 AAAA", "it must be one line"),
        ("pbem-ed25519", "it must be one line"),
        ("pbem-ed25519 !!!!", "not the base64 of 32 bytes"),
        ("pbem-ed25519 AAAA", "not the base64 of 32 bytes"),
        ("-----BEGIN PRIVATE KEY-----\nabc", "this is a private key"),
    ],
)
def test_load_public_key_errors(text: str, message: str) -> None:
    with pytest.raises(KeyFormatError, match=re.escape(message)):
        load_public_key(text)
    with pytest.raises(KeyFormatError):
        key_fingerprint(text)


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_key_loading_raises_only_key_errors(data: bytes | str) -> None:
    with pytest.raises(KeyFormatError):
        load_private_key(data)
    if isinstance(data, str):
        with pytest.raises(KeyFormatError):
            load_public_key(data)


# ----------------------------------------------------------------------- envelope


def test_normalize_orders() -> None:
    text = "\r\n  \r\nplay 3/2  \r\n\r\n  move A -> B: L8\t\r\n\n \n"
    assert normalize_orders(text) == ("play 3/2", "", "  move A -> B: L8")
    assert normalize_orders(["a ", "", "b\r\nc"]) == ("a", "", "b", "c")
    assert normalize_orders("") == ()
    assert normalize_orders("old mac\rline") == ("old mac", "line")


def test_new_envelope_defaults() -> None:
    first = new_envelope("g", "Caesar", 1, "play 3/2")
    second = new_envelope("g", "Caesar", 1, "play 3/2")
    assert re.fullmatch(r"[0-9a-f]{32}", first.nonce)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", first.time)
    assert first.nonce != second.nonce
    assert eval(repr(first)) == first  # the repr can be pasted back


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"game": ""}, "the game is ''"),
        ({"game": " g"}, "surrounding spaces"),
        ({"side": "Cae\nsar"}, "without line breaks"),
        ({"step": -1}, "the step is -1"),
        ({"step": True}, "the step is True"),
        ({"nonce": "abc"}, "32 lowercase hex digits"),
        ({"nonce": NONCE.upper()}, "32 lowercase hex digits"),
        ({"time": "2025-03-01 18:30:00"}, "a UTC time like"),
        ({"time": "2025-02-30T18:30:00Z"}, "a UTC time like"),
        ({"orders": ">quoted"}, "starts with '>'"),
        ({"orders": "-----BEGIN PBEM ORDERS-----"}, "reserved for the armor"),
        ({"orders": "bell\x07"}, "control character"),
        ({"orders": "a\u2028b"}, "control character"),
    ],
)
def test_envelope_validation(changes: dict[str, object], message: str) -> None:
    with pytest.raises(EnvelopeError, match=re.escape(message)):
        make_env(**changes)


def test_envelope_requires_normalized_orders() -> None:
    with pytest.raises(EnvelopeError, match="ends with whitespace"):
        Envelope("g", "s", 1, NONCE, TIME, ("a ",))
    with pytest.raises(EnvelopeError, match="blank line"):
        Envelope("g", "s", 1, NONCE, TIME, ("a", ""))


def test_canonical_bytes() -> None:
    env = make_env(side="Pompée", orders='say "hi"\tnow')
    expected = (
        '{"game":"caesar-1","nonce":"' + NONCE + '","orders":["say \\"hi\\"\\tnow"],'
        '"pbem":1,"side":"Pompée","step":5,"time":"' + TIME + '"}'
    ).encode("utf-8")
    assert canonical_bytes(env) == expected


# ------------------------------------------------------------- JSON and armor forms


def test_sign_verify_json() -> None:
    text = SIGNED.to_json()
    assert text.endswith("}\n")
    obj = json.loads(text)
    assert list(obj) == sorted(obj)
    assert obj["pbem"] == 1 and obj["orders"] == list(ORDERS)
    sub = parse_submission(text.encode())
    assert sub == SIGNED
    verify_signature(sub, KEY.public_text)
    with pytest.raises(SignatureError, match="signed with another key"):
        verify_signature(sub, OTHER_KEY.public_text)


def test_sign_verify_armor() -> None:
    armor = SIGNED.to_armor()
    assert armor.splitlines()[:2] == [ARMOR_BEGIN, "Game: caesar-1"]
    assert "\n\nplay 3/2\nmove Genua" in armor
    sub = parse_submission(armor)
    assert sub == SIGNED
    verify_signature(sub, KEY.public_text)


def test_armor_tolerates_mail_damage() -> None:
    armor = SIGNED.to_armor()
    signature = SIGNED.signature or ""
    damaged = (
        armor.replace("Game:", "GAME:")
        .replace("Step: 5", "step:5")
        .replace(signature, signature[:40] + "\n" + signature[40:])
        .replace("\n", "  \r\n")
    )
    text = "Hello,\r\nhere are my orders.\r\n\r\n" + damaged + "\r\nBye\r\n"
    assert parse_submission(text) == SIGNED
    assert parse_submission(text.encode()) == SIGNED


def test_password_mode_round_trips() -> None:
    sub = password_submission(make_env(), "correct horse")
    assert "Password: correct horse\n\nplay" in sub.to_armor()
    assert "SIGNATURE" not in sub.to_armor()
    assert json.loads(sub.to_json())["password"] == "correct horse"
    assert "correct horse" not in repr(sub)
    assert parse_submission(sub.to_armor()) == sub
    assert parse_submission(sub.to_json()) == sub
    with pytest.raises(SignatureError, match="carries a password"):
        verify_signature(sub, KEY.public_text)


def test_empty_orders_round_trip() -> None:
    sub = sign_envelope(make_env(orders=""), KEY.private_pem)
    assert parse_submission(sub.to_armor()) == sub
    assert parse_submission(sub.to_json()) == sub


# -------------------------------------------------------------------------- email

OLD = sign_envelope(make_env(step=4, nonce="f" * 32, orders="play 1/1"), KEY.private_pem)


def test_armor_in_realistic_email() -> None:
    quoted = "".join("> " + line + "\n" for line in OLD.to_armor().splitlines())
    body = (
        "Hi moderator,\n\nmy orders for step 5:\n\n"
        + SIGNED.to_armor()
        + "\nCheers,\nAlice\n\nOn Sat, 1 Mar 2025 Bob <bob@example.org> wrote:\n"
        + quoted
        + "\n-- \nAlice Example | alice@example.org\n"
        + OLD.to_armor()
    )
    raw = (
        "Return-Path: <alice@example.org>\r\n"
        "From: Alice <alice@example.org>\r\n"
        "To: pbem@example.org\r\n"
        "Subject: Re: caesar-1 step 5\r\n"
        "Date: Sat, 01 Mar 2025 18:31:00 +0000\r\n"
        "Message-ID: <1@example.org>\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: 8bit\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()
    assert "my orders for step 5" in extract_body_from_email(raw)
    assert parse_submission(raw) == SIGNED
    # The body alone: the quoted block and the block after '-- ' are ignored too.
    assert parse_submission(body) == SIGNED


def test_multipart_alternative_quoted_printable() -> None:
    long_order = "move Massilia -> Narbo -> Tarraco: Legio 11, Legio 12, Legio 13, Legio 14"
    env = make_env(side="Pompée", orders=ORDERS + (long_order,))
    sub = sign_envelope(env, KEY.private_pem)
    msg = EmailMessage()
    msg["From"] = "Pompée <p@example.org>"
    msg["To"] = "pbem@example.org"
    msg["Subject"] = "orders"
    msg.set_content("Voilà mes ordres:\n\n" + sub.to_armor(), cte="quoted-printable")
    msg.add_alternative("<p>HTML version that should not be used</p>", subtype="html")
    raw = msg.as_bytes()
    assert b"multipart/alternative" in raw and b"quoted-printable" in raw
    assert b"Pomp=C3=A9e" in raw and b"=\n" in raw  # encoded and soft-wrapped
    assert parse_submission(raw) == sub
    verify_signature(parse_submission(raw), KEY.public_text)


def test_base64_latin1_email() -> None:
    sub = sign_envelope(make_env(side="Pompée"), KEY.private_pem)
    msg = EmailMessage()
    msg["From"] = "p@example.org"
    msg["Subject"] = "orders"
    msg.set_content(sub.to_armor(), charset="iso-8859-1", cte="base64")
    assert parse_submission(msg.as_bytes()) == sub


def test_format_flowed_email() -> None:
    armor = SIGNED.to_armor().replace("Roma: Legio 8,", "Roma: Legio 8, \r\n")
    raw = (
        "From: a@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8; format=flowed\r\n\r\n"
        + armor.replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    ).encode()
    assert parse_submission(raw) == SIGNED


def test_html_only_email() -> None:
    def html_lines(sub: SignedSubmission) -> str:
        return "".join(
            f"<div>{line}</div>" if line else "<div><br></div>"
            for line in sub.to_armor().splitlines()
        )

    html = (
        "<html><head><style>div {color: red}</style></head><body>"
        "<div dir='ltr'>My orders:<br><br></div>" + html_lines(SIGNED).replace("->", "-&gt;")
        + "<div class='gmail_quote'>Bob wrote:<blockquote>" + html_lines(OLD)
        + "</blockquote></div></body></html>"
    )
    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg["Subject"] = "orders"
    msg.set_content(html, subtype="html")
    assert parse_submission(msg.as_bytes()) == SIGNED


# ------------------------------------------------------------------------- errors


def _without(text: str, old: str, new: str = "") -> str:
    assert old in text
    return text.replace(old, new)


ARMOR = SIGNED.to_armor()
JSON = SIGNED.to_json()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("hello", "no '-----BEGIN PBEM ORDERS-----' line found; paste the whole block"),
        ("> " + ARMOR.replace("\n", "\n> "), "quoted with '>'"),
        (ARMOR + "\n" + ARMOR, "two armored blocks found"),
        (_without(ARMOR, "-----END PBEM ORDERS-----\n"), "has no '-----END PBEM ORDERS-----'"),
        (_without(ARMOR, "Step: 5", "Step: x"), "Step header is 'x'; it must be a whole number"),
        (_without(ARMOR, "Nonce: " + NONCE + "\n"), "no 'Nonce:' header"),
        (_without(ARMOR, "Game:", "Colour:"), "block's header is 'Colour: caesar-1'"),
        (_without(ARMOR, "Side: Caesar\n", "Side: Caesar\nside: Caesar\n"), "appears twice"),
        (_without(ARMOR, "\n\n", "\n"), "expected 'Game:'"),
        (_without(ARMOR, SIGNED.signature or "", ""), "signature section of the block is empty"),
        (_without(ARMOR, ARMOR_BEGIN + "\n"), "no '-----BEGIN PBEM ORDERS-----' line comes before"),
        (_without(JSON, '"nonce"', '"nonse"'), "unknown field 'nonse'"),
        (_without(JSON, f'  "nonce": "{NONCE}",\n'), "the JSON has no 'nonce' field"),
        (_without(JSON, '"step": 5', '"step": "5"'), "'step' is a string; it must be a whole"),
        (_without(JSON, '"pbem": 1', '"pbem": 2'), "reads format version 1"),
        (_without(JSON, '"game"', '"game": "x", "game"'), "the field 'game' twice"),
        (_without(JSON, '"signature"', '"password": "pw", "signature"'), "both a 'signature'"),
        (JSON[:-3], "not valid JSON"),
        ("[1, 2]", "the JSON document is a list"),
        ("{" * 100_000, "not valid JSON"),
        (b"\xff\xfe" + ARMOR.encode(), "not UTF-8 text (byte 0xff at offset 0)"),
        (b"From: a@b\nSubject: x\nContent-Type: image/png\n\nxx", "no text part"),
        ("x" * 1_000_001, "the limit is 1000000"),
    ],
)
def test_parse_errors_name_the_problem(raw: str | bytes, message: str) -> None:
    with pytest.raises(EnvelopeError, match=re.escape(message)):
        parse_submission(raw)


def test_check_addressing() -> None:
    check_addressing(SIGNED, game="caesar-1", side="Caesar", step=5)
    cases = [
        (WrongGameError, dict(game="caesar-2", side="Caesar", step=5),
         "is for game 'caesar-1', but it was sent to game 'caesar-2'"),
        (WrongSideError, dict(game="caesar-1", side="Pompey", step=5),
         "is for side 'Caesar', but it came from side 'Pompey'"),
        (WrongStepError, dict(game="caesar-1", side="Caesar", step=7),
         "this answers step 5, but the game is at step 7; that step is already resolved"),
        (WrongStepError, dict(game="caesar-1", side="Caesar", step=3),
         "this answers step 5, but the game is at step 3; step 5 is not open yet"),
    ]  # fmt: skip
    for error, where, message in cases:
        with pytest.raises(error, match=re.escape(message)) as info:
            check_addressing(SIGNED, **where)  # type: ignore[arg-type]
        assert isinstance(info.value, EnvelopeError) and isinstance(info.value, ValueError)


def test_digest_recognizes_a_resend() -> None:
    digest = submission_digest(SIGNED)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert submission_digest(parse_submission(ARMOR)) == digest
    assert submission_digest(parse_submission(JSON)) == digest
    assert submission_digest(sign_envelope(make_env(), KEY.private_pem)) == digest
    other = sign_envelope(make_env(nonce="1" * 32), KEY.private_pem)
    assert submission_digest(other) != digest
    pw = password_submission(make_env(), "secret words")
    assert submission_digest(pw) not in (digest, submission_digest(other))
    assert submission_digest(pw) == submission_digest(parse_submission(pw.to_armor()))


# ---------------------------------------------------------------------- passwords


def test_password_hash_and_check() -> None:
    stored = hash_password("correct horse")
    assert re.fullmatch(r"scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=", stored)
    assert stored != hash_password("correct horse")  # salted
    assert check_password(stored, "correct horse")
    assert not check_password(stored, "correct horsf")
    assert not check_password(stored, "\ud800")
    with pytest.raises(EnvelopeError, match="malformed"):
        check_password("md5$abc", "x")
    with pytest.raises(EnvelopeError, match="malformed"):
        check_password("scrypt$" + "9" * 5000 + "$8$1$AAAA$AAAA", "x")


def test_authenticate() -> None:
    stored = hash_password("correct horse")
    good = password_submission(make_env(), "correct horse")
    bad = password_submission(make_env(), "wrong horse")
    authenticate(good, password_hash=stored)
    authenticate(SIGNED, public_key=KEY.public_text)
    messages = set()
    for sub, kwargs in [(bad, {"password_hash": stored}), (good, {}), (SIGNED, {})]:
        with pytest.raises(CredentialError) as info:
            authenticate(sub, **kwargs)
        messages.add(str(info.value))
    assert messages == {"not accepted: unknown player or wrong credentials"}
    with pytest.raises(SignatureError):
        authenticate(SIGNED, public_key=OTHER_KEY.public_text)


# ------------------------------------------------------------ tampering and fuzzing


def _assert_tamper_detected(original: SignedSubmission, data: bytes) -> None:
    try:
        sub = parse_submission(data)
        verify_signature(sub, KEY.public_text)
    except EnvelopeError:
        return
    # Only a change the format ignores (layout, header case, ...) may get through.
    assert sub.envelope == original.envelope
    assert sub.signature == original.signature


def _flip(data: bytes, index: int, mask: int) -> bytes:
    return data[:index] + bytes([data[index] ^ mask]) + data[index + 1 :]


@pytest.mark.parametrize("form", ["json", "armor"])
def test_every_single_bit_flip_is_detected(form: str) -> None:
    data = (JSON if form == "json" else ARMOR).encode()
    for index in range(len(data)):
        for mask in (0x01, 0x02, 0x20, 0x80):
            _assert_tamper_detected(SIGNED, _flip(data, index, mask))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_byte_change_is_detected(data: st.DataObject) -> None:
    raw = data.draw(st.sampled_from([JSON, ARMOR])).encode()
    index = data.draw(st.integers(0, len(raw) - 1))
    mask = data.draw(st.integers(1, 255))
    _assert_tamper_detected(SIGNED, _flip(raw, index, mask))


_LINES = ARMOR.splitlines() + JSON.splitlines() + [
    "", "-- ", "> quoted", "Step: 99999999999999", "Password: x", "From: a@b",
    "Content-Type: text/html", "Content-Transfer-Encoding: base64", "<div>", "{", "}",
]  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=300)
    | st.text(max_size=300)
    | st.lists(st.sampled_from(_LINES) | st.text(max_size=20), max_size=30).map("\n".join)
    | st.binary(max_size=200).map(lambda b: b"From: a@b\nSubject: s\n\n" + b)
    | st.text(max_size=100).map(lambda t: ARMOR.replace("play 3/2", t))
    | st.text(max_size=100).map(lambda t: JSON.replace('"play 3/2"', json.dumps(t)))
)
def test_parse_submission_raises_only_envelope_error(raw: bytes | str) -> None:
    try:
        parse_submission(raw)
    except EnvelopeError as exc:
        assert isinstance(exc, PbemError) and isinstance(exc, ValueError)
        assert str(exc)


# ------------------------------------------------------------------- the document


def _doc_examples() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"<!-- example: ([\w-]+) -->\n```[a-z]*\n(.*?)```", text, re.DOTALL)
    return {name: body for name, body in found}


def test_documented_worked_example_verifies() -> None:
    ex = _doc_examples()
    assert len(ex) == 11, sorted(ex)
    public = ex["public-key"].strip()
    pair = keypair_from_private_key(ex["private-key"].encode())
    assert pair.public_text == public
    assert key_fingerprint(public) == ex["fingerprint"].strip()

    sub = parse_submission(ex["json"].encode())
    assert sub.to_json() == ex["json"]
    assert parse_submission(ex["armor"]) == sub
    assert sub.to_armor() == ex["armor"]
    canonical = canonical_bytes(sub.envelope)
    assert canonical == ex["canonical"].rstrip("\n").encode("utf-8")
    assert hashlib.sha256(canonical).hexdigest() == ex["canonical-sha256"].strip()
    assert sub.signature == ex["signature"].strip()
    verify_signature(sub, public)
    assert sign_envelope(sub.envelope, ex["private-key"].encode()) == sub
    assert submission_digest(sub) == ex["digest"].strip()

    password = parse_submission(ex["password-armor"])
    assert password.envelope == sub.envelope
    assert password.password == "correct horse battery"
    assert password.to_armor() == ex["password-armor"]

    namespace: dict[str, object] = {}
    exec(ex["standalone"], namespace)  # the program the document offers to others
    assert namespace["canonical"] == canonical
    assert namespace["signature"] == sub.signature
    assert namespace["json_file"] == ex["json"]

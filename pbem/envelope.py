"""Submissions: envelopes, canonical bytes, signatures, JSON and email armor, trust checks.

A player's orders travel in an :class:`Envelope` (game, side, step, nonce, time and
the order lines). The envelope is signed with Ed25519 over its canonical bytes and
sent either as a JSON file or as an armored text block in an email body; players
without a key may send a password instead of a signature. The wire format is
documented in ``docs/envelope.md``.

This module is a pure library: no database, no command line, no printing. Every
failure a user can cause raises :class:`~pbem.errors.EnvelopeError` (a ``ValueError``)
with a message that says what is wrong and what would be right.

Two lower layers live in their own modules and their public names are re-exported
here: key pairs, key files and password hashes in :mod:`pbem.credentials`, and
reading the text body of a full email message (MIME parts, charsets, transfer
encodings, format=flowed, HTML) in :mod:`pbem.transport.message`.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# Keys and password hashes live in pbem.credentials, the body of a full email message
# in pbem.transport.message; their public names are re-exported here, as before the split.
from pbem.core.phrase import N_, Phrase
from pbem.credentials import (
    _DUMMY_HASH,
    MAX_PASSWORD_LENGTH,  # noqa: F401 - re-exported
    PUBLIC_KEY_PREFIX,  # noqa: F401 - re-exported
    KeyPair,
    _b64,
    _b64decode,
    _bad_char,
    _check_password_text,
    _quote,
    check_password,
    generate_keypair,
    hash_password,
    key_fingerprint,
    keypair_from_private_key,
    load_private_key,
    load_public_key,
    write_keypair,
)
from pbem.errors import (
    CredentialError,
    EnvelopeError,
    KeyFileError,
    KeyFileExistsError,
    KeyFormatError,
    SignatureError,
    WrongGameError,
    WrongSideError,
    WrongStepError,
)
from pbem.transport.message import (
    MAX_SUBMISSION_BYTES,  # noqa: F401 - re-exported
    check_size,
    extract_body_from_email,
    json_attachment,
    looks_like_email,
    split_lines,
)

__all__ = [
    "ARMOR_BEGIN",
    "ARMOR_END",
    "ARMOR_SIGNATURE",
    "Credential",
    "CredentialError",
    "Envelope",
    "EnvelopeError",
    "KeyFileError",
    "KeyFileExistsError",
    "KeyFormatError",
    "KeyPair",
    "SignatureError",
    "SignedSubmission",
    "WrongGameError",
    "WrongSideError",
    "WrongStepError",
    "authenticate",
    "canonical_bytes",
    "check_addressing",
    "check_password",
    "extract_body_from_email",
    "format_time",
    "generate_keypair",
    "hash_password",
    "key_fingerprint",
    "keypair_from_private_key",
    "load_private_key",
    "load_public_key",
    "new_envelope",
    "normalize_orders",
    "parse_armor",
    "parse_json_submission",
    "parse_submission",
    "password_submission",
    "sign_envelope",
    "submission_digest",
    "verify_signature",
    "write_keypair",
]

FORMAT_VERSION = 1
ARMOR_BEGIN = "-----BEGIN PBEM ORDERS-----"
ARMOR_SIGNATURE = "-----BEGIN PBEM SIGNATURE-----"
ARMOR_END = "-----END PBEM ORDERS-----"
MAX_STEP = 999_999_999
MAX_NAME_LENGTH = 100
SIGNATURE_MISMATCH = (
    "the signature does not match the orders: the text was changed after signing, "
    "or it was signed with another key"
)

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_TIME_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_NONCE_RE = re.compile(r"[0-9a-f]{32}")
_STEP_RE = re.compile(r"[0-9]{1,9}")
_PASTE_HINT = "paste the whole block that `pbem sign` printed"


def _show_json(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------- envelope


def _check_name(what: str, value: object) -> None:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_NAME_LENGTH
        or value != value.strip()
        or _bad_char(value) is not None
    ):
        shown = _quote(value) if isinstance(value, str) else repr(value)
        raise EnvelopeError(
            f"the {what} is {shown}; it must be a name of 1 to {MAX_NAME_LENGTH} characters "
            "without line breaks, control characters or surrounding spaces"
        )


def _check_time(value: object) -> None:
    ok = isinstance(value, str) and _TIME_RE.fullmatch(value) is not None
    if ok:
        try:
            datetime.strptime(str(value), _TIME_FORMAT)
        except ValueError:
            ok = False
    if not ok:
        shown = _quote(value) if isinstance(value, str) else repr(value)
        raise EnvelopeError(
            f"the time is {shown}; it must be a UTC time like 2025-03-01T18:30:00Z"
        )


def _check_orders(orders: tuple[object, ...]) -> None:
    for number, line in enumerate(orders, 1):
        if not isinstance(line, str):
            raise EnvelopeError(f"order line {number} is {line!r}; every order line must be text")
        where = f"order line {number} ({_quote(line)})"
        bad = _bad_char(line, allow_tab=True)
        if bad in ("\n", "\r"):
            raise EnvelopeError(f"{where} contains a line break; give each line separately")
        if bad is not None:
            raise EnvelopeError(
                f"{where} contains the control character {bad!r}; remove it"
            )
        if line != line.rstrip():
            raise EnvelopeError(
                f"{where} ends with whitespace; strip trailing whitespace before signing "
                "(see docs/envelope.md)"
            )
        if line.startswith(">"):
            raise EnvelopeError(
                f"{where} starts with '>'; email programs treat such lines as quotes, "
                "so no order line may start with '>'"
            )
        if line.lstrip().startswith("-----"):
            raise EnvelopeError(
                f"{where} starts with '-----', which is reserved for the armor lines"
            )
    if orders and (orders[0] == "" or orders[-1] == ""):
        raise EnvelopeError(
            "the orders start or end with a blank line; drop leading and trailing blank "
            "lines before signing (see docs/envelope.md)"
        )


@dataclass(frozen=True)
class Envelope:
    """What a player signs: where the orders go and the order lines themselves.

    Every field is validated on construction, so any ``Envelope`` can be written as
    JSON and as armor and read back unchanged. ``orders`` must already be normalized
    (see :func:`normalize_orders`); :func:`new_envelope` does that.
    """

    game: str
    side: str
    step: int
    nonce: str
    time: str
    orders: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_name("game", self.game)
        _check_name("side", self.side)
        if type(self.step) is not int or not 0 <= self.step <= MAX_STEP:
            raise EnvelopeError(
                f"the step is {self.step!r}; it must be a whole number from 0 to {MAX_STEP}"
            )
        if not isinstance(self.nonce, str) or _NONCE_RE.fullmatch(self.nonce) is None:
            shown = _quote(self.nonce) if isinstance(self.nonce, str) else repr(self.nonce)
            raise EnvelopeError(
                f"the nonce is {shown}; it must be 32 lowercase hex digits (128 random bits)"
            )
        _check_time(self.time)
        if isinstance(self.orders, list):
            object.__setattr__(self, "orders", tuple(self.orders))
        if not isinstance(self.orders, tuple):
            raise EnvelopeError("the orders must be a sequence of lines")
        _check_orders(self.orders)


def normalize_orders(orders: str | Iterable[str]) -> tuple[str, ...]:
    """Order text (or lines) as signed: CRLF and CR become LF, trailing whitespace is
    stripped from every line, leading and trailing blank lines are dropped."""
    if isinstance(orders, str):
        text = orders
    else:
        items = list(orders)
        for item in items:
            if not isinstance(item, str):
                raise EnvelopeError(f"order line {item!r} is not text")
        text = "\n".join(items)
    lines = [line.rstrip() for line in split_lines(text)]
    start = 0
    while start < len(lines) and not lines[start]:
        start += 1
    end = len(lines)
    while end > start and not lines[end - 1]:
        end -= 1
    return tuple(lines[start:end])


def format_time(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` in UTC for an aware datetime."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise EnvelopeError("the time has no time zone; give an aware datetime")
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


def new_envelope(
    game: str,
    side: str,
    step: int,
    orders: str | Iterable[str],
    *,
    nonce: str | None = None,
    time: str | datetime | None = None,
) -> Envelope:
    """An envelope with normalized orders, a random nonce and the current UTC time
    (both may be given instead, for deterministic tests)."""
    if nonce is None:
        nonce = secrets.token_hex(16)
    if time is None:
        time = datetime.now(UTC)
    if isinstance(time, datetime):
        time = format_time(time)
    return Envelope(game, side, step, nonce, time, normalize_orders(orders))


def _canonical_object(env: Envelope) -> dict[str, Any]:
    return {
        "pbem": FORMAT_VERSION,
        "game": env.game,
        "side": env.side,
        "step": env.step,
        "nonce": env.nonce,
        "time": env.time,
        "orders": list(env.orders),
    }


def canonical_bytes(env: Envelope) -> bytes:
    """The bytes that are signed: compact JSON with sorted keys, UTF-8, no escaping
    of non-ASCII characters."""
    text = json.dumps(
        _canonical_object(env), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return text.encode("utf-8")


# -------------------------------------------------------------------- submissions


class Credential(enum.Enum):
    """What vouches for a submission."""

    SIGNATURE = "signature"
    PASSWORD = "password"


def _check_signature_text(value: object) -> None:
    raw = _b64decode(value) if isinstance(value, str) else None
    if raw is None or len(raw) != 64:
        shown = _quote(value) if isinstance(value, str) else repr(value)
        raise EnvelopeError(
            f"the signature is {shown}; it must be the base64 of 64 bytes, "
            "exactly as `pbem sign` wrote it"
        )


@dataclass(frozen=True)
class SignedSubmission:
    """An envelope with exactly one credential: a base64 Ed25519 signature over
    :func:`canonical_bytes`, or a password. The password is kept out of ``repr``."""

    envelope: Envelope
    signature: str | None = None
    password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.envelope, Envelope):
            raise EnvelopeError("a submission needs an Envelope")
        if (self.signature is None) == (self.password is None):
            raise EnvelopeError(
                "a submission carries exactly one credential: a signature or a password"
            )
        if self.signature is not None:
            _check_signature_text(self.signature)
        if self.password is not None:
            _check_password_text(self.password)

    @property
    def credential(self) -> Credential:
        return Credential.SIGNATURE if self.signature is not None else Credential.PASSWORD

    def to_dict(self) -> dict[str, Any]:
        """The canonical object plus ``signature`` or ``password``."""
        obj = _canonical_object(self.envelope)
        if self.signature is not None:
            obj["signature"] = self.signature
        else:
            obj["password"] = self.password
        return obj

    def to_json(self) -> str:
        """The JSON file: pretty-printed, sorted keys, trailing newline."""
        text = json.dumps(self.to_dict(), sort_keys=True, indent=2, ensure_ascii=False)
        return text + "\n"

    def to_armor(self) -> str:
        """The text block for an email body."""
        env = self.envelope
        lines = [
            ARMOR_BEGIN,
            f"Game: {env.game}",
            f"Side: {env.side}",
            f"Step: {env.step}",
            f"Nonce: {env.nonce}",
            f"Time: {env.time}",
        ]
        if self.password is not None:
            lines.append(f"Password: {self.password}")
        lines.append("")
        lines.extend(env.orders)
        if self.signature is not None:
            lines.extend([ARMOR_SIGNATURE, self.signature])
        lines.append(ARMOR_END)
        return "\n".join(lines) + "\n"


def sign_envelope(
    env: Envelope, private_key: bytes | str | Ed25519PrivateKey
) -> SignedSubmission:
    """Sign the envelope's canonical bytes with an Ed25519 private key (or PEM)."""
    key = private_key if isinstance(private_key, Ed25519PrivateKey) else load_private_key(
        private_key
    )
    return SignedSubmission(env, signature=_b64(key.sign(canonical_bytes(env))))


def password_submission(env: Envelope, password: str) -> SignedSubmission:
    """A submission vouched for by a password (for players without a key)."""
    return SignedSubmission(env, password=password)


# ------------------------------------------------------------------------ parsing

_JSON_ENVELOPE_FIELDS = ("game", "side", "step", "nonce", "time", "orders")
_JSON_FIELDS = frozenset({"pbem", *_JSON_ENVELOPE_FIELDS, "signature", "password"})


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"the value {_show_json(value)}"


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for name, value in pairs:
        if name in obj:
            raise EnvelopeError(
                f"the JSON has the field {_quote(name)} twice; each field must appear once"
            )
        obj[name] = value
    return obj


def parse_json_submission(text: str) -> SignedSubmission:
    """Read a submission JSON file (as written by :meth:`SignedSubmission.to_json`)."""
    try:
        obj = json.loads(text, object_pairs_hook=_object_without_duplicates)
    except EnvelopeError:
        raise
    except json.JSONDecodeError as exc:
        raise EnvelopeError(
            f"the file is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "send the file exactly as `pbem sign` wrote it"
        ) from None
    except (ValueError, RecursionError):  # e.g. a huge number, deep nesting
        raise EnvelopeError(
            "the file is not valid JSON for a submission; send the file exactly as "
            "`pbem sign` wrote it"
        ) from None
    if not isinstance(obj, dict):
        raise EnvelopeError(
            f"the JSON document is {_json_kind(obj)}; it must be an object "
            "{...} with the fields " + ", ".join(sorted(_JSON_FIELDS))
        )
    unknown = sorted(set(obj) - _JSON_FIELDS)
    if unknown:
        raise EnvelopeError(
            f"the JSON has an unknown field {_quote(unknown[0])}; the fields are "
            + ", ".join(sorted(_JSON_FIELDS))
        )
    if "pbem" not in obj:
        raise EnvelopeError('the JSON has no \'pbem\' field; it must be "pbem": 1')
    if type(obj["pbem"]) is not int or obj["pbem"] != FORMAT_VERSION:
        raise EnvelopeError(
            f"the JSON field 'pbem' is {_show_json(obj['pbem'])}; this program reads "
            f'format version {FORMAT_VERSION} ("pbem": {FORMAT_VERSION})'
        )
    for name in _JSON_ENVELOPE_FIELDS:
        if name not in obj:
            raise EnvelopeError(f"the JSON has no {name!r} field")
    for name in ("game", "side", "nonce", "time"):
        if not isinstance(obj[name], str):
            raise EnvelopeError(
                f"the JSON field {name!r} is {_json_kind(obj[name])}; it must be a string"
            )
    if type(obj["step"]) is not int:
        raise EnvelopeError(
            f"the JSON field 'step' is {_json_kind(obj['step'])}; it must be a whole number "
            "like 3"
        )
    orders = obj["orders"]
    if not isinstance(orders, list) or not all(isinstance(line, str) for line in orders):
        raise EnvelopeError("the JSON field 'orders' must be a list of strings, one per line")
    for name in ("signature", "password"):
        if name in obj and not isinstance(obj[name], str):
            raise EnvelopeError(
                f"the JSON field {name!r} is {_json_kind(obj[name])}; it must be a string"
            )
    signature, password = obj.get("signature"), obj.get("password")
    if signature is not None and password is not None:
        raise EnvelopeError(
            "the JSON has both a 'signature' and a 'password' field; a submission carries one"
        )
    if signature is None and password is None:
        raise EnvelopeError(
            "the JSON has no 'signature' field; sign the orders with `pbem sign` "
            "(or, without a key, give a 'password' field)"
        )
    env = Envelope(
        game=obj["game"],
        side=obj["side"],
        step=obj["step"],
        nonce=obj["nonce"],
        time=obj["time"],
        orders=tuple(orders),
    )
    return SignedSubmission(env, signature=signature, password=password)


_ARMOR_HEADERS = ("game", "side", "step", "nonce", "time", "password")
_HEADER_LIST = "'Game:', 'Side:', 'Step:', 'Nonce:', 'Time:' (or 'Password:')"


def _find_block(lines: list[str]) -> tuple[int, list[tuple[int, str]]]:
    """The one armored block: its BEGIN line number and its inner (number, line)s.

    Lines starting with '>' are quotes and ignored everywhere; outside a block, a
    line that is exactly '-- ' starts the email signature and ends the scan.
    """
    blocks: list[tuple[int, list[tuple[int, str]]]] = []
    current: tuple[int, list[tuple[int, str]]] | None = None
    quoted_begin: int | None = None
    for number, line in enumerate(lines, 1):
        if line.startswith(">"):
            if quoted_begin is None and ARMOR_BEGIN in line:
                quoted_begin = number
            continue
        mark = line.strip()
        if current is None:
            if line == "-- ":
                break
            if mark == ARMOR_BEGIN:
                current = (number, [])
            elif mark in (ARMOR_SIGNATURE, ARMOR_END):
                raise EnvelopeError(
                    f"line {number} is {mark!r} but no {ARMOR_BEGIN!r} line comes before it; "
                    + _PASTE_HINT
                )
            continue
        if mark == ARMOR_BEGIN:
            raise EnvelopeError(
                f"line {number} begins a new block before the block from line {current[0]} "
                f"has its {ARMOR_END!r} line; {_PASTE_HINT}"
            )
        if mark == ARMOR_END:
            blocks.append(current)
            current = None
        else:
            current[1].append((number, line))
    if current is not None:
        raise EnvelopeError(Phrase(N_("the block that begins on line %(line)s has no %(end)s line; paste the whole "
                                      "block, down to and including that line"), line=current[0], end=repr(ARMOR_END)))
    if len(blocks) > 1:
        count = "two" if len(blocks) == 2 else str(len(blocks))
        starts = ", ".join(str(start) for start, _ in blocks)
        raise EnvelopeError(Phrase(N_("two armored blocks found (at lines %(lines)s); send one submission per message")
                                   if count == "two" else N_("%(n)s armored blocks found (at lines %(lines)s); send one "
                                                             "submission per message"), n=count, lines=starts))
    if not blocks:
        if quoted_begin is not None:
            raise EnvelopeError(Phrase(N_(
                "no %(begin)s line found outside quoted text (the block at line %(line)s is quoted with '>', and quoted "
                "text is ignored); paste the block that `pbem sign` printed without quoting it"),
                begin=repr(ARMOR_BEGIN), line=quoted_begin))
        raise EnvelopeError(Phrase(N_("no %(begin)s line found; paste the whole block that `pbem sign` printed"),
                                   begin=repr(ARMOR_BEGIN)))
    return blocks[0]


def _parse_headers(
    block: list[tuple[int, str]], begin: int
) -> tuple[dict[str, str], list[tuple[int, str]]]:
    headers: dict[str, str] = {}
    for index, (number, line) in enumerate(block):
        if not line.strip():
            return headers, block[index + 1 :]
        name, colon, value = line.partition(":")
        key = name.strip().lower()
        if not colon or key not in _ARMOR_HEADERS:
            raise EnvelopeError(
                f"line {number} in the block's header is {_quote(line.strip())}; expected "
                f"{_HEADER_LIST} lines, then a blank line, then the orders"
            )
        if key in headers:
            raise EnvelopeError(
                f"line {number}: the {key.capitalize()} header appears twice; give it once"
            )
        headers[key] = value.strip()
    raise EnvelopeError(
        f"the block from line {begin} has no blank line after its headers; a blank line "
        "must separate the headers from the orders"
    )


def parse_armor(text: str) -> SignedSubmission:
    """Find and read the one armored block in a text (an email body, a pasted file)."""
    begin, block = _find_block(split_lines(text))
    headers, rest = _parse_headers(block, begin)
    for key in _ARMOR_HEADERS[:5]:
        if key not in headers:
            raise EnvelopeError(
                f"the block has no '{key.capitalize()}:' header; it needs {_HEADER_LIST}; "
                + _PASTE_HINT
            )
    if _STEP_RE.fullmatch(headers["step"]) is None:
        raise EnvelopeError(
            f"the Step header is {_quote(headers['step'])}; it must be a whole number"
        )
    body: list[str] = []
    signature_lines: list[str] | None = None
    for number, line in rest:
        if signature_lines is not None:
            if line.strip():
                signature_lines.append(line.strip())
        elif line.strip() == ARMOR_SIGNATURE:
            signature_lines = []
        elif line.lstrip().startswith("-----"):
            raise EnvelopeError(
                f"line {number} is {_quote(line.strip())}; inside the block only "
                f"{ARMOR_SIGNATURE!r} and {ARMOR_END!r} may start with '-----'"
            )
        else:
            body.append(line)
    password = headers.get("password")
    signature = "".join(signature_lines) if signature_lines is not None else None
    if signature is not None and password is not None:
        raise EnvelopeError(
            "the block has both a Password header and a signature; a submission carries one"
        )
    if signature is None and password is None:
        raise EnvelopeError(
            f"the block has no {ARMOR_SIGNATURE!r} section (and no Password header); "
            + _PASTE_HINT
        )
    if signature == "":
        raise EnvelopeError(f"the signature section of the block is empty; {_PASTE_HINT}")
    env = Envelope(
        game=headers["game"],
        side=headers["side"],
        step=int(headers["step"]),
        nonce=headers["nonce"],
        time=headers["time"],
        orders=normalize_orders(body),
    )
    return SignedSubmission(env, signature=signature, password=password)


def _parse_email(data: bytes) -> SignedSubmission:
    """The submission in an email's body; failing that, a JSON file attached to it (what
    `pbem sign --out` wrote), unless the body holds a block that is wrong."""
    body: str | None = None
    try:
        body = extract_body_from_email(data)
        return _parse_text(body)
    except EnvelopeError:
        attached = json_attachment(data)
        body_has_block = body is not None and any(
            not line.startswith(">") and line.strip() == ARMOR_BEGIN for line in split_lines(body)
        )
        if attached is None or body_has_block:
            raise
        return parse_json_submission(attached.lstrip("\ufeff"))


def _parse_text(text: str) -> SignedSubmission:
    text = text.lstrip("\ufeff")
    if text.lstrip()[:1] in ("{", "["):
        return parse_json_submission(text)
    return parse_armor(text)


def parse_submission(raw: bytes | str) -> SignedSubmission:
    """Read a submission from a JSON file, a text containing the armored block, or a
    full email message containing either (in its body, or a JSON file attached)."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        data = bytes(raw)
        check_size(len(data))
        sub = _RECENT.get(data)
        if sub is None:
            sub = _parse_bytes(data)
            if sub.password is None:  # a password is never kept beyond the call that reads it
                _remember(data, sub)
        return sub
    if isinstance(raw, str):
        check_size(len(raw))
        if looks_like_email(raw[:2000]):
            return _parse_email(raw.encode("utf-8", "surrogatepass"))
        return _parse_text(raw)
    raise EnvelopeError(f"cannot read a submission from {type(raw).__name__}")


#: the last submissions read from bytes: a message is read when it is routed, stored and decided, and
#: the same bytes give the same (immutable) submission, so its email is parsed once. ``pbem inbox``
#: routes every message of a run before it hands each game its messages: the last _RECENT_MAX of them
#: (at most _RECENT_MAX_BYTES of bytes in all) are kept, so a run of that size parses each email once.
_RECENT: dict[bytes, SignedSubmission] = {}
_RECENT_MAX = 1024
_RECENT_MAX_BYTES = 8_000_000
_recent_bytes = 0


def _remember(data: bytes, sub: SignedSubmission) -> None:
    global _recent_bytes
    _RECENT[data] = sub
    _recent_bytes += len(data)
    while len(_RECENT) > 1 and (len(_RECENT) > _RECENT_MAX or _recent_bytes > _RECENT_MAX_BYTES):
        oldest = next(iter(_RECENT))
        del _RECENT[oldest]
        _recent_bytes -= len(oldest)


def _parse_bytes(data: bytes) -> SignedSubmission:
    if looks_like_email(data[:2000].decode("latin-1")):
        return _parse_email(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvelopeError(
            f"the submission is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}); save the file as UTF-8 or {_PASTE_HINT}"
        ) from None
    return _parse_text(text)


# ------------------------------------------------------------------- verification


def verify_signature(sub: SignedSubmission, public_text: str) -> None:
    """Raise :class:`SignatureError` unless the signature is valid for the key."""
    if sub.signature is None:
        raise SignatureError("this submission carries a password, not a signature")
    key = load_public_key(public_text)
    try:
        key.verify(base64.b64decode(sub.signature), canonical_bytes(sub.envelope))
    except InvalidSignature:
        raise SignatureError(SIGNATURE_MISMATCH) from None


def check_addressing(sub: SignedSubmission, *, game: str, side: str, step: int) -> None:
    """Raise unless the submission answers this game, this side and the open step."""
    env = sub.envelope
    if env.game != game:
        raise WrongGameError(Phrase(N_("this submission is for game %(sent)s, but it was sent to game %(game)s; sign it "
                                       "again for the right game"), sent=repr(env.game), game=repr(game)))
    if env.side != side:
        raise WrongSideError(Phrase(N_("this submission is for side %(sent)s, but it came from side %(side)s; sign it "
                                       "again for your own side"), sent=repr(env.side), side=repr(side)))
    if env.step < step:
        raise WrongStepError(Phrase(N_("this answers step %(sent)s, but the game is at step %(step)s; that step is "
                                       "already resolved"), sent=env.step, step=step))
    if env.step > step:
        raise WrongStepError(Phrase(N_("this answers step %(sent)s, but the game is at step %(step)s; step %(sent)s is "
                                       "not open yet"), sent=env.step, step=step))


def submission_digest(sub: SignedSubmission) -> str:
    """SHA-256 hex of the canonical bytes and the credential: equal for an exact resend.

    In password mode only the mode enters the digest, never the secret: a digest may
    be logged or shown, and a fast hash of a password could be brute-forced.
    """
    digest = hashlib.sha256(canonical_bytes(sub.envelope))
    if sub.signature is not None:
        digest.update(b"\nsignature:" + sub.signature.encode("ascii"))
    else:
        digest.update(b"\npassword")
    return digest.hexdigest()


def authenticate(
    sub: SignedSubmission,
    *,
    public_key: str | None = None,
    password_hash: str | None = None,
) -> None:
    """Check the submission's credential against what the player registered.

    Pass ``None`` for what is not registered (an unknown player: both ``None``).
    Raises :class:`CredentialError` (one fixed message, so the reply does not tell an
    unknown player from a wrong password) or :class:`SignatureError`.
    """
    if sub.signature is not None:
        if public_key is None:
            raise CredentialError()
        verify_signature(sub, public_key)
        return
    assert sub.password is not None
    if password_hash is None:
        check_password(_DUMMY_HASH, sub.password)  # same work, so timing tells nothing
        raise CredentialError()
    if not check_password(password_hash, sub.password):
        raise CredentialError()


# ------------------------------------------------------------------ passwords never stored

PASSWORD_MATCHED = "matched"
PASSWORD_WRONG = "wrong"
_REMOVED = "removed"  # stands for the password while a stored submission is read back


def check_password_of(sub: SignedSubmission, password_hash: str | None) -> str:
    """Check a password-mode submission once, when it arrives: :data:`PASSWORD_MATCHED` or
    :data:`PASSWORD_WRONG` (an unknown player costs the same work, so timing tells nothing)."""
    assert sub.password is not None
    if password_hash is None:
        check_password(_DUMMY_HASH, sub.password)
        return PASSWORD_WRONG
    return PASSWORD_MATCHED if check_password(password_hash, sub.password) else PASSWORD_WRONG


def without_password(sub: SignedSubmission) -> bytes:
    """What is stored of a password-mode submission: its envelope as JSON, the password left out
    (the store keeps whether it matched beside it). Its digest is the submission's digest."""
    text = json.dumps(_canonical_object(sub.envelope), sort_keys=True, indent=2, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def parse_password_removed(raw: bytes) -> SignedSubmission:
    """Read back what :func:`without_password` stored (a password-mode submission, no password)."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise EnvelopeError("the stored submission (password removed) is damaged: not JSON") from None
    if not isinstance(obj, dict) or "password" in obj or "signature" in obj:
        raise EnvelopeError("the stored submission (password removed) is damaged")
    obj["password"] = _REMOVED
    return parse_json_submission(json.dumps(obj))

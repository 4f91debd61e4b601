"""Credentials: Ed25519 key pairs and key files, public key lines, password hashes.

What a player registers, and what makes a submission his: an Ed25519 key pair (the
private key as unencrypted PKCS8 PEM, the public key as one line
``pbem-ed25519 <base64 of 32 bytes>``, with a short fingerprint), written to
``<name>.key`` and ``<name>.pub`` without ever overwriting a file; or, for players
without a key, an scrypt hash of a password (the password itself is never stored).

Signing, verifying and :func:`~pbem.envelope.authenticate` work on submissions and
live in :mod:`pbem.envelope`, which re-exports every public name of this module. The
small text helpers at the top (quoting user text in messages, the characters that may
not travel in a line, strict base64) are shared with :mod:`pbem.envelope`.

A pure library like :mod:`pbem.envelope`: no database, no command line, no printing;
every failure a user can cause raises an :class:`~pbem.errors.EnvelopeError`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from pbem.errors import EnvelopeError, KeyFileError, KeyFileExistsError, KeyFormatError

__all__ = [
    "MAX_PASSWORD_LENGTH",
    "PUBLIC_KEY_PREFIX",
    "KeyPair",
    "check_password",
    "generate_keypair",
    "hash_password",
    "key_fingerprint",
    "keypair_from_private_key",
    "load_private_key",
    "load_public_key",
    "write_keypair",
]

PUBLIC_KEY_PREFIX = "pbem-ed25519"
MAX_PASSWORD_LENGTH = 200

_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


# ------------------------------------------- text helpers (also used by pbem.envelope)


def _quote(value: str, limit: int = 60) -> str:
    """``repr`` of user text, shortened; repr also escapes surrogates and controls."""
    if len(value) > limit:
        return repr(value[: limit - 3]) + "..."
    return repr(value)


def _bad_char(text: str, *, allow_tab: bool = False) -> str | None:
    """The first character that cannot travel in a header or an order line."""
    for ch in text:
        if ch == "\t" and allow_tab:
            continue
        if unicodedata.category(ch) in _BAD_CATEGORIES:
            return ch
    return None


def _b64decode(text: str) -> bytes | None:
    """Strict, canonical base64 (so one byte string has exactly one spelling)."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except ValueError:  # binascii.Error and UnicodeEncodeError are ValueErrors
        return None
    if base64.b64encode(raw).decode("ascii") != text:
        return None
    return raw


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


# --------------------------------------------------------------------------- keys


@dataclass(frozen=True)
class KeyPair:
    """A private key as unencrypted PKCS8 PEM and its one-line public key text."""

    private_pem: bytes = field(repr=False)
    public_text: str

    @property
    def fingerprint(self) -> str:
        return key_fingerprint(self.public_text)


def _public_text(key: Ed25519PublicKey) -> str:
    return f"{PUBLIC_KEY_PREFIX} {_b64(key.public_bytes_raw())}"


def _keypair(key: Ed25519PrivateKey) -> KeyPair:
    # (imported here, as in load_private_key: only key files need cryptography's serialization module,
    # which brings its SSH and every other key format with it, about 20 ms of a start-up; checking a
    # signature, which pbem submit, inbox and verify do, needs none of it)
    from cryptography.hazmat.primitives import serialization

    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return KeyPair(private_pem=pem, public_text=_public_text(key.public_key()))


def generate_keypair() -> KeyPair:
    """A new random Ed25519 key pair."""
    return _keypair(Ed25519PrivateKey.generate())


def keypair_from_private_key(data: bytes | str) -> KeyPair:
    """The key pair (with its public text) of a private key file's content."""
    return _keypair(load_private_key(data))


def load_private_key(data: bytes | str) -> Ed25519PrivateKey:
    """Load an unencrypted PEM (PKCS8) Ed25519 private key as written by ``pbem keygen``."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if data.strip().startswith(PUBLIC_KEY_PREFIX.encode("ascii")):
        raise KeyFormatError(
            "this is a public key (the .pub file); signing needs the private key (the .key file)"
        )
    from cryptography.hazmat.primitives import serialization

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError as exc:  # raised for a key protected by a passphrase
        raise KeyFormatError(
            "the private key is protected by a passphrase; pbem uses unencrypted key files "
            "as written by `pbem keygen`"
        ) from exc
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise KeyFormatError(
            "the private key is not a PEM private key; expected a file starting with "
            "'-----BEGIN PRIVATE KEY-----' as written by `pbem keygen`"
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFormatError(
            f"the private key is a {type(key).__name__}; pbem needs an Ed25519 key "
            "made by `pbem keygen`"
        )
    return key


def _raw_public_key(text: str) -> bytes:
    if not isinstance(text, str):
        raise KeyFormatError(f"a public key is text, not {type(text).__name__}")
    parts = text.split()
    if len(parts) != 2 or parts[0] != PUBLIC_KEY_PREFIX:
        if "PRIVATE KEY" in text:
            raise KeyFormatError(
                "this is a private key; register the public key (the one line in the .pub file)"
            )
        raise KeyFormatError(
            f"the public key is {_quote(text.strip())}; it must be one line "
            f"'{PUBLIC_KEY_PREFIX} <base64 of 32 bytes>' as in the .pub file from `pbem keygen`"
        )
    raw = _b64decode(parts[1])
    if raw is None or len(raw) != 32:
        raise KeyFormatError(
            f"the public key data {_quote(parts[1])} is not the base64 of 32 bytes; "
            "copy the whole line of the .pub file"
        )
    return raw


def load_public_key(text: str) -> Ed25519PublicKey:
    """Load a public key line ``pbem-ed25519 <base64 of 32 raw bytes>``."""
    raw = _raw_public_key(text)
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError as exc:
        raise KeyFormatError(f"the public key {_quote(text.strip())} is not valid") from exc


def key_fingerprint(public_text: str) -> str:
    """First 16 hex digits of the SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(_raw_public_key(public_text)).hexdigest()[:16]


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError as exc:
        raise KeyFileExistsError(
            f"{path} already exists; refusing to overwrite a key file "
            "(choose another name or move the old file away)"
        ) from exc
    except OSError as exc:
        raise KeyFileError(f"cannot write {path}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(path, mode)  # O_CREAT's mode is filtered by the umask
    except OSError as exc:
        raise KeyFileError(f"cannot write {path}: {exc.strerror}") from exc


def write_keypair(path_prefix: Path, keypair: KeyPair | None = None) -> tuple[Path, Path]:
    """Write ``<prefix>.key`` (mode 600) and ``<prefix>.pub``; never overwrite a file.

    A new key pair is generated unless one is given. Returns both paths.
    """
    prefix = Path(path_prefix)
    if not prefix.name:
        raise KeyFileError(f"{str(path_prefix)!r} is not a file name prefix; give e.g. 'alice'")
    private_path = prefix.with_name(prefix.name + ".key")
    public_path = prefix.with_name(prefix.name + ".pub")
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise KeyFileExistsError(
                f"{path} already exists; refusing to overwrite a key file "
                "(choose another name or move the old file away)"
            )
    pair = keypair if keypair is not None else generate_keypair()
    _write_new(private_path, pair.private_pem, 0o600)
    try:
        _write_new(public_path, (pair.public_text + "\n").encode("ascii"), 0o644)
    except KeyFileError:
        private_path.unlink(missing_ok=True)
        raise
    return private_path, public_path


# ---------------------------------------------------------------------- passwords


def _check_password_text(value: object) -> None:
    # The secret itself is never quoted in a message.
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_PASSWORD_LENGTH
        or value != value.strip()
        or _bad_char(value) is not None
    ):
        raise EnvelopeError(
            f"the password must be 1 to {MAX_PASSWORD_LENGTH} characters without line breaks, "
            "control characters or surrounding spaces"
        )


_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_DUMMY_HASH = f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${_b64(bytes(16))}${_b64(bytes(32))}"


def hash_password(secret: str) -> str:
    """``scrypt$16384$8$1$<salt b64>$<hash b64>`` with a random 16-byte salt."""
    _check_password_text(secret)
    salt = os.urandom(16)
    digest = hashlib.scrypt(
        secret.encode("utf-8"), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def check_password(stored: str, secret: str) -> bool:
    """Whether ``secret`` matches a hash made by :func:`hash_password`."""
    parts = stored.split("$") if isinstance(stored, str) else []
    params = [int(p) if p.isascii() and p.isdigit() and len(p) <= 9 else 0 for p in parts[1:4]]
    salt = _b64decode(parts[4]) if len(parts) == 6 else None
    expected = _b64decode(parts[5]) if len(parts) == 6 else None
    if (
        len(parts) != 6
        or parts[0] != "scrypt"
        or salt is None
        or not expected
        or not 2 <= params[0] <= 2**17
        or params[0] & (params[0] - 1)
        or not 1 <= params[1] <= 16
        or not 1 <= params[2] <= 4
    ):
        raise EnvelopeError(
            "the stored password hash is malformed; expected "
            "'scrypt$16384$8$1$<salt base64>$<hash base64>' as made by hash_password"
        )
    if not isinstance(secret, str):
        return False
    n, r, p = params
    try:
        candidate = hashlib.scrypt(
            secret.encode("utf-8"),
            salt=salt,
            n=n,
            r=r,
            p=p,
            dklen=len(expected),
            maxmem=256 * r * (n + p) + 2**20,
        )
    except (UnicodeEncodeError, ValueError):  # a lone surrogate; an over-long dklen
        return False
    return hmac.compare_digest(candidate, expected)

"""An IMAP mailbox as the inbox (``pbem inbox --imap imaps://user@host/INBOX``), with imapclient.

The messages go through exactly the path a Maildir's take (:func:`pbem.transport.ingest`):
stored by their game first, then remembered by the SHA-256 of their bytes in the home's
``inbox-seen.jsonl``, then marked in the mailbox. So the guarantees are the same: nothing is
fed twice, and a crash at any point loses nothing (a message stored but not remembered is
fed again and the store answers an exact resend ``duplicate``).

* **Reading never changes a message.** Bodies are fetched with ``BODY.PEEK[]``, so a message
  pbem does not take stays unread for the moderator's mail reader. pbem never deletes, moves
  or expunges anything.
* **Marking what was taken.** A delivered message gets the flags ``\\Seen`` and the keyword
  :data:`INGESTED` (``$PbemIngested``). Messages carrying the keyword are not fetched again;
  if the server does not keep keywords, the seen file alone keeps them from being fed twice.
* **Connection.** ``imaps://`` is TLS from the first byte (port 993 by default); ``imap://``
  is plain (port 143) unless ``starttls`` switches it to TLS first; plain is refused unless the
  server is this machine (localhost, 127.0.0.1, ::1), so a password never crosses a network in clear. Certificates are checked
  against the system's authorities, or against ``cafile`` (a club's own server).
  The password never appears on a command line: it comes from the environment variable
  ``PBEM_IMAP_PASSWORD`` or a file (see the CLI).
"""

from __future__ import annotations

import contextlib
import ipaddress
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pbem.store import Home
from pbem.transport.common import MailError, Progress, exclusive
from pbem.transport.inbox import InboxRun, MessageResult, _check_home, ingest

__all__ = ["INGESTED", "ImapUrl", "parse_imap_url", "read_imap"]

#: The IMAP keyword set on every message pbem delivered to a game.
INGESTED = b"$PbemIngested"
_SEEN = b"\\Seen"


@dataclass(frozen=True)
class ImapUrl:
    tls: bool  # imaps://
    user: str
    host: str
    port: int
    folder: str

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'imaps' if self.tls else 'imap'}://{self.user}@{host}:{self.port}/{self.folder}"


def parse_imap_url(text: str) -> ImapUrl:
    """``imaps://user@host[:port][/FOLDER]`` or ``imap://...`` (RFC 5092, the parts pbem uses);
    the folder defaults to INBOX. Raises :class:`MailError` naming what is wrong."""
    example = "like imaps://club@mail.example.org/INBOX"
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as exc:
        raise MailError(f"--imap {text!r} is not a usable address ({exc}); write it {example}") from None
    if parts.scheme not in ("imap", "imaps"):
        raise MailError(f"--imap {text!r} must start with imaps:// (TLS) or imap:// (plain or STARTTLS); "
                        f"write it {example}")
    if not parts.hostname:
        raise MailError(f"--imap {text!r} names no server; write it {example}")
    if not parts.username:
        raise MailError(f"--imap {text!r} names no user; put the login name before the server: {example}")
    if parts.password is not None:
        raise MailError("--imap: never put the password in the address (other users of the machine can see "
                        "command lines); give it in PBEM_IMAP_PASSWORD or with --imap-password-file")
    if parts.query or parts.fragment:
        raise MailError(f"--imap {text!r}: nothing may follow the folder name; write it {example}")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    tls = parts.scheme == "imaps"
    return ImapUrl(tls, unquote(parts.username), parts.hostname, port or (993 if tls else 143), folder)


def _context(cafile: Path | None) -> ssl.SSLContext:
    try:
        return ssl.create_default_context(cafile=str(cafile) if cafile else None)
    except (OSError, ssl.SSLError) as exc:
        raise MailError(f"cannot use the certificate file {cafile}: {exc}") from None


def _connect(url: ImapUrl, password: str, *, starttls: bool, cafile: Path | None, timeout: float) -> Any:
    from imapclient import IMAPClient
    from imapclient.exceptions import IMAPClientError, LoginError

    where = f"{url.host}:{url.port}"
    if url.tls and starttls:
        raise MailError("imaps:// is TLS already; --imap-starttls is for imap:// addresses")
    if not url.tls and not starttls and not _loopback(url.host):
        raise MailError(f"imap://{url.host} without --imap-starttls would send the password unencrypted over the "
                        "network; use imaps:// (TLS) or add --imap-starttls (plain imap:// is only for this "
                        "machine: localhost, 127.0.0.1, ::1)")
    context = _context(cafile) if url.tls or starttls else None
    try:
        client = IMAPClient(url.host, port=url.port, ssl=url.tls, ssl_context=context, timeout=timeout)
    except ssl.SSLError as exc:
        raise MailError(f"TLS with the IMAP server {where} failed: {exc}; check the address (imaps:// needs "
                        "a TLS port, usually 993) and the server's certificate (--imap-cafile)") from None
    except (TimeoutError, OSError) as exc:
        raise MailError(f"cannot reach the IMAP server {where}: {exc}; check the address in --imap") from None
    try:
        if starttls:
            try:
                client.starttls(context)
            except ssl.SSLError as exc:
                raise MailError(f"STARTTLS with the IMAP server {where} failed: {exc}; check the server's "
                                "certificate (--imap-cafile)") from None
        try:
            client.login(url.user, password)
        except LoginError as exc:
            raise MailError(f"the IMAP server {where} refused the login of {url.user!r}: {_text(exc)}; check "
                            "the user in --imap and the password (PBEM_IMAP_PASSWORD or --imap-password-file)"
                            + ("" if url.tls or starttls else "; a server may refuse logins without TLS: try "
                               "imaps:// or --imap-starttls")) from None
    except (MailError, IMAPClientError, OSError) as exc:
        _logout(client)
        if isinstance(exc, MailError):
            raise
        raise MailError(f"the IMAP server {where} failed: {_text(exc)}") from None
    return client


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _text(exc: BaseException) -> str:
    text = str(exc)
    if text.startswith("b'") or text.startswith('b"'):
        text = text[2:-1]
    return " ".join(text.split())[:200] or type(exc).__name__


def _logout(client: Any) -> None:
    try:
        client.logout()
    except Exception:  # noqa: BLE001 - the connection is going away anyway
        with contextlib.suppress(Exception):
            client.shutdown()


def read_imap(home: Home, url: ImapUrl, password: str, *, starttls: bool = False, cafile: Path | None = None,
              retry: bool = False, timeout: float = 60.0,
              on_result: Callable[[MessageResult], None] | None = None, progress: Progress | None = None,
              jobs: int = 1) -> InboxRun:
    """Feed every message of the IMAP folder not handled before to the game it names, and mark
    each delivered one (``\\Seen`` and :data:`INGESTED`). Raises :class:`MailError` when the
    server or the folder cannot be used; a message's own problems are results. ``jobs``: worker
    processes for independent games, as :func:`pbem.transport.inbox.ingest`."""
    from imapclient.exceptions import IMAPClientError

    _check_home(home)
    with exclusive(home.path / ".pbem-inbox.lock", "inbox"):
        client = _connect(url, password, starttls=starttls, cafile=cafile, timeout=timeout)
        try:
            try:
                info = client.select_folder(url.folder)
            except IMAPClientError as exc:
                raise MailError(f"the IMAP server has no folder {url.folder!r} for {url.user} ({_text(exc)}); "
                                "name the folder after the server in --imap (…/INBOX)") from None
            permanent = {bytes(f) for f in info.get(b"PERMANENTFLAGS", ())}
            keywords = b"\\*" in permanent or INGESTED in permanent
            uids = sorted(client.search(["ALL"]))  # UIDs grow with delivery: delivery order
            flags = client.get_flags(uids) if uids else {}
            marked = {u for u in uids if INGESTED in {bytes(f) for f in flags.get(u, ())}}
            todo = [u for u in uids if u not in marked] if not retry else uids
            skipped = len(uids) - len(todo)

            def fetch(uid: int) -> bytes:
                got = client.fetch([uid], ["BODY.PEEK[]"])
                if uid not in got:
                    raise KeyError(uid)  # expunged by someone else meanwhile
                return bytes(got[uid][b"BODY[]"])

            def mark(uid: int) -> None:
                client.add_flags([uid], [_SEEN, INGESTED] if keywords else [_SEEN], silent=True)

            return ingest(home, str(url), todo, fetch, mark=mark, retry=retry, already=skipped,
                          on_result=on_result, progress=progress, jobs=jobs)
        except (IMAPClientError, OSError) as exc:
            raise MailError(f"the IMAP server {url.host}:{url.port} failed: {_text(exc)}; run again later "
                            "(nothing is lost: what was handled is remembered)") from None
        finally:
            _logout(client)

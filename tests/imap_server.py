"""A real Dovecot IMAP server on 127.0.0.1 for the tests, configured entirely under a temporary folder.

One passwd-file user (``club``), a Maildir under the folder (as root: see :func:`dovecot`), a free port; TLS off (``ssl=no``)
or required (``ssl=required``, a self-signed certificate for 127.0.0.1 made here with
``cryptography``), with an IMAPS port and STARTTLS on the plain port. Dovecot runs in the
foreground (``dovecot -F -c CONF``) as a child process and is stopped when the test ends.
"""

from __future__ import annotations

import contextlib
import datetime
import email
import ipaddress
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

USER, PASSWORD = "club", "imap secret 1"


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or next((p for p in ("/usr/sbin/dovecot", "/usr/local/sbin/dovecot")
                                            if os.path.exists(p)), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and localhost): (cert.pem, key.pem)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


@dataclass
class ImapServer:
    port: int  # plain IMAP (STARTTLS when TLS is on)
    tls_port: int | None  # IMAPS, when TLS is on
    cafile: Path | None
    log: Path

    def url(self, *, tls: bool = False, folder: str = "INBOX") -> str:
        if tls:
            return f"imaps://{USER}@127.0.0.1:{self.tls_port}/{folder}"
        return f"imap://{USER}@127.0.0.1:{self.port}/{folder}"

    def client(self) -> object:
        """An IMAP connection as the mailbox's owner (STARTTLS when the server requires TLS)."""
        import ssl

        from imapclient import IMAPClient

        c = IMAPClient("127.0.0.1", port=self.port, ssl=False, timeout=20)
        if self.cafile is not None:
            c.starttls(ssl.create_default_context(cafile=str(self.cafile)))
        c.login(USER, PASSWORD)
        return c


def _mail_owner() -> tuple[int, int]:
    """Dovecot never gives mail access to root: as root the mail belongs to 'nobody'."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    nobody = pwd.getpwnam("nobody")
    return nobody.pw_uid, nobody.pw_gid


@contextlib.contextmanager
def dovecot(folder: Path, *, tls: bool) -> Iterator[ImapServer]:
    binary = dovecot_binary()
    assert binary is not None
    own = None
    if os.geteuid() == 0:
        # Dovecot's own processes (users dovecot, dovenull, and nobody for the mail) must reach the
        # folder, and pytest keeps root's temporary folders private (0700, reset by every pytest run):
        # as root the server's folder is a fresh one in the system's temporary folder, removed after.
        own = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        own.chmod(0o755)
        folder = own
    folder.mkdir(parents=True, exist_ok=True)
    uid, gid = _mail_owner()
    mail = folder / "mail"
    mail.mkdir()
    if own is not None:
        os.chown(mail, uid, gid)
    port, tls_port = _free_port(), (_free_port() if tls else 0)
    run = folder / "run"
    log = folder / "dovecot.log"
    passwd = folder / "passwd"
    passwd.write_text(f"{USER}:{{PLAIN}}{PASSWORD}:{uid}:{gid}::{mail / USER}::\n")
    cafile = None
    ssl_conf = "ssl = no\ndisable_plaintext_auth = no\n"
    if tls:
        cafile, key = make_certificate(folder)
        ssl_conf = f"ssl = required\nssl_cert = <{cafile}\nssl_key = <{key}\ndisable_plaintext_auth = yes\n"
    login_user = "dovenull" if os.geteuid() == 0 else pwd.getpwuid(os.getuid()).pw_name
    internal_user = "dovecot" if os.geteuid() == 0 else login_user
    conf = folder / "dovecot.conf"
    conf.write_text(f"""\
protocols = imap
listen = 127.0.0.1
base_dir = {run}
state_dir = {run / "state"}
log_path = {log}
info_log_path = {log}
{ssl_conf}auth_mechanisms = plain login
first_valid_uid = {min(uid, 500)}
first_valid_gid = {min(gid, 500) or 1}
mail_location = maildir:{mail}/%u
default_login_user = {login_user}
default_internal_user = {internal_user}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {passwd}
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {passwd}
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = {tls_port}
  }}
}}
service anvil {{
  chroot =
}}
""")
    proc = subprocess.Popen([binary, "-F", "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                raise RuntimeError(f"dovecot stopped at once ({proc.returncode}): {out}\n"
                                   f"{log.read_text() if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"dovecot did not listen on {port}: "
                                       f"{log.read_text() if log.exists() else ''}") from None
                time.sleep(0.05)
        yield ImapServer(port, tls_port or None, cafile, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)


class Inboxes:
    """The players' mailboxes: every message the SMTP server accepted, by recipient."""

    def __init__(self) -> None:
        self.got: dict[str, list[EmailMessage]] = {}

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        subject = msg["Subject"]
        if subject is not None and subject != subject.lstrip():
            # A subject that fits on a line of its own is folded right after "Subject:" (the standard
            # library's choice, valid RFC 5322); unfolded it is the same field, which a mail program
            # shows without the leading space, but the library reads it back with one.
            msg.replace_header("Subject", subject.lstrip())
        for rcpt in envelope.rcpt_tos:
            assert msg["To"] == rcpt  # one recipient per message
            self.got.setdefault(rcpt, []).append(msg)
        return "250 Message accepted for delivery"

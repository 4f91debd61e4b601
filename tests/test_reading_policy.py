"""pbem reads mail with ``policy.default``, its headers parsed once per message (``READING``): the
same headers, the same bodies, whatever the header says; the memo stays small."""

from __future__ import annotations

from email import policy
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from email.parser import BytesParser
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.transport import mime as reading
from pbem.transport.message import extract_body_from_email
from pbem.transport.mime import READING

if TYPE_CHECKING:
    from conftest import Spy

NAMES = ["Subject", "From", "To", "Content-Type", "Content-Transfer-Encoding", "Message-ID", "Date", "X-Any"]


def _kind(header: Any) -> tuple[Any, ...]:
    # (a registry makes its own class per header: the same name on the same bases)
    return type(header).__name__, type(header).__bases__, str(header), header.name, [type(d) for d in header.defects]


def _same(a: Any, b: Any) -> None:
    assert _kind(a) == _kind(b)


def _made(factory: Any, name: str, value: str) -> Any:
    """What ``factory`` makes of the header, or the kind of error it raises (so would policy.default)."""
    try:
        return _kind(factory(name, value))
    except Exception as exc:  # noqa: BLE001 - a value no parsed message holds (a bare CR, say)
        return type(exc)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NAMES), st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_a_header_is_what_policy_default_makes_of_it_asked_once_or_twice(name: str, value: str) -> None:
    fresh = _made(policy.default.header_factory, name, value)
    assert _made(READING.header_factory, name, value) == fresh
    assert _made(READING.header_factory, name, value) == fresh  # the second time from the memo


ODD = [
    b"From: =?utf-8?q?J=C3=BCrgen?= <j@example.org>\nSubject: =?iso-8859-1?q?caf=E9?=\n"
    b"Content-Type: text/plain; charset=\"iso-8859-1\"; format=flowed; delsp=yes\n"
    b"Content-Transfer-Encoding: quoted-printable\n\nmove Roma -> Genua: =\nLegio 8\nca=E9 \nend\n",
    b"Content-Type: multipart/alternative; boundary=XX\n\n--XX\nContent-Type: text/plain; charset=utf-8\n\n"
    b"stub\n--XX\nContent-Type: text/html; charset=utf-8\n\n<p>-----BEGIN PBEM ORDERS-----</p>\n--XX--\n",
    b"Content-Type: text/plain; charset*=utf-8''%E2%9C%93\n\nplain text\n",
    b"Content-Type: text/plain; charset=\nSubject: broken\n\nbody\n",
]


@pytest.mark.parametrize("raw", ODD)
def test_a_message_reads_the_same_as_with_policy_default(raw: bytes) -> None:
    mine, theirs = BytesParser(policy=READING).parsebytes(raw), BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(mine, EmailMessage)
    assert [(k, str(v)) for k, v in mine.items()] == [(k, str(v)) for k, v in theirs.items()]
    assert mine.get_content_type() == theirs.get_content_type()
    assert mine.get_param("charset") == theirs.get_param("charset")


def test_finding_the_body_parses_each_header_once(monkeypatch: pytest.MonkeyPatch, calls: Spy) -> None:
    parsed = calls(HeaderRegistry, "__call__", lambda _self, name, _value: name)
    monkeypatch.setattr(READING.header_factory, "_made", {})
    raw = ODD[0].replace(b"Subject:", b"Message-ID: <once@example.org>\nSubject:")
    assert "move Roma -> Genua: Legio 8" in extract_body_from_email(raw)
    assert parsed.count("Content-Type") == 1 and len(parsed) == len(set(parsed))


def test_the_memo_keeps_at_most_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading._RememberingRegistry, "_KEEP", 16)
    factory = reading._RememberingRegistry()
    for i in range(100):
        factory("Subject", f"subject {i}")
        assert len(factory._made) <= 16
    _same(factory("Subject", "subject 99"), policy.default.header_factory("Subject", "subject 99"))

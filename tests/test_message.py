"""Reading one incoming mail: senders, bodies in every encoding, auto-replies, and input that is not mail at all."""

from __future__ import annotations

import base64
import hashlib
from email.message import EmailMessage

import pytest

from judge.mail.message import Incoming, Problem, parse_incoming
from judge.mail.part_text import html_to_text

ORDERS_RU = "Приказы: A Москва - Севастополь\nF Севастополь - Чёрное море\n"


def _mail(body: str = "A par - bur\nF bre - mao\n", **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = headers.pop("From", "Alice Liddell <Alice@Example.ORG>")
    msg["To"] = "judge@example.net"
    msg["Subject"] = headers.pop("Subject", "orders")
    msg["Message-ID"] = headers.pop("Message_ID", "<1234.abcd@mail.example.org>")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg.as_bytes()


def test_plain_message() -> None:
    raw = _mail()
    got = parse_incoming(raw)
    assert got == Incoming(
        sender="alice@example.org",
        sender_name="Alice Liddell",
        reply_to="alice@example.org",
        message_id="1234.abcd@mail.example.org",
        subject="orders",
        body="A par - bur\nF bre - mao\n",
        digest=hashlib.sha256(raw).hexdigest(),
        size=len(raw),
        auto=False,
        problem=None,
    )


def test_literal_bytes_with_crlf_and_bom() -> None:
    raw = (
        b"\xef\xbb\xbfFrom: bob@example.org\r\nSubject: hi\r\nMessage-ID: <m1@x.org>\r\n\r\n"
        b"A ber - kie\r\nA mun - ruh\r\rF kie - den\r\n"
    )
    got = parse_incoming(raw)
    assert got.sender == "bob@example.org"
    assert got.sender_name == ""
    assert got.body == "A ber - kie\nA mun - ruh\n\nF kie - den\n"
    assert got.digest == hashlib.sha256(raw).hexdigest() and got.size == len(raw)
    assert got.problem is None


def test_quoted_printable_utf8() -> None:
    raw = (
        b"From: carol@example.org\nSubject: qp\nMIME-Version: 1.0\n"
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
        b"F Gulf of Bothnia - Sweden =E2=80=94 J=C3=B6rg's idea, a very long line that the mail=\n"
        b"er wrapped\nA war H\n"
    )
    got = parse_incoming(raw)
    assert got.body == (
        "F Gulf of Bothnia - Sweden \u2014 J\u00f6rg's idea, a very long line that the mailer wrapped\nA war H\n"
    )
    assert got.problem is None


@pytest.mark.parametrize("charset", ["windows-1251", "koi8-r"])
def test_base64_russian_text(charset: str) -> None:
    encoded = base64.encodebytes(ORDERS_RU.replace("\n", "\r\n").encode(charset))
    raw = (
        b"From: ivan@example.ru\nSubject: orders\nMIME-Version: 1.0\n"
        b'Content-Type: text/plain; charset="' + charset.encode() + b'"\n'
        b"Content-Transfer-Encoding: base64\n\n" + encoded
    )
    got = parse_incoming(raw)
    assert got.body == ORDERS_RU
    assert got.problem is None


def test_koi8r_built_with_the_email_package() -> None:
    msg = EmailMessage()
    msg["From"] = "Иван Петров <ivan@example.ru>"
    msg["Subject"] = "Приказы на весну 1901"
    msg.set_content(ORDERS_RU, charset="koi8-r", cte="quoted-printable")
    got = parse_incoming(msg.as_bytes())
    assert (got.sender, got.sender_name) == ("ivan@example.ru", "Иван Петров")
    assert got.subject == "Приказы на весну 1901"
    assert got.body == ORDERS_RU


def test_multipart_alternative_prefers_plain_text() -> None:
    msg = EmailMessage()
    msg["From"] = "dave@example.org"
    msg.set_content("A vie - tri\n")
    msg.add_alternative("<p>THE HTML VERSION</p>", subtype="html")
    msg.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", filename="map.png")
    msg.add_attachment("F tri - adr\n", filename="notes.txt")
    got = parse_incoming(msg.as_bytes())
    assert got.body == "A vie - tri\n"
    assert got.problem is None


def test_html_only_message() -> None:
    msg = EmailMessage()
    msg["From"] = "erin@example.org"
    msg.set_content(
        "<html><head><title>Orders</title><style>p { color: red }</style></head><body>"
        "<div>A par&nbsp;- bur</div><div>F bre -&gt; mao</div><p>Thanks &amp; bye</p>"
        "<script>alert('x')</script></body></html>",
        subtype="html",
    )
    got = parse_incoming(msg.as_bytes())
    assert got.body == "A par - bur\nF bre -> mao\n\nThanks & bye"
    assert got.problem is None


def test_html_alternative_with_related_images() -> None:
    msg = EmailMessage()
    msg["From"] = "erin@example.org"
    msg.set_content("<p>F lon - nth<br>A lvp - yor</p>", subtype="html")
    msg.add_related(b"GIF89a", maintype="image", subtype="gif", cid="<logo@x>")
    got = parse_incoming(msg.as_bytes())
    assert got.body == "F lon - nth\nA lvp - yor"


@pytest.mark.parametrize(
    "markup,want",
    [
        ("plain words", "plain words"),
        ("<p>one</p><p>two</p>", "one\n\ntwo"),
        ("a<br>b<br/>c", "a\nb\nc"),
        ("<ul><li>A par H</li><li>A mar H</li></ul>", "A par H\nA mar H"),
        ("<div>  spaced\n   out  words </div>", "spaced out words"),
        ("<pre>A  par\nA  mar</pre>", "A  par\nA  mar"),
        ("<style>.x{}</style><script>var a = '<p>no</p>';</script>kept", "kept"),
        ("&lt;orders&gt; &eacute; &#1040; &#x416;", "<orders> é А Ж"),
        ("<table><tr><td>A</td><td>par</td></tr><tr><td>F</td><td>bre</td></tr></table>", "A par\nF bre"),
        ("<head><title>x</title><body>after an unclosed head", "after an unclosed head"),
        ("<p>unclosed <b>tags <i>everywhere", "unclosed tags everywhere"),
        ("", ""),
    ],
)
def test_html_to_text(markup: str, want: str) -> None:
    assert html_to_text(markup) == want


@pytest.mark.parametrize(
    "header,want",
    [
        ("=?utf-8?q?Orders_for_Spring_1901_=E2=80=94_Austria?=", "Orders for Spring 1901 \u2014 Austria"),
        ("=?koi8-r?b?8NLJy8Ha2Q==?= 1901", "Приказы 1901"),
        ("=?utf-8?b?0J/RgNC40LrQsNC30Ys=?=\n =?utf-8?b?INCy0LXRgdC90LA=?=", "Приказы весна"),
        ("a long subject\n\tfolded over\n two lines", "a long subject folded over two lines"),
        ("=?x-unknown?q?abc?= tail", "abc tail"),
    ],
)
def test_encoded_subject(header: str, want: str) -> None:
    raw = b"From: f@example.org\nSubject: " + header.encode() + b"\n\nbody\n"
    assert parse_incoming(raw).subject == want


def test_raw_utf8_headers() -> None:
    raw = "From: Jörg Müller <jörg@example.de>\nSubject: Züge für Frühjahr\n\nA mun H\n".encode()
    got = parse_incoming(raw)
    assert got.sender == "jörg@example.de"
    assert got.sender_name == "Jörg Müller"
    assert got.subject == "Züge für Frühjahr"


@pytest.mark.parametrize(
    "from_header",
    [None, "", "Alice", "alice", "<>", "alice@", "@example.org", "undisclosed-recipients:;", "a b@example.org"],
)
def test_no_usable_sender(from_header: str | None) -> None:
    raw = (b"" if from_header is None else b"From: " + from_header.encode() + b"\n") + b"Subject: x\n\nA par H\n"
    got = parse_incoming(raw)
    assert got.sender == "" and got.reply_to == ""
    assert got.problem == "no sender"
    assert got.body == "A par H\n"


def test_first_valid_from_address_is_used() -> None:
    raw = b"From: Broken <not an address>, Grace <GRACE@Example.org>\n\nhi\n"
    got = parse_incoming(raw)
    assert (got.sender, got.sender_name) == ("grace@example.org", "Grace")


_BOUNDARIES = b"".join(b"--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (i, i + 1) for i in range(3000))
NO_SENDER = Problem.NO_SENDER


@pytest.mark.parametrize(
    "raw,problem,sender,body",
    [
        (b"", NO_SENDER, "", ""),
        (b"\x00\x01\x02\xff\xfe\xfd", NO_SENDER, "", "\x00\x01\x02\xff\xfe\xfd"),
        (bytes(range(256)) * 40, NO_SENDER, "", "\x00\x01\x02"),
        (b"\n\n\n", NO_SENDER, "", "\n\n"),
        (b"From: \xff\xfe <\x80@\x81>\nSubject: \xc3\x28\n\n\xff", NO_SENDER, "", "\xff"),
        (
            b'From: a@example.org\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n'
            b"unterminated",
            None,
            "a@example.org",
            "unterminated",
        ),
        (
            b"From: a@example.org\nContent-Type: multipart/mixed\n\nno boundary at all\n",
            None,
            "a@example.org",
            "no boundary at all",
        ),
        (b'From: a@example.org\nContent-Type: text/plain; charset="zlib"\n\nx\n', None, "a@example.org", "x"),
        (
            b"From: a@example.org\nContent-Transfer-Encoding: base64\n\n!!!not base64@@@\n",
            None,
            "a@example.org",
            "!!!not base64@@@",
        ),
        (b'From: a@example.org\nContent-Type: ;;;=="\n\nbody\n', None, "a@example.org", "body"),
        (b"From: " + b"a" * 100_000 + b"@example.org\n\nx", Problem.HEADER_TOO_LARGE, "", ""),
        (
            b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b0\n\n" + _BOUNDARIES,
            Problem.TOO_COMPLEX,
            "a@example.org",
            "",
        ),
    ],
)
def test_garbage_never_raises(raw: bytes, problem: Problem | None, sender: str, body: str) -> None:
    """Each kind of garbage is read by the reader's own rules, to a precise outcome: never by the catch-all of
    parse_incoming (which would answer "unreadable message" with nothing kept), and with what can be kept kept."""
    got = parse_incoming(raw)
    assert got.size == len(raw) and got.digest == hashlib.sha256(raw).hexdigest()
    assert (got.problem, got.sender) == (problem, sender)
    assert (body in got.body) if body else got.body == ""


def test_garbage_without_headers_has_no_sender() -> None:
    got = parse_incoming(b"\x00\x01\x02\xff\xfe\xfd")
    assert got.problem == "no sender"
    assert got.sender == "" and got.subject == "" and got.message_id == ""


def test_not_bytes_is_unreadable() -> None:
    got = parse_incoming("From: a@example.org\n\nhi")  # type: ignore[arg-type]
    assert got.problem == "unreadable message"


def test_unknown_charset_falls_back() -> None:
    utf8 = b"From: a@example.org\nContent-Type: text/plain; charset=x-martian\n\nZ\xc3\xbcge\n"
    latin = b"From: a@example.org\nContent-Type: text/plain\n\nZ\xfcge \x93quoted\x94\n"
    assert parse_incoming(utf8).body == "Züge\n"
    assert parse_incoming(latin).body == "Züge \u201cquoted\u201d\n"


def test_five_megabyte_message_is_too_large() -> None:
    raw = (
        b"From: Big Sender <big@example.org>\nSubject: =?utf-8?q?map_=F0=9F=97=BA?=\n"
        b"Message-ID: <big@example.org>\nContent-Type: text/plain\n\n" + b"A par H\n" * 655_360
    )
    assert len(raw) > 5_000_000
    got = parse_incoming(raw)
    assert got.problem == "too large"
    assert got.body == ""
    assert (got.sender, got.sender_name, got.subject) == ("big@example.org", "Big Sender", "map \U0001f5fa")
    assert got.message_id == "big@example.org"
    assert got.size == len(raw) and got.digest == hashlib.sha256(raw).hexdigest()


def test_too_large_reads_only_the_header_block() -> None:
    raw = b"Subject: no from here\n\nFrom: hidden@example.org\n" + b"x" * 2_000_000
    got = parse_incoming(raw)
    assert got.problem == "too large"
    assert got.sender == ""
    assert got.subject == "no from here"


def test_size_limit_is_a_parameter() -> None:
    raw = _mail()
    assert parse_incoming(raw, max_size=len(raw)).problem is None
    assert parse_incoming(raw, max_size=len(raw) - 1).problem == "too large"


def test_only_attachments_is_not_a_text_message() -> None:
    msg = EmailMessage()
    msg["From"] = "heidi@example.org"
    msg.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", filename="orders.png")
    got = parse_incoming(msg.as_bytes())
    assert got.problem == "not a text message"
    assert got.body == ""


def test_forwarded_message_is_not_the_body() -> None:
    inner = EmailMessage()
    inner["From"] = "someone@example.org"
    inner.set_content("F nth - nwy\n")
    outer = EmailMessage()
    outer["From"] = "ivan@example.org"
    outer.set_content("see below\n")
    outer.add_attachment(inner)
    assert parse_incoming(outer.as_bytes()).body == "see below\n"


def test_several_inline_text_parts_are_joined() -> None:
    raw = (
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=XX\n\n"
        b"--XX\nContent-Type: text/plain\n\nA par - bur\n"
        b"--XX\nContent-Type: image/png\nContent-Disposition: inline\n\nPNG\n"
        b"--XX\nContent-Type: text/plain\n\nA mar - spa\n--XX--\n"
    )
    assert parse_incoming(raw).body == "A par - bur\nA mar - spa"


def test_format_flowed_is_unwrapped() -> None:
    raw = (
        b"From: a@example.org\nContent-Type: text/plain; charset=utf-8; format=flowed\n\n"
        b"A very long line that the sender's client \nwrapped softly.\n"
        b"> quoted text that was \n> wrapped too\n"
        b" From here a stuffed line\n"
        b"-- \nsignature\n"
    )
    assert parse_incoming(raw).body == (
        "A very long line that the sender's client wrapped softly.\n"
        "> quoted text that was wrapped too\n"
        "From here a stuffed line\n"
        "-- \nsignature\n"
    )


def test_format_flowed_delsp() -> None:
    raw = b"From: a@example.org\nContent-Type: text/plain; format=flowed; delsp=yes\n\nSupercalifragi \nlistic\n"
    assert parse_incoming(raw).body == "Supercalifragilistic\n"


@pytest.mark.parametrize(
    "header",
    [
        "Auto-Submitted: auto-replied",
        "Auto-Submitted: auto-generated; owner-email=x@example.org",
        "Precedence: bulk",
        "Precedence: junk",
        "Precedence: LIST",
        "List-Id: Diplomacy players <dip.lists.example.org>",
        "X-Loop: judge@example.net",
        "X-Autoreply: yes",
        "Return-Path: <>",
    ],
)
def test_auto_headers(header: str) -> None:
    raw = _mail().replace(b"Subject:", header.encode() + b"\nSubject:", 1)
    got = parse_incoming(raw)
    assert got.auto
    assert got.problem is None  # auto mail is still readable; the judge only must not answer it


@pytest.mark.parametrize(
    "header",
    [
        "Auto-Submitted: no",
        "Auto-Submitted: No",
        "Precedence: first-class",
        "X-Loop: someone-else@example.com",
        "Return-Path: <alice@example.org>",
    ],
)
def test_not_auto(header: str) -> None:
    raw = _mail().replace(b"Subject:", header.encode() + b"\nSubject:", 1)
    assert not parse_incoming(raw).auto


def test_loop_token_is_a_parameter() -> None:
    raw = _mail().replace(b"Subject:", b"X-Loop: orders@dip.example.net\nSubject:", 1)
    assert not parse_incoming(raw).auto
    assert parse_incoming(raw, loop_token="Orders@Dip.Example.NET").auto
    assert not parse_incoming(raw, loop_token="other@dip.example.net").auto
    assert not parse_incoming(raw, loop_token="").auto


@pytest.mark.parametrize(
    "sender",
    [
        "MAILER-DAEMON@mx.example.org",
        "postmaster@example.org",
        "noreply@example.com",
        "No-Reply <no-reply@example.com>",
        "noreply+bounces@example.com",
    ],
)
def test_machine_senders_are_auto(sender: str) -> None:
    assert parse_incoming(_mail(From=sender)).auto


def test_bounce_report_is_auto() -> None:
    raw = (
        b"From: Mail Delivery System <mailer-daemon@mx.example.org>\n"
        b"Content-Type: multipart/report; report-type=delivery-status; boundary=R\n\n"
        b"--R\nContent-Type: text/plain\n\nDelivery failed.\n"
        b"--R\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--R--\n"
    )
    got = parse_incoming(raw)
    assert got.auto
    assert got.body == "Delivery failed."  # the line break before a boundary belongs to the boundary


def test_ordinary_message_is_not_auto() -> None:
    assert not parse_incoming(_mail()).auto


def test_reply_to() -> None:
    got = parse_incoming(_mail(Reply_To="Orders Desk <Orders@Example.ORG>"))
    assert got.sender == "alice@example.org"
    assert got.reply_to == "orders@example.org"


def test_invalid_reply_to_falls_back_to_sender() -> None:
    got = parse_incoming(_mail(Reply_To="nobody"))
    assert got.reply_to == "alice@example.org"


@pytest.mark.parametrize(
    "header,want",
    [
        ("<abc.123@host.example>", "abc.123@host.example"),
        ("  <abc@host>  (comment)", "abc@host"),
        ("bare-id@host", "bare-id@host"),
    ],
)
def test_message_id(header: str, want: str) -> None:
    raw = b"From: a@example.org\nMessage-ID: " + header.encode() + b"\n\nx\n"
    assert parse_incoming(raw).message_id == want


def test_missing_message_id() -> None:
    assert parse_incoming(b"From: a@example.org\n\nx\n").message_id == ""


# --- hostile input: bounded before the mail library parses it ---------------------------------------------------


def _encoded_words(n: int) -> bytes:
    return b" ".join(b"=?utf-8?q?w%d?=" % i for i in range(n))


@pytest.mark.parametrize("n,problem", [(60_000, "header block too large"), (3_000, "too complex")])
def test_encoded_word_bomb_is_refused_with_the_sender_kept(n: int, problem: str) -> None:
    import tracemalloc

    raw = b"From: a@example.org\nMessage-ID: <bomb@x.org>\nSubject: " + _encoded_words(n) + b"\n\nA par H\n"
    tracemalloc.start()
    got = parse_incoming(raw)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert got.problem == problem and got.sender == "a@example.org" and got.message_id == "bomb@x.org"
    assert got.subject == "" and got.body == ""
    assert peak < 40 * len(raw) + 20_000_000  # linear in the input: the quadratic header parse never runs


def test_a_few_encoded_words_are_still_decoded() -> None:
    raw = b"From: a@example.org\nSubject: " + b" ".join([b"=?utf-8?q?=C3=A9t=C3=A9?="] * 20) + b"\n\nx\n"
    got = parse_incoming(raw)
    assert got.problem is None and got.subject.startswith("été")


@pytest.mark.parametrize(
    "charset", ["punycode", "idna", "utf-7", "unicode_escape", "raw-unicode-escape", "base64", "rot13", "undefined"]
)
def test_only_text_charsets_are_decoded(charset: str) -> None:
    body = b"A par - bur\n" + b"a+-" * 1000
    raw = b"From: a@example.org\nContent-Type: text/plain; charset=" + charset.encode() + b"\n\n" + body
    got = parse_incoming(raw)
    assert got.problem is None and got.body.startswith("A par - bur\n")  # read as UTF-8, not with that codec
    subject = parse_incoming(b"From: a@example.org\nSubject: =?" + charset.encode() + b"?q?abc-def?=\n\nx\n")
    assert subject.problem is None and "abc" in subject.subject


def test_part_count_and_nesting_are_bounded() -> None:
    nested = b"From: a@example.org\n" + b"Content-Type: message/rfc822\n\n" * 20_000 + b"x"
    assert parse_incoming(nested).problem == "too complex"
    parts = (
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n"
        + b"--b\nContent-Type: text/plain\n\nA par H\n" * 500
        + b"--b--\n"
    )
    assert parse_incoming(parts).problem == "too complex"
    few = (
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n"
        + b"--b\nContent-Type: text/plain\n\nA par H\n" * 5
        + b"--b--\n"
    )
    assert parse_incoming(few).body.split() == ["A", "par", "H"] * 5


def test_body_text_is_bounded() -> None:
    raw = b"From: a@example.org\n\n" + b"A par H\n" * 120_000
    got = parse_incoming(raw)
    assert got.problem is None and 0 < len(got.body) <= 200_000 and got.body.endswith("\n")


@pytest.mark.parametrize(
    "header", [b"From: a\x00b@example.org", b"From: <a\x01b@example.org>", b"From: ab@exa\x7fmple.org"]
)
def test_control_characters_in_the_sender_are_refused(header: bytes) -> None:
    got = parse_incoming(header + b"\nSubject: x\n\nA par H\n")
    assert got.sender == "" and got.problem == "no sender"


@pytest.mark.parametrize("msgid", [b"<a\x00b@x.org>", b"<a\x1bb@x.org>", b"<" + b"a" * 300 + b"@x.org>"])
def test_control_characters_in_the_message_id_are_refused(msgid: bytes) -> None:
    got = parse_incoming(b"From: a@example.org\nMessage-ID: " + msgid + b"\n\nA par H\n")
    assert got.problem == "malformed Message-ID" and got.message_id == "" and got.sender == "a@example.org"


def test_date_arrival_and_references() -> None:
    raw = (
        b"Received: from x by mx.judge.test; Tue, 01 Dec 2026 10:05:00 +0100\nFrom: a@example.org\n"
        b"Date: Tue, 01 Dec 2026 10:00:00 +0100\nReferences: <1@x> <bad\x01@x>\n <2@x>\n\nA par H\n"
    )
    got = parse_incoming(raw)
    assert (got.date.isoformat(), got.arrived.isoformat()) == ("2026-12-01T09:00:00+00:00", "2026-12-01T09:05:00+00:00")
    assert got.references == ("1@x", "2@x")
    assert parse_incoming(b"From: a@example.org\nDate: yesterday\n\nx").date is None


def test_attachments_are_listed_and_text_files_read() -> None:
    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg.set_content("SIGNON France g pw\n")
    msg.add_attachment(b"A par - bur\n", maintype="text", subtype="plain", filename="orders.txt")
    msg.add_attachment(b"\x89PNG", maintype="image", subtype="png", filename="photo.png")
    msg.add_attachment(b"%PDF", maintype="application", subtype="pdf", filename="plan.pdf")
    got = parse_incoming(bytes(msg))
    assert got.body == "SIGNON France g pw\n"
    assert [(a.name, a.content_type, a.text) for a in got.attachments] == [
        ("orders.txt", "text/plain", "A par - bur\n"),
        ("plan.pdf", "application/pdf", None),
    ]


def test_html_blockquote_is_quoted() -> None:
    text = html_to_text("<p>A par - bur</p><blockquote>A par H<br>F bre H<blockquote>old</blockquote></blockquote>")
    assert text == "A par - bur\n\n> A par H\n> F bre H\n\n> > old"


@pytest.mark.parametrize(
    "raw",
    [
        b"From: " + b", ".join(b"<a%d@example.org>" % i for i in range(300)) + b"\n\nx\n",
        b"From: a@example.org\nSubject: " + b"word " * 4000 + b"\n\nx\n",
        b"From: a@example.org\nContent-Type: text/plain; " + b"a=b; " * 40 + b"\n\nx\n",
        b'From: a@example.org\nContent-Type: text/plain; name="' + b"x" * 3000 + b'"\n\nx\n',
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n"
        + (b'--b\nContent-Type: text/plain; name="' + b"x" * 1500 + b'"\n\nx\n') * 50
        + b"--b--\n",
    ],
)
def test_fields_parsed_in_quadratic_time_are_bounded(raw: bytes) -> None:
    assert parse_incoming(raw).problem == "too complex"


@pytest.mark.parametrize("unit", ["<a ", "</", "<", "<!", "<?", "<blockquote>x", "<br>", "&#"])
def test_html_that_the_html_parser_reads_in_quadratic_time_is_defused(unit: str) -> None:
    # each "<" that opens no complete tag is text: the parser never rescans the rest of the document for it
    markup = unit * (300_000 // len(unit))
    text = html_to_text(markup)
    assert len(text) <= 60 * len(markup)
    raw = b"From: a@example.org\nContent-Type: text/html\n\n" + markup.encode()
    got = parse_incoming(raw)
    assert got.problem is None and len(got.body) <= 200_000


def test_stray_angle_brackets_are_text_and_tags_still_work() -> None:
    assert html_to_text("<p>A par <- bur</p><p>F bre < mao <b>now</b></p>") == "A par <- bur\n\nF bre < mao now"
    assert html_to_text("<div>A par - bur<br>F bre - mao</div><!-- x --><?xml x?>") == "A par - bur\nF bre - mao"

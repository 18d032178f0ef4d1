"""DKIM for the tests: keys made here (RSA with cryptography, ed25519 with PyNaCl), a real DNS server on loopback
(dnslib, UDP, a free port) that publishes them as ``selector._domainkey.domain`` TXT records, and mail signed with
dkimpy. Nothing is mocked: the judge's resolver asks this server over the network stack."""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass

from dnslib import QTYPE, RCODE, RR, TXT
from dnslib.server import BaseResolver, DNSLogger, DNSServer


@dataclass(frozen=True)
class Key:
    private: bytes  # what [dkim] sign_key's file holds
    public: str  # the p= of the DNS record
    kind: str  # "rsa" or "ed25519"

    @property
    def record(self) -> str:
        return f"v=DKIM1; k={self.kind}; p={self.public}"


def rsa_key(bits: int = 2048) -> Key:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    der = private.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return Key(pem, base64.b64encode(der).decode(), "rsa")


def ed25519_key() -> Key:
    import nacl.signing

    private = nacl.signing.SigningKey.generate()
    return Key(
        base64.b64encode(bytes(private)),
        base64.b64encode(bytes(private.verify_key)).decode(),
        "ed25519",
    )


class _Zone(BaseResolver):  # type: ignore[misc]
    """Answers TXT questions from a dict; names it does not hold are NXDOMAIN; ``failing`` names get SERVFAIL (the
    resolver cannot say whether a key is there)."""

    def __init__(self) -> None:
        self.records: dict[str, list[str]] = {}
        self.failing: set[str] = set()
        self.asked: list[str] = []
        self.lock = threading.Lock()

    def resolve(self, request, handler):  # type: ignore[no-untyped-def]
        name = str(request.q.qname).lower()
        with self.lock:
            self.asked.append(name)
            failing = name in self.failing
            texts = self.records.get(name)
        reply = request.reply()
        if failing:
            reply.header.rcode = RCODE.SERVFAIL
            return reply
        if texts is None:
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        if request.q.qtype == QTYPE.TXT:
            for text in texts:
                data = text.encode()
                chunks = [data[i : i + 255] for i in range(0, len(data), 255)] or [b""]
                reply.add_answer(RR(request.q.qname, QTYPE.TXT, ttl=60, rdata=TXT(chunks)))
        return reply


class DnsServer:
    """A DNS server on 127.0.0.1 (UDP) serving the TXT records the test publishes."""

    def __init__(self) -> None:
        self.zone = _Zone()
        self.server = DNSServer(self.zone, address="127.0.0.1", port=0, logger=DNSLogger(logf=lambda _s: None))
        self.port = self.server.server.server_address[1]
        self.server.start_thread()

    @property
    def address(self) -> str:
        """What [dkim] resolver says."""
        return f"127.0.0.1:{self.port}"

    def publish(self, selector: str, domain: str, key: Key | str) -> None:
        name = f"{selector}._domainkey.{domain}.".lower()
        with self.zone.lock:
            self.zone.records[name] = [key.record if isinstance(key, Key) else key]

    def withdraw(self, selector: str, domain: str) -> None:
        with self.zone.lock:
            self.zone.records.pop(f"{selector}._domainkey.{domain}.".lower(), None)

    def fail(self, selector: str, domain: str) -> None:
        with self.zone.lock:
            self.zone.failing.add(f"{selector}._domainkey.{domain}.".lower())

    @property
    def asked(self) -> list[str]:
        with self.zone.lock:
            return list(self.zone.asked)

    def stop(self) -> None:
        self.server.stop()
        self.server.server.server_close()


def mail(
    sender: str = "Alice <alice@example.org>",
    body: str = "SIGNON F game secret-1\nA PAR-BUR\n",
    subject: str = "orders",
    extra: str = "",
) -> bytes:
    """A player's plain message as a mail program writes it (CRLF lines)."""
    head = (
        f"From: {sender}\r\nTo: judge@judge.test\r\nSubject: {subject}\r\n"
        "Date: Mon, 07 Dec 2026 10:00:00 +0000\r\nMessage-ID: <m1@example.org>\r\n"
        'MIME-Version: 1.0\r\nContent-Type: text/plain; charset="utf-8"\r\n' + extra
    )
    return (head + "\r\n" + body.replace("\n", "\r\n")).encode()


def signed(
    raw: bytes,
    key: Key,
    *,
    selector: str = "s1",
    domain: str = "example.org",
    length: bool = False,
    canonicalize: tuple[bytes, bytes] = (b"relaxed", b"relaxed"),
) -> bytes:
    """``raw`` with a DKIM-Signature of ``domain`` on top, made by dkimpy as a sending server makes it."""
    import dkim

    header = dkim.sign(
        raw,
        selector.encode(),
        domain.encode(),
        key.private,
        canonicalize=canonicalize,
        signature_algorithm=b"ed25519-sha256" if key.kind == "ed25519" else b"rsa-sha256",
        length=length,
    )
    return header + raw

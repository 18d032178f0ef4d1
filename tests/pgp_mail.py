"""Signed mail as real mail programs send it, built in the tests with keys the tests make (pysequoia, and gpg in a
throwaway GNUPGHOME for the programs that run gpg): Thunderbird and Enigmail (PGP/MIME with protected headers, the
key attached), K-9 Mail with OpenKeychain (PGP/MIME, SHA-512, an Autocrypt header), GpgOL in Outlook (PGP/MIME around
an HTML alternative, base64), mutt (PGP/MIME with inline dispositions, and traditional inline with ``x-action``),
Enigmail inline and Mailvelope (cleartext-signed text, in a webmail's HTML mail).

Each builder returns the raw message (CRLF lines, as IMAP gives it) for a body of text lines. The shapes follow the
programs' documented output (RFC 3156 for PGP/MIME, RFC 4880 7 for cleartext signatures); the bytes are our own.
"""

from __future__ import annotations

import atexit
import base64
import itertools
import os
import quopri
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

from pysequoia import SignatureMode, Tsk, sign

_ids = itertools.count(1)
GPG = shutil.which("gpg") or "/usr/bin/gpg"


@dataclass
class Key:
    """A key the tests made: the secret (to sign) and its public key, armoured."""

    name: str
    address: str
    tsk: Tsk | None = None
    home: Path | None = None  # a GNUPGHOME holding it (keys made with gpg)
    fingerprint: str = ""
    public: str = ""
    signed_at: datetime | None = None  # gpg keys: sign as if at this time (gpg --faked-system-time)

    def detached(self, data: bytes, *, textmode: bool = False) -> bytes:
        """An armoured detached signature over ``data`` (gpg's --textmode makes a text signature, as mutt's)."""
        if self.tsk is not None:
            return sign(self.tsk.signer(), data, mode=SignatureMode.DETACHED)
        args = ["--detach-sign", "--armor"] + (["--textmode"] if textmode else [])
        return self._gpg(args, data)

    def clearsign(self, text: bytes) -> bytes:
        if self.tsk is not None:
            return sign(self.tsk.signer(), text, mode=SignatureMode.CLEAR)
        return self._gpg(["--clearsign", "--digest-algo", "SHA256"], text)

    def _gpg(self, args: list[str], data: bytes) -> bytes:
        env = {**os.environ, "GNUPGHOME": str(self.home)}
        cmd = [GPG, "--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", "", "-u", self.fingerprint]
        if self.signed_at is not None:
            cmd += ["--faked-system-time", self.signed_at.strftime("%Y%m%dT%H%M%S!")]
        return subprocess.run([*cmd, *args], input=data, env=env, capture_output=True, check=True).stdout


def sequoia_key(name: str, address: str) -> Key:
    tsk = Tsk.generate(f"{name} <{address}>")
    cert = tsk.extract_certificate()
    return Key(name, address, tsk=tsk, fingerprint=cert.fingerprint, public=str(cert))


def gpg_key(
    name: str,
    address: str,
    *,
    algo: str = "ed25519",
    usage: str = "sign",
    expire: str = "2y",
    made_at: datetime | None = None,
) -> Key:
    """A key made by gpg in its own GNUPGHOME (its agent stopped and the folder removed when the process ends)."""
    home = Path(tempfile.mkdtemp(prefix="judge-gpg-"))
    home.chmod(0o700)
    atexit.register(_forget_home, home)
    env = {**os.environ, "GNUPGHOME": str(home)}
    base = [GPG, "--batch", "--pinentry-mode", "loopback", "--passphrase", ""]
    if made_at is not None:
        base += ["--faked-system-time", made_at.strftime("%Y%m%dT%H%M%S!")]
    subprocess.run(
        [*base, "--quick-gen-key", f"{name} <{address}>", algo, usage, expire], env=env, check=True, capture_output=True
    )
    listing = subprocess.run(
        [GPG, "--batch", "--with-colons", "--list-keys", address], env=env, check=True, capture_output=True, text=True
    ).stdout
    fingerprint = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr"))
    public = subprocess.run(
        [GPG, "--batch", "--armor", "--export", fingerprint], env=env, check=True, capture_output=True, text=True
    ).stdout
    return Key(name, address, home=home, fingerprint=fingerprint.lower(), public=public)


def _forget_home(home: Path) -> None:
    """Stop the gpg-agent gpg started for ``home`` (only that one) and remove the folder."""
    gpgconf = shutil.which("gpgconf") or "/usr/bin/gpgconf"
    subprocess.run([gpgconf, "--homedir", str(home), "--kill", "all"], capture_output=True, check=False)
    shutil.rmtree(home, ignore_errors=True)


def _head(sender: str, subject: str, extra: list[str] | None = None) -> list[str]:
    return [
        f"From: {sender}",
        "To: judge@judge.test",
        f"Subject: {subject}",
        f"Date: {format_datetime(datetime.now(UTC))}",
        f"Message-ID: <pgp{next(_ids)}.{os.getpid()}@players.test>",
        "MIME-Version: 1.0",
        *(extra or []),
    ]


def _crlf(lines: list[str]) -> bytes:
    return "\r\n".join(lines).encode("utf-8")


def _qp(text: str) -> str:
    return quopri.encodestring(text.replace("\n", "\r\n").encode("utf-8")).decode("ascii").replace("\r\n", "\n")


def _b64(data: bytes) -> list[str]:
    return base64.encodebytes(data).decode("ascii").rstrip("\n").split("\n")


def _signed(
    sender: str,
    subject: str,
    key: Key,
    inner: bytes,
    *,
    micalg: str,
    extra: list[str] | None = None,
    preamble: str = "",
    sig_headers: list[str],
    textmode: bool = False,
) -> bytes:
    """multipart/signed around ``inner`` (its headers, a blank line, its content; CRLF lines)."""
    boundary = f"sig{next(_ids)}Xq"
    signature = key.detached(inner, textmode=textmode).decode("ascii").replace("\r\n", "\n").rstrip("\n")
    head = _head(
        sender,
        subject,
        [
            *(extra or []),
            f'Content-Type: multipart/signed; micalg={micalg};\r\n protocol="application/pgp-signature";\r\n'
            f' boundary="{boundary}"',
        ],
    )
    parts = [*head, "", *([preamble] if preamble else []), f"--{boundary}"]
    return (
        _crlf(parts)
        + b"\r\n"
        + inner
        + b"\r\n"
        + _crlf([f"--{boundary}", *sig_headers, "", *signature.split("\n"), "", f"--{boundary}--", ""])
    )


def thunderbird(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """Thunderbird 115 (OpenPGP built in): PGP/MIME, protected headers, format=flowed quoted-printable text, the
    sender's public key attached, the signature as OpenPGP_signature.asc."""
    mixed = f"mix{next(_ids)}Tb"
    short = key.fingerprint[-16:].upper()
    key_part = _b64(key.public.encode("ascii"))
    inner = _crlf(
        [
            f'Content-Type: multipart/mixed; boundary="{mixed}";',
            ' protected-headers="v1"',
            f"From: {sender}",
            "To: judge@judge.test",
            f"Subject: {subject}",
            "",
            f"--{mixed}",
            "Content-Type: text/plain; charset=UTF-8; format=flowed",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            *_qp(body).split("\n"),
            f"--{mixed}",
            f'Content-Type: application/pgp-keys; name="OpenPGP_0x{short}.asc"',
            f'Content-Disposition: attachment; filename="OpenPGP_0x{short}.asc"',
            "Content-Description: OpenPGP public key",
            "Content-Transfer-Encoding: base64",
            "",
            *key_part,
            "",
            f"--{mixed}--",
            "",
        ]
    )
    return _signed(
        sender,
        subject,
        key,
        inner,
        micalg="pgp-sha256",
        preamble="This is an OpenPGP/MIME signed message (RFC 4880 and 3156)",
        sig_headers=[
            'Content-Type: application/pgp-signature; name="OpenPGP_signature.asc"',
            "Content-Description: OpenPGP digital signature",
            'Content-Disposition: attachment; filename="OpenPGP_signature.asc"',
        ],
    )


def enigmail_mime(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """Enigmail 2 in Thunderbird 68: PGP/MIME with protected headers around a 7bit text part, signed by gpg."""
    mixed = f"enig{next(_ids)}Em"
    inner = _crlf(
        [
            f'Content-Type: multipart/mixed; boundary="{mixed}";',
            ' protected-headers="v1"',
            f"From: {sender}",
            "To: judge@judge.test",
            f"Message-ID: <inner{next(_ids)}@players.test>",
            f"Subject: {subject}",
            "",
            f"--{mixed}",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Language: en-US",
            "Content-Transfer-Encoding: 7bit",
            "",
            *body.split("\n"),
            "",
            f"--{mixed}--",
            "",
        ]
    )
    return _signed(
        sender,
        subject,
        key,
        inner,
        micalg="pgp-sha256",
        textmode=True,
        preamble="This is an OpenPGP/MIME signed message (RFC 4880 and 3156)",
        sig_headers=[
            'Content-Type: application/pgp-signature; name="signature.asc"',
            "Content-Description: OpenPGP digital signature",
            'Content-Disposition: attachment; filename="signature.asc"',
        ],
    )


def k9(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """K-9 Mail with OpenKeychain: PGP/MIME, SHA-512, a quoted-printable text part, an Autocrypt header."""
    keydata = base64.b64encode(key.public.encode("ascii")).decode("ascii")[:60]
    inner = _crlf(
        [
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            *_qp(body).split("\n"),
        ]
    )
    return _signed(
        sender,
        subject,
        key,
        inner,
        micalg="pgp-sha512",
        extra=[f"Autocrypt: addr={sender}; keydata={keydata}"],
        sig_headers=[
            "Content-Type: application/pgp-signature; name=signature.asc",
            "Content-Description: OpenPGP digital signature",
        ],
    )


def gpgol(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """GpgOL in Outlook: PGP/MIME around a multipart/alternative of base64 text and HTML (CRLF inside)."""
    alt = f"alt{next(_ids)}Ol"
    html = "<html><body>" + "".join(f"<p>{line}</p>" for line in body.split("\n") if line) + "</body></html>"
    inner = _crlf(
        [
            f'Content-Type: multipart/alternative; boundary="{alt}"',
            "",
            f"--{alt}",
            'Content-Type: text/plain; charset="utf-8"',
            "Content-Transfer-Encoding: base64",
            "",
            *_b64(body.replace("\n", "\r\n").encode("utf-8")),
            f"--{alt}",
            'Content-Type: text/html; charset="utf-8"',
            "Content-Transfer-Encoding: base64",
            "",
            *_b64(html.encode("utf-8")),
            f"--{alt}--",
            "",
        ]
    )
    return _signed(
        sender,
        subject,
        key,
        inner,
        micalg='"pgp-sha256"',
        sig_headers=[
            'Content-Type: application/pgp-signature; name="gpgol.asc"',
            'Content-Disposition: attachment; filename="gpgol.asc"',
        ],
    )


def mutt_mime(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """mutt: PGP/MIME, every part inline, a us-ascii text part, the signature named signature.asc, signed by gpg
    in text mode."""
    inner = _crlf(["Content-Type: text/plain; charset=us-ascii", "Content-Disposition: inline", "", *body.split("\n")])
    return _signed(
        sender,
        subject,
        key,
        inner,
        micalg="pgp-sha256",
        textmode=True,
        sig_headers=[
            'Content-Type: application/pgp-signature; name="signature.asc"',
            "Content-Description: Digital signature",
        ],
    )


def _inline(sender: str, subject: str, content_type: str, text: bytes, cte: str = "7bit") -> bytes:
    head = _head(sender, subject, [f"Content-Type: {content_type}", f"Content-Transfer-Encoding: {cte}"])
    return _crlf([*head, ""]) + b"\r\n" + text.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def mutt_inline(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """mutt's traditional (inline) signing: a cleartext signature by gpg, marked x-action=pgp-signed."""
    return _inline(
        sender,
        subject,
        "text/plain; charset=us-ascii; x-action=pgp-signed",
        key.clearsign(body.encode("ascii") + b"\n"),
    )


def enigmail_inline(key: Key, sender: str, body: str, *, subject: str = "orders") -> bytes:
    """Enigmail inline PGP: a cleartext signature by gpg in a quoted-printable UTF-8 text part (dash-escaped lines
    and all), with a greeting above the armour that the signature does not cover."""
    signed = key.clearsign(body.encode("utf-8") + b"\n")
    text = b"Hello judge,\n\n" + signed
    return _inline(
        sender,
        subject,
        "text/plain; charset=utf-8",
        quopri.encodestring(text.replace(b"\n", b"\r\n")),
        cte="quoted-printable",
    )


def mailvelope(key: Key, sender: str, body: str, *, subject: str = "orders", html_only: bool = False) -> bytes:
    """Mailvelope in a webmail's HTML editor: the cleartext-signed text as the webmail sends it, a plain-text
    alternative beside HTML lines (or the HTML alone)."""
    signed = key.clearsign(body.encode("utf-8")).decode("utf-8").replace("\r\n", "\n").rstrip("\n")
    html = '<div dir="ltr">' + "".join(f"<div>{line or '<br>'}</div>" for line in signed.split("\n")) + "</div>"
    if html_only:
        return _inline(sender, subject, "text/html; charset=UTF-8", _qp(html).encode("ascii"), "quoted-printable")
    alt = f"00000000000{next(_ids)}mv"
    head = _head(sender, subject, [f'Content-Type: multipart/alternative; boundary="{alt}"'])
    return _crlf(
        [
            *head,
            "",
            f"--{alt}",
            'Content-Type: text/plain; charset="UTF-8"',
            "Content-Transfer-Encoding: quoted-printable",
            "",
            *_qp(signed).split("\n"),
            "",
            f"--{alt}",
            'Content-Type: text/html; charset="UTF-8"',
            "Content-Transfer-Encoding: quoted-printable",
            "",
            *_qp(html).split("\n"),
            "",
            f"--{alt}--",
            "",
        ]
    )


def plain(sender: str, body: str, *, subject: str = "orders", attach_key: Key | None = None) -> bytes:
    """An unsigned mail (its body may hold a pasted public key), or with a public key attached as .asc."""
    if attach_key is None:
        return _inline(sender, subject, "text/plain; charset=utf-8", body.encode("utf-8"), "8bit")
    mixed = f"pl{next(_ids)}Mx"
    head = _head(sender, subject, [f'Content-Type: multipart/mixed; boundary="{mixed}"'])
    return _crlf(
        [
            *head,
            "",
            f"--{mixed}",
            "Content-Type: text/plain; charset=utf-8",
            "",
            *body.split("\n"),
            f"--{mixed}",
            'Content-Type: application/pgp-keys; name="mykey.asc"',
            'Content-Disposition: attachment; filename="mykey.asc"',
            "",
            *attach_key.public.replace("\r\n", "\n").rstrip("\n").split("\n"),
            f"--{mixed}--",
            "",
        ]
    )

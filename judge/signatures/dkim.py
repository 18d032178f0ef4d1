"""DKIM (RFC 6376): whether a mail carries a valid signature of the domain of its From address, and the judge's own
signature on the mail it sends.

What a pass proves: a server that holds a key published under the From address's domain signed the mail, and the
signed header fields and the body arrived as signed. It proves the **domain**, not the **person**: anyone with an
account at the same provider can send mail signed by that domain with another account's name in the From field only
if the provider lets them (the large ones do not), and nothing at all about who sits at the keyboard. That is why the
judge still asks for the password: DKIM only stops a From address forged from elsewhere.

Verification (:func:`check`) is a function of the raw bytes as they arrived, a key lookup passed in (a DNS TXT query;
judge.signatures.resolver makes one with dnspython) and the options; it never raises and gives a :class:`DkimVerdict`.
Its rules:

- **Alignment** (DMARC, RFC 7489 3.1.1): a signature counts only when its domain (``d=``) is aligned with the domain of
  the one address in the From field: relaxed (the default) when both have the same organisational domain
  (:func:`organisational_domain`), strict when they are equal. Signatures of other domains are not even looked up.
- A signature with ``l=`` (covering only the first bytes of the body, so that anything may be appended) never counts.
- At most :data:`MAX_SIGNATURES` aligned signatures are checked, so a message cannot make the judge look up keys
  without end; RSA keys under 1024 bits are refused (dkimpy's floor), ed25519 keys (RFC 8463) are read with PyNaCl.
- A message without exactly one From field naming exactly one address is aligned with nothing.
- ``Authentication-Results`` (RFC 8601) is read only when the host names its own server's authserv-id
  (``[dkim] authserv_id``), and only the topmost such field (the one the host's server added last): a ``dkim=pass``
  there for an aligned ``header.d`` counts when every signature of that domain in the message is without ``l=``.
  Otherwise the judge checks the signatures itself.

The organisational domain is found by a small rule rather than the Public Suffix List: the last two labels, or the
last three when the last two are a common second-level suffix of a country (``co.uk``, ``com.au``, …;
:data:`MULTI_LABEL_SUFFIXES`). The full list is long, changes every week and would be one more dependency to keep
fresh; the rule errs on the safe side for those suffixes, and ``[dkim] alignment = "strict"`` is there for a host
whose players use a domain that hands out subdomains to strangers.

Signing (:func:`sign`) adds a ``DKIM-Signature`` field on top of the exact bytes that are then sent.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from judge.mail.bounds import MAX_ADDRESS_FIELD, MAX_MESSAGE_BYTES, header_block

MAX_SIGNATURES = 5  # aligned signatures checked in one message (real mail has one or two)
MIN_RSA_BITS = 1024
# Second-level suffixes under which people register domains, for the organisational domain (see the module's text).
MULTI_LABEL_SUFFIXES = frozenset(
    {
        *(f"{s}.uk" for s in ("co", "org", "me", "ltd", "plc", "net", "ac", "gov", "sch")),
        *(f"{s}.au" for s in ("com", "net", "org", "edu", "gov", "asn", "id")),
        *(f"{s}.nz" for s in ("co", "net", "org", "ac", "govt", "school")),
        *(f"{s}.jp" for s in ("co", "ne", "or", "ac", "go", "ad", "ed", "gr", "lg")),
        *(f"{s}.za" for s in ("co", "org", "net", "ac", "gov")),
        *(f"{s}.br" for s in ("com", "net", "org", "gov", "edu")),
        *(f"{s}.cn" for s in ("com", "net", "org", "gov", "edu", "ac")),
        *(f"{s}.in" for s in ("co", "net", "org", "gov", "ac", "edu", "firm", "gen", "ind")),
        *(f"{s}.kr" for s in ("co", "or", "ne", "ac", "go")),
        *(f"{s}.il" for s in ("co", "org", "net", "ac", "gov")),
        *(f"{s}.ru" for s in ("com", "net", "org", "pp", "msk", "spb")),
        *(f"{s}.ua" for s in ("com", "net", "org", "kiev", "in")),
        *(f"{s}.tr" for s in ("com", "net", "org", "gen", "edu")),
        *(f"com.{s}" for s in ("ar", "mx", "sg", "tw", "hk", "my", "ph", "pk", "sa", "eg", "co", "pe", "vn", "ng")),
        *(f"co.{s}" for s in ("id", "th", "ke", "tz", "ug", "zw", "hu", "at")),
        "or.at",
        "ac.at",
    }
)
_DOMAIN = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{1,63}")
_SELECTOR = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,200}[A-Za-z0-9_])?")


class DkimStatus(StrEnum):
    """What the signatures of one message prove (a closed set)."""

    PASS = "pass"  # a signature of a domain aligned with the From address verifies
    FAIL = "fail"  # an aligned signature is there and does not verify (``reason`` says why)
    NONE = "none"  # no signature at all
    NOT_ALIGNED = "not aligned"  # signatures, but none of the From address's domain (or no one From address)
    HAS_LENGTH = "has l="  # the only aligned signatures cover part of the body (l=): not accepted


class FailReason(StrEnum):
    """Why an aligned signature did not verify."""

    BODY_CHANGED = "body changed"  # the body is not the one signed
    SIGNATURE_WRONG = "signature wrong"  # the signed header fields were changed, or the signature is not the key's
    NO_KEY = "no key"  # no key published for the selector
    BAD_KEY = "bad key"  # a key that cannot be read, is revoked (empty p=), or is too short
    DNS_UNAVAILABLE = "dns unavailable"  # the resolver gave no answer: the key may well be there
    MALFORMED = "malformed"  # the signature field cannot be read, or has expired


class DnsUnavailable(Exception):
    """The resolver did not answer (a timeout, a server failure): nothing is known about the key."""


# A TXT lookup: the record's text joined (None when the name has none); DnsUnavailable when it cannot be known.
Lookup = Callable[[str], bytes | None]


@dataclass(frozen=True)
class DkimVerdict:
    status: DkimStatus
    from_domain: str = ""  # the domain of the From field's one address; "" when there is not exactly one
    domain: str = ""  # the d= the verdict is about: the signature that passed, or the first that failed
    reason: FailReason | None = None  # with FAIL: why
    by_authentication_results: bool = False  # a PASS read from the host's own Authentication-Results field

    @property
    def passed(self) -> bool:
        return self.status is DkimStatus.PASS


@dataclass(frozen=True)
class DkimOptions:
    strict: bool = False  # alignment: d= must equal the From domain (else the organisational domains must)
    authserv_id: str = ""  # the host's own server's authserv-id: its topmost Authentication-Results is trusted


# --- alignment --------------------------------------------------------------------------------------------------------


def organisational_domain(domain: str) -> str:
    """The registered domain ``domain`` belongs to: its last two labels, or three under a common second-level suffix
    (``mail.example.co.uk`` -> ``example.co.uk``). A public suffix alone (``co.uk``, ``com``) is its own."""
    labels = domain.lower().rstrip(".").split(".")
    keep = 3 if ".".join(labels[-2:]) in MULTI_LABEL_SUFFIXES else 2
    return ".".join(labels[-keep:])


def aligned(signer: str, from_domain: str, *, strict: bool = False) -> bool:
    """Whether a signature by ``signer`` (its d=) speaks for mail from ``from_domain`` (DMARC alignment)."""
    signer, from_domain = signer.lower().rstrip("."), from_domain.lower().rstrip(".")
    if not signer or not from_domain or not _DOMAIN.fullmatch(signer) or not _DOMAIN.fullmatch(from_domain):
        return False
    if strict:
        return signer == from_domain
    org = organisational_domain(from_domain)
    # a public suffix (co.uk, com) is nobody's organisational domain: mail from it is aligned with nothing
    return "." in org and org not in MULTI_LABEL_SUFFIXES and organisational_domain(signer) == org


# --- verifying --------------------------------------------------------------------------------------------------------


def check(raw: bytes, lookup: Lookup, options: DkimOptions | None = None) -> DkimVerdict:
    """What the DKIM signatures of ``raw`` (the exact bytes received) prove about its From domain. Never raises."""
    try:
        return _check(bytes(raw), lookup, options or DkimOptions())
    except Exception:  # noqa: BLE001 - hostile input must never stop the judge: a message nobody can read proves nothing
        return DkimVerdict(DkimStatus.FAIL, reason=FailReason.MALFORMED)


def _check(raw: bytes, lookup: Lookup, options: DkimOptions) -> DkimVerdict:
    import dkim

    _head, oversized = header_block(raw)
    if len(raw) > MAX_MESSAGE_BYTES or oversized:  # refused unread anyway (judge.mail.message)
        return DkimVerdict(DkimStatus.NONE)
    try:
        headers, body = dkim.rfc822_parse(raw)
    except dkim.MessageFormatError:
        return DkimVerdict(DkimStatus.FAIL, reason=FailReason.MALFORMED)
    from_domain = from_field_domain(headers)
    if options.authserv_id and from_domain:
        passed = _by_authentication_results(headers, from_domain, options)
        if passed is not None:
            return passed
    signatures = [value for name, value in headers if name.lower() == b"dkim-signature"]
    if not signatures:
        return DkimVerdict(DkimStatus.NONE, from_domain)
    return _signatures(raw, body, signatures, from_domain, lookup, options)


def _signatures(
    raw: bytes, body: bytes, signatures: list[bytes], from_domain: str, lookup: Lookup, options: DkimOptions
) -> DkimVerdict:
    """The verdict on the signatures, topmost first: the first aligned one that verifies passes."""
    failures: list[tuple[str, FailReason]] = []
    with_length = ""
    checked = 0
    for index, value in enumerate(signatures):
        tags = _tags(value)
        signer = _domain_of(tags)
        if not from_domain or not aligned(signer, from_domain, strict=options.strict):
            continue
        if b"l" in tags:
            with_length = with_length or signer
            continue
        if checked == MAX_SIGNATURES:
            break
        checked += 1
        reason = _verify_one(raw, index, tags, signer, body, lookup)
        if reason is None:
            return DkimVerdict(DkimStatus.PASS, from_domain, signer)
        failures.append((signer, reason))
    if failures:
        return DkimVerdict(DkimStatus.FAIL, from_domain, failures[0][0], failures[0][1])
    if with_length:
        return DkimVerdict(DkimStatus.HAS_LENGTH, from_domain, with_length)
    return DkimVerdict(DkimStatus.NOT_ALIGNED, from_domain, _domain_of(_tags(signatures[0])))


def _tags(value: bytes) -> dict[bytes, bytes]:
    from dkim.util import InvalidTagValueList, parse_tag_value

    try:
        tags: dict[bytes, bytes] = parse_tag_value(value)
    except InvalidTagValueList:
        return {}
    return tags


def _domain_of(tags: dict[bytes, bytes]) -> str:
    return tags.get(b"d", b"").decode("ascii", "replace").strip().lower().rstrip(".")


def _verify_one(
    raw: bytes, index: int, tags: dict[bytes, bytes], signer: str, body: bytes, lookup: Lookup
) -> FailReason | None:
    """Why signature ``index`` (among the DKIM-Signature fields, topmost first) does not verify; None if it does."""
    import dkim
    from dkim.canonicalization import CanonicalizationPolicy, InvalidCanonicalizationPolicyError

    try:
        dkim.validate_signature_fields(tags)  # the mandatory tags, the algorithm, i= within d=, t= and x= (expiry)
        policy = CanonicalizationPolicy.from_c_value(tags.get(b"c", b"simple/simple"))
        expected = base64.b64decode(re.sub(rb"\s+", b"", tags[b"bh"]), validate=True)
        selector = tags[b"s"].decode("ascii")
    except (dkim.DKIMException, InvalidCanonicalizationPolicyError, binascii.Error, UnicodeDecodeError, IndexError):
        return FailReason.MALFORMED
    if not _SELECTOR.fullmatch(selector):
        return FailReason.MALFORMED
    name = f"{selector}._domainkey.{signer}."
    try:
        record = lookup(name)
    except DnsUnavailable:
        return FailReason.DNS_UNAVAILABLE
    if not record:
        return FailReason.NO_KEY
    try:
        _key, bits, kind, _tlsrpt = dkim.evaluate_pk(name.encode("ascii"), record)
    except Exception:  # noqa: BLE001 - whatever a published key holds: it cannot be used
        return FailReason.BAD_KEY
    if kind is None or (kind == b"rsa" and (bits or 0) < MIN_RSA_BITS):
        return FailReason.BAD_KEY
    digest = dkim.HASH_ALGORITHMS[tags[b"a"]]()
    digest.update(policy.canonicalize_body(body))
    if digest.digest() != expected:
        return FailReason.BODY_CHANGED
    verifier = dkim.DKIM(raw, minkey=MIN_RSA_BITS)
    try:
        # the key already looked up: the verifier asks for the same name once more
        good = verifier.verify(idx=index, dnsfunc=lambda _name, timeout=5: record)
    except dkim.KeyFormatError:
        return FailReason.BAD_KEY
    except dkim.DKIMException:
        return FailReason.MALFORMED
    return None if good else FailReason.SIGNATURE_WRONG


def from_field_domain(headers: list[list[bytes]] | list[tuple[bytes, bytes]]) -> str:
    """The domain of the one address in the one From field (lower case); "" when there is not exactly one of each."""
    values = [value for name, value in headers if name.lower() == b"from"]
    if len(values) != 1 or len(values[0]) > MAX_ADDRESS_FIELD:
        return ""
    text = values[0].decode("utf-8", "replace")
    found = [address for _name, address in email.utils.getaddresses([text]) if address]
    if len(found) != 1 or found[0].count("@") != 1:
        return ""
    domain = found[0].rpartition("@")[2].strip().lower().rstrip(".")
    return domain if _DOMAIN.fullmatch(domain) else ""


# --- Authentication-Results (RFC 8601) --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthResult:
    """One result of an Authentication-Results field: ``dkim=pass header.d=example.org``."""

    method: str  # lower case: dkim, spf, dmarc, …
    result: str  # lower case: pass, fail, none, …
    properties: dict[str, str] = field(default_factory=dict)  # "header.d" -> "example.org" (names lower case)


@dataclass(frozen=True)
class AuthResults:
    authserv_id: str
    results: tuple[AuthResult, ...]


def _without_comments(text: str) -> str | None:
    """``text`` with its comments (nested parentheses) turned into spaces, quoted strings kept; None when unbalanced."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(ch)
            continue
        if ch == "\\" and (quoted or depth):
            escaped = True
            if depth == 0:
                out.append(ch)
            continue
        if quoted:
            quoted = ch != '"'
            out.append(ch)
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                return None
            depth -= 1
            if depth == 0:
                out.append(" ")
        elif depth == 0:
            quoted = ch == '"'
            out.append(ch)
    return None if depth or quoted else "".join(out)


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == separator and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


_VALUE = r'"(?:[^"\\]|\\.)*"|[^\s;"=]+'
_PAIR = re.compile(rf"\s*([A-Za-z0-9_.\-]+)\s*=\s*({_VALUE})")  # method=result, reason=…, ptype.property=value
_AUTHSERV = re.compile(rf"\s*({_VALUE})(?:\s+[0-9]+)?\s*")
MAX_AUTH_RESULTS_FIELD = 16 * 1024


def _pairs(text: str) -> list[tuple[str, str]] | None:
    """``name=value`` pairs separated by white space, read one after the other; None if anything else is there."""
    pairs, at = [], 0
    while at < len(text):
        if text[at:].isspace():
            break
        found = _PAIR.match(text, at)
        if found is None or (at and found.start(1) == at):  # pairs need white space between them
            return None
        pairs.append((found.group(1), found.group(2)))
        at = found.end()
    return pairs


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse_authentication_results(text: str) -> AuthResults | None:
    """One Authentication-Results field's value read (RFC 8601, comments ignored); None when it cannot be read."""
    if len(text) > MAX_AUTH_RESULTS_FIELD:
        return None
    bare = _without_comments(" ".join(text.split()))
    if bare is None:
        return None
    head, *rest = _split_outside_quotes(bare, ";")
    match = _AUTHSERV.fullmatch(head)
    if match is None:
        return None
    results = []
    for part in rest:
        if not part.strip() or part.strip().lower() == "none":
            continue
        pairs = _pairs(part)
        if not pairs:
            return None
        (method, result), *properties = pairs
        results.append(
            AuthResult(method.lower(), result.lower(), {name.lower(): _unquote(value) for name, value in properties})
        )
    return AuthResults(_unquote(match.group(1)), tuple(results))


def _by_authentication_results(headers: list[Any], from_domain: str, options: DkimOptions) -> DkimVerdict | None:
    """A PASS read from the topmost Authentication-Results field when it is the host's own; else None."""
    fields = [value for name, value in headers if name.lower() == b"authentication-results"]
    if not fields:
        return None
    parsed = parse_authentication_results(fields[0].decode("utf-8", "replace"))
    if parsed is None or parsed.authserv_id.lower() != options.authserv_id.lower():
        return None
    signed = [_tags(value) for name, value in headers if name.lower() == b"dkim-signature"]
    for result in parsed.results:
        if result.method != "dkim" or result.result != "pass":
            continue
        signer = result.properties.get("header.d") or result.properties.get("header.i", "").rpartition("@")[2]
        signer = signer.lower().rstrip(".")
        if not aligned(signer, from_domain, strict=options.strict):
            continue
        theirs = [tags for tags in signed if _domain_of(tags) == signer]
        if theirs and all(b"l" not in tags for tags in theirs):
            return DkimVerdict(DkimStatus.PASS, from_domain, signer, by_authentication_results=True)
    return None


# --- signing ----------------------------------------------------------------------------------------------------------


class KeyProblem(ValueError):
    """A signing key that cannot be used; the message says why in one line."""


@dataclass(frozen=True)
class SigningKey:
    selector: str
    domain: str
    private: bytes = field(repr=False)  # PEM (RSA, PKCS#1 or PKCS#8), or an ed25519 seed in base64 (dknewkey's)
    algorithm: str = "rsa-sha256"  # or "ed25519-sha256"


def signing_key(text: str, selector: str, domain: str) -> SigningKey:
    """The key to sign with, read from a key file's text; KeyProblem (a one-line reason, never the key) if unusable."""
    if not _SELECTOR.fullmatch(selector):
        raise KeyProblem(f"the selector {selector!r} is not a DNS label")
    if not _DOMAIN.fullmatch(domain.lower()):
        raise KeyProblem(f"the domain {domain!r} is not a domain name")
    data = text.strip().encode("ascii", "replace")
    if b"-----BEGIN" in data:
        from dkim.crypto import UnparsableKeyError, parse_pem_private_key

        try:
            key = parse_pem_private_key(data.replace(b"\r\n", b"\n"))
        except (UnparsableKeyError, ValueError, IndexError, binascii.Error):
            raise KeyProblem("not an RSA private key in PEM (PKCS#1 or PKCS#8)") from None
        if key["modulus"].bit_length() < MIN_RSA_BITS:
            raise KeyProblem(f"an RSA key of {key['modulus'].bit_length()} bits; at least {MIN_RSA_BITS}")
        return SigningKey(selector, domain.lower(), data, "rsa-sha256")
    try:
        seed = base64.b64decode(data, validate=True)
    except binascii.Error:
        seed = b""
    if len(seed) != 32:
        raise KeyProblem(
            "neither an RSA private key in PEM nor an ed25519 key (32 bytes in base64, as dknewkey writes)"
        )
    return SigningKey(selector, domain.lower(), data, "ed25519-sha256")


def sign(raw: bytes, key: SigningKey) -> bytes:
    """``raw`` with a DKIM-Signature field on top: relaxed/relaxed, the fields RFC 6376 recommends (From signed once
    more than it appears, so none can be added), never ``l=``."""
    import dkim

    field_ = dkim.sign(
        raw,
        key.selector.encode("ascii"),
        key.domain.encode("ascii"),
        key.private,
        canonicalize=(b"relaxed", b"relaxed"),
        signature_algorithm=key.algorithm.encode("ascii"),
        length=False,
    )
    signed: bytes = field_ + raw
    return signed

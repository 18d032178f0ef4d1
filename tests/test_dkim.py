"""DKIM as the judge checks it: real keys made here, a real DNS server on loopback, real signatures (dkimpy).

What passes (an aligned signature that verifies, RSA or ed25519, or the host's own Authentication-Results), what
does not and why (body or signed header changed, no key, a revoked key, DNS failing, l=, another domain, no or two
From addresses), the alignment rule, the Authentication-Results reader, and the properties: a signed message altered
by one byte in its signed header fields or its body never passes; no input makes the checker or the reader raise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from dkimkit import DnsServer, Key, ed25519_key, mail, rsa_key, signed
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judge.config import resolver_address
from judge.signatures.dkim import (
    MAX_SIGNATURES,
    MULTI_LABEL_SUFFIXES,
    AuthResult,
    DkimOptions,
    DkimStatus,
    FailReason,
    KeyProblem,
    aligned,
    check,
    organisational_domain,
    parse_authentication_results,
    sign,
    signing_key,
)
from judge.signatures.resolver import txt_lookup


@pytest.fixture(scope="module")
def rsa() -> Key:
    return rsa_key()


@pytest.fixture(scope="module")
def ed() -> Key:
    return ed25519_key()


@pytest.fixture(scope="module")
def dns(rsa: Key, ed: Key) -> Iterator[DnsServer]:
    server = DnsServer()
    server.publish("s1", "example.org", rsa)
    server.publish("e1", "example.org", ed)
    server.publish("s1", "mail.example.org", rsa)
    server.publish("s1", "example.co.uk", rsa)
    server.publish("s1", "other.co.uk", rsa)
    server.publish("revoked", "example.org", "v=DKIM1; k=rsa; p=")
    server.publish("junk", "example.org", "v=DKIM1; k=rsa; p=bm90IGEga2V5")
    server.fail("broken", "example.org")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def lookup(dns: DnsServer):  # type: ignore[no-untyped-def]
    return txt_lookup(resolver_address(dns.address), timeout=5)


def test_a_signature_of_the_from_domain_passes_rsa_and_ed25519(rsa: Key, ed: Key, lookup) -> None:
    for key, selector in ((rsa, "s1"), (ed, "e1")):
        verdict = check(signed(mail(), key, selector=selector), lookup)
        assert verdict.passed and verdict.status is DkimStatus.PASS
        assert (verdict.from_domain, verdict.domain, verdict.by_authentication_results) == (
            "example.org",
            "example.org",
            False,
        )
    simple = signed(mail(), rsa, canonicalize=(b"simple", b"simple"))
    assert check(simple, lookup).passed
    lf = signed(mail(), rsa).replace(b"\r\n", b"\n")  # as a mailbox stores it: LF lines read as CRLF
    assert check(lf, lookup).passed


@pytest.mark.parametrize(
    ("alter", "reason"),
    [
        (lambda m: m.replace(b"A PAR-BUR", b"A PAR-PIC"), FailReason.BODY_CHANGED),
        (lambda m: m + b"A MAR-SPA\r\n", FailReason.BODY_CHANGED),
        (lambda m: m.replace(b"Subject: orders", b"Subject: ORDERS"), FailReason.SIGNATURE_WRONG),
        (lambda m: m.replace(b"alice@example.org", b"alicf@example.org"), FailReason.SIGNATURE_WRONG),
        (lambda m: m.replace(b"s=s1;", b"s=nokey;"), FailReason.NO_KEY),
        (lambda m: m.replace(b"s=s1;", b"s=revoked;"), FailReason.BAD_KEY),
        (lambda m: m.replace(b"s=s1;", b"s=junk;"), FailReason.BAD_KEY),
        (lambda m: m.replace(b"s=s1;", b"s=broken;"), FailReason.DNS_UNAVAILABLE),
        (lambda m: m.replace(b"a=rsa-sha256", b"a=rsa-md5"), FailReason.MALFORMED),
        (lambda m: re.sub(rb"bh=[^;]+;", b"bh=%%%;", m), FailReason.MALFORMED),
        (lambda m: re.sub(rb" t=\d+;", b" t=1; x=2;", m), FailReason.MALFORMED),  # expired long ago
    ],
    ids=["body", "appended", "subject", "from", "no key", "revoked", "junk key", "dns", "algorithm", "bh", "expired"],
)
def test_what_fails_and_why(rsa: Key, lookup, alter, reason: FailReason) -> None:
    verdict = check(alter(signed(mail(), rsa)), lookup)
    assert verdict.status is DkimStatus.FAIL and verdict.reason is reason and not verdict.passed


def test_dns_that_never_answers_is_unavailable_not_a_pass(rsa: Key) -> None:
    """A resolver address where nothing listens: the lookup gives up within its time and says so."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as held:  # a port of ours that never answers
        held.bind(("127.0.0.1", 0))
        lookup = txt_lookup(("127.0.0.1", held.getsockname()[1]), timeout=0.3)
        verdict = check(signed(mail(), rsa), lookup)
    assert verdict.status is DkimStatus.FAIL and verdict.reason is FailReason.DNS_UNAVAILABLE


def test_unsigned_other_domain_l_and_from_problems(rsa: Key, lookup, dns: DnsServer) -> None:
    assert check(mail(), lookup).status is DkimStatus.NONE
    other = check(signed(mail(), rsa, domain="evil.org"), lookup)
    assert (other.status, other.domain) == (DkimStatus.NOT_ALIGNED, "evil.org")
    assert not any("evil.org" in name for name in dns.asked)  # another domain's signature costs no lookup
    partial = check(signed(mail(), rsa, length=True), lookup)
    assert partial.status is DkimStatus.HAS_LENGTH and not partial.passed
    # l= refused even when the body is exactly as signed; one without l= beside it still passes
    both = signed(signed(mail(), rsa, length=True), rsa)
    assert check(both, lookup).passed
    two_froms = signed(mail(extra="From: bob@example.org\r\n"), rsa)
    assert check(two_froms, lookup).status is DkimStatus.NOT_ALIGNED and check(two_froms, lookup).from_domain == ""
    two_addresses = signed(mail(sender="alice@example.org, bob@example.org"), rsa)
    assert check(two_addresses, lookup).status is DkimStatus.NOT_ALIGNED


def test_relaxed_and_strict_alignment(rsa: Key, lookup) -> None:
    sub = signed(mail(sender="alice@mail.example.org"), rsa, domain="example.org")
    assert check(sub, lookup).passed
    assert check(sub, lookup, DkimOptions(strict=True)).status is DkimStatus.NOT_ALIGNED
    parent = signed(mail(sender="alice@example.org"), rsa, domain="mail.example.org")
    assert check(parent, lookup).passed
    uk = signed(mail(sender="alice@mail.example.co.uk"), rsa, domain="example.co.uk")
    assert check(uk, lookup).passed
    neighbour = signed(mail(sender="alice@example.co.uk"), rsa, domain="other.co.uk")
    assert check(neighbour, lookup).status is DkimStatus.NOT_ALIGNED


def test_at_most_a_few_signatures_are_looked_up(rsa: Key, dns: DnsServer, lookup) -> None:
    raw = mail()
    for n in range(MAX_SIGNATURES + 3):
        raw = signed(raw, rsa, selector=f"missing{n}")
    before = len(dns.asked)
    verdict = check(raw, lookup)
    assert verdict.status is DkimStatus.FAIL and verdict.reason is FailReason.NO_KEY
    assert len(dns.asked) - before == MAX_SIGNATURES


def test_the_hosts_own_authentication_results(rsa: Key, lookup) -> None:
    """Trusted only with [dkim] authserv_id, only the topmost field, only for an aligned domain without l=."""
    unsigned_key = signed(mail(), rsa, selector="nokey")  # the judge's own check would fail: no key
    ours = "Authentication-Results: mx.judge.test; dkim=pass (2048-bit key) header.d=example.org header.b=abc\r\n"
    theirs = "Authentication-Results: mx.evil.test; dkim=pass header.d=example.org\r\n"
    options = DkimOptions(authserv_id="mx.judge.test")
    verdict = check(ours.encode() + unsigned_key, lookup, options)
    assert verdict.passed and verdict.by_authentication_results and verdict.domain == "example.org"
    assert not check(ours.encode() + unsigned_key, lookup).passed  # not configured: not read
    assert not check(theirs.encode() + ours.encode() + unsigned_key, lookup, options).passed  # not the topmost
    assert not check(theirs.encode() + unsigned_key, lookup, options).passed
    evil = "Authentication-Results: mx.judge.test; dkim=pass header.d=evil.org\r\n"
    assert not check(evil.encode() + signed(mail(), rsa, domain="evil.org"), lookup, options).passed
    with_length = signed(mail(), rsa, selector="nokey", length=True)
    assert not check(ours.encode() + with_length, lookup, options).passed
    no_signature = check(ours.encode() + mail(), lookup, options)  # a pass for a signature that is not there
    assert no_signature.status is DkimStatus.NONE
    # a failing result of the host's server does not stop the judge's own check from passing
    failed = "Authentication-Results: mx.judge.test; dkim=fail header.d=example.org\r\n"
    assert check(failed.encode() + signed(mail(), rsa), lookup, options).passed


def test_reading_authentication_results() -> None:
    parsed = parse_authentication_results(
        ' mx.example.net 1; (comment (nested) "x") dkim=pass reason="good sig" header.d=example.org '
        'header.i="@example.org"; spf = fail smtp.mailfrom=bob@example.org ; dmarc=none'
    )
    assert parsed is not None and parsed.authserv_id == "mx.example.net"
    assert parsed.results == (
        AuthResult("dkim", "pass", {"reason": "good sig", "header.d": "example.org", "header.i": "@example.org"}),
        AuthResult("spf", "fail", {"smtp.mailfrom": "bob@example.org"}),
        AuthResult("dmarc", "none", {}),
    )
    assert parse_authentication_results("mx.example.net; none") == parse_authentication_results("mx.example.net")
    for bad in ("", "mx; dkim", "mx; (unclosed dkim=pass", 'mx; dkim=pass header.d="open', "mx) x; dkim=pass"):
        assert parse_authentication_results(bad) is None, bad


_tokens = st.from_regex(r"[a-z][a-z0-9\-]{0,8}", fullmatch=True)
_values = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=200, deadline=None)
@given(
    st.from_regex(r"[a-z0-9.\-]{1,20}", fullmatch=True),
    st.lists(
        st.tuples(
            _tokens,
            _tokens,
            st.dictionaries(st.from_regex(r"[a-z]{1,6}\.[a-z]{1,6}", fullmatch=True), _values, max_size=3),
        ),
        max_size=4,
    ),
    st.sampled_from([" ", "  ", " (a comment) ", "\t", " (nested (one) \\) ) "]),
)
def test_authentication_results_read_back_as_written(authserv: str, results, space: str) -> None:
    parts = [authserv]
    for method, result, properties in results:
        parts.append(space.join([f"{method}={result}", *(f"{n}={_quoted(v)}" for n, v in properties.items())]))
    parsed = parse_authentication_results(f";{space}".join(parts))
    assert parsed is not None and parsed.authserv_id == authserv
    # white space inside a quoted value is unfolded as a folded header field's would be
    assert parsed.results == tuple(
        AuthResult(m, r, {n: re.sub(r"\s+", " ", v) for n, v in props.items()}) for m, r, props in results
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
@example("x; dkim=pass header.d=" + "(" * 500)
def test_any_authentication_results_text_is_read_or_refused(text: str) -> None:
    parsed = parse_authentication_results(text)
    assert parsed is None or isinstance(parsed.authserv_id, str)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=2000))
def test_any_bytes_give_a_verdict(lookup, data: bytes) -> None:
    assert check(data, lookup).status in DkimStatus
    assert check(b"DKIM-Signature: " + data, lookup).status in DkimStatus


@pytest.fixture(scope="module")
def one_signed(rsa: Key) -> bytes:
    return signed(mail(body="SIGNON F game secret-1\nA PAR-BUR\nF BRE-MAO\n"), rsa)


SIGNED_FIELDS = rb"(?im)^(from|to|subject|date|message-id|mime-version|content-type|dkim-signature):"


def _signed_spans(raw: bytes) -> list[tuple[int, int]]:
    """Where the signed bytes are: the values of the signed header fields and of the DKIM-Signature (but its b=,
    the signature itself, whose last base64 character carries bits that decode to nothing), and the body."""
    head_end = raw.index(b"\r\n\r\n")
    spans = []
    for match in re.finditer(SIGNED_FIELDS, raw):
        start = match.end()
        end = raw.index(b"\r\n", start)
        while raw[end + 2 : end + 3] in (b" ", b"\t"):  # continuation lines
            end = raw.index(b"\r\n", end + 2)
        if match.group(1).lower() == b"dkim-signature":
            b_tag = raw.index(b" b=", start, end)
            spans.append((start, b_tag))
        else:
            spans.append((start, end))
    spans.append((head_end + 4, len(raw)))
    return spans


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_signed_message_altered_by_one_byte_never_passes(one_signed: bytes, lookup, data: st.DataObject) -> None:
    assert check(one_signed, lookup).passed
    spans = _signed_spans(one_signed)
    positions = [
        i for start, end in spans for i in range(start, end) if one_signed[i : i + 1] not in (b" ", b"\t", b"\r", b"\n")
    ]
    where = data.draw(st.sampled_from(positions), label="position")
    # relaxed canonicalisation forgives changes of white space: the new byte is anything else than the old one
    new = data.draw(st.integers(33, 126).filter(lambda b: b != one_signed[where]), label="byte")
    altered = one_signed[:where] + bytes([new]) + one_signed[where + 1 :]
    assert not check(altered, lookup).passed


def test_the_judge_signs_what_it_sends(rsa: Key, ed: Key, lookup) -> None:
    for key, selector in ((rsa, "s1"), (ed, "e1")):
        signing = signing_key(key.private.decode(), selector, "example.org")
        assert "BEGIN" not in repr(signing) and key.private.decode()[40:60] not in repr(signing)
        raw = sign(mail(sender="judge@example.org"), signing)
        assert raw.startswith(b"DKIM-Signature: ") and b" l=" not in raw.split(b"\r\n\r\n")[0]
        assert check(raw, lookup).passed


@pytest.mark.parametrize(
    ("text", "selector", "domain", "problem"),
    [
        ("not a key", "s1", "example.org", "neither an RSA private key"),
        ("-----BEGIN RSA PRIVATE KEY-----\nbm90\n-----END RSA PRIVATE KEY-----", "s1", "example.org", "not an RSA"),
        ("c2hvcnQ=", "s1", "example.org", "ed25519 key (32 bytes"),
        ("x", "bad selector", "example.org", "not a DNS label"),
        ("x", "s1", "nodots", "not a domain name"),
    ],
)
def test_an_unusable_signing_key_is_named(text: str, selector: str, domain: str, problem: str) -> None:
    with pytest.raises(KeyProblem) as caught:
        signing_key(text, selector, domain)
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_organisational_domains_and_alignment() -> None:
    assert organisational_domain("mail.Example.ORG.") == "example.org"
    assert organisational_domain("a.b.example.co.uk") == "example.co.uk"
    assert organisational_domain("co.uk") == "co.uk"
    assert aligned("example.org", "mail.example.org") and aligned("mail.example.org", "example.org")
    assert not aligned("example.org", "example.org.evil.net")
    assert not aligned("co.uk", "example.co.uk") and not aligned("example.co.uk", "co.uk")
    assert not aligned("com", "example.com") and not aligned("", "example.com")
    assert aligned("example.org", "example.org", strict=True)
    assert not aligned("example.org", "mail.example.org", strict=True)


_labels = st.lists(st.from_regex(r"[a-z0-9]([a-z0-9\-]{0,6}[a-z0-9])?", fullmatch=True), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(_labels, _labels, st.sampled_from(["org", "com", "co.uk", "ru", "de"]))
def test_relaxed_alignment_is_symmetric_and_follows_the_organisational_domain(a, b, suffix) -> None:
    one, two = ".".join([*a, suffix]), ".".join([*b, suffix])
    assert aligned(one, two) == aligned(two, one)
    org = organisational_domain(one)
    assert aligned(one, two) == (org == organisational_domain(two) and org not in MULTI_LABEL_SUFFIXES)
    assert aligned(one, one, strict=True)


def test_resolver_addresses() -> None:
    assert resolver_address("127.0.0.1") == ("127.0.0.1", 53)
    assert resolver_address("127.0.0.1:5353") == ("127.0.0.1", 5353)
    assert resolver_address("[::1]:53") == ("::1", 53)
    assert resolver_address("::1") == ("::1", 53)
    for bad in ("dns.example.org", "127.0.0.1:0", "1.2.3.4:70000", "[::1", ""):
        assert resolver_address(bad) is None, bad

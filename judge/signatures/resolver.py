"""The DNS side of DKIM: a TXT lookup on dnspython for judge.signatures.dkim.check, at the resolver the host names
(``[dkim] resolver``, read by judge.config.resolver_address) or the system's (/etc/resolv.conf) when it names none.
Nothing is cached: each message's keys are looked up afresh (a resolver caches them)."""

from __future__ import annotations

from judge.signatures.dkim import DnsUnavailable, Lookup


def txt_lookup(where: tuple[str, int] | None = None, timeout: float = 5.0) -> Lookup:
    """A lookup of a name's TXT record (its strings joined, the first record that looks like a DKIM key) at the
    resolver ``where`` (address, port; None: the system's): None when the name has none; DnsUnavailable when the
    resolver does not answer within ``timeout`` seconds or fails."""
    import dns.exception
    import dns.resolver

    if where is not None:
        client = dns.resolver.Resolver(configure=False)
        client.nameservers = [where[0]]
        client.port = where[1]
    else:
        try:
            client = dns.resolver.Resolver()
        except dns.exception.DNSException as exc:  # no /etc/resolv.conf: every lookup says so
            return _unavailable(f"the system's resolver: {type(exc).__name__}")
    client.lifetime = timeout
    client.timeout = timeout

    def lookup(name: str) -> bytes | None:
        try:
            answer = client.resolve(name, "TXT", raise_on_no_answer=False, search=False)
        except dns.resolver.NXDOMAIN:
            return None
        except (dns.exception.DNSException, OSError) as exc:  # no answer in time, SERVFAIL, a name too long …
            raise DnsUnavailable(f"{name}: {type(exc).__name__}") from None
        if answer.rrset is None:
            return None
        records = [b"".join(rdata.strings) for rdata in answer.rrset]
        keys = [r for r in records if r.lstrip().startswith(b"v=DKIM1") or b"p=" in r]
        found = keys or records
        return found[0] if found else None

    return lookup


def _unavailable(why: str) -> Lookup:
    def lookup(name: str) -> bytes | None:
        raise DnsUnavailable(f"{name}: {why}")

    return lookup

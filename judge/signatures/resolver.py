"""The DNS side of DKIM: a TXT lookup on dnspython for judge.signatures.dkim.check, at the resolver the host names
(``[dkim] resolver``: an address with an optional port, "127.0.0.1:5353", "[::1]:53") or the system's
(/etc/resolv.conf) when it names none. Nothing is cached: each message's keys are looked up afresh (a resolver
caches them)."""

from __future__ import annotations

import ipaddress
import re

from judge.signatures.dkim import DnsUnavailable, Lookup


def resolver_address(text: str) -> tuple[str, int] | None:
    """``"127.0.0.1"``, ``"127.0.0.1:5353"``, ``"::1"`` or ``"[::1]:53"`` as (address, port); None when it is none."""
    match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?|([0-9.]+)(?::(\d{1,5}))?|([0-9A-Fa-f:]+)", text.strip())
    if match is None:
        return None
    address = match.group(1) or match.group(3) or match.group(5)
    port = int(match.group(2) or match.group(4) or 53)
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return None
    return (address, port) if 0 < port < 65536 else None


def txt_lookup(resolver: str = "", timeout: float = 5.0) -> Lookup:
    """A lookup of a name's TXT record (its strings joined, the first record that looks like a DKIM key): None when
    the name has none; DnsUnavailable when the resolver does not answer within ``timeout`` seconds or fails."""
    import dns.exception
    import dns.resolver

    if resolver:
        where = resolver_address(resolver)
        if where is None:
            raise ValueError(f"not a resolver address: {resolver!r}")
        client = dns.resolver.Resolver(configure=False)
        client.nameservers = [where[0]]
        client.port = where[1]
    else:
        client = dns.resolver.Resolver()
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

"""Hostile mail against the raw-message reader and the body reader: time and peak memory of each attack input.

    python bench/hostile_mail.py

Each input is one that took the judge down before the bounds of issue 9 (an RFC 2047 encoded-word bomb in the
Subject, a punycode body, 20,000 nested message/rfc822 parts, a 10 MB body, 399 SIGNON lines). Each is run in a fresh
process so that its peak RSS is its own. Figures go in bench/README.md with the machine and the date.
"""

from __future__ import annotations

import json
import subprocess
import sys

CASES = {
    "Subject of 6,000 encoded-words (100 KB)": "b'From: a@example.org\\nSubject: ' + "
    "b' '.join([b'=?utf-8?q?abcd?='] * 6000) + b'\\n\\nA par H\\n'",
    "Subject of 36,000 encoded-words (510 KB)": "b'From: a@example.org\\nSubject: ' + "
    "b' '.join([b'=?utf-8?q?abcd?='] * 36000) + b'\\n\\nA par H\\n'",
    "Subject of 60 KB in 3,000 encoded-words": "b'From: a@example.org\\nSubject: ' + "
    "b' '.join([b'=?utf-8?q?abcdef?='] * 3000) + b'\\n\\nA par H\\n'",
    "Content-Type of 12,000 parameters (60 KB)": "b'From: a@example.org\\nContent-Type: text/plain; ' + "
    "b'a=b; ' * 12000 + b'\\n\\nA par H\\n'",
    "From of 2,200 addresses (60 KB)": "b'From: ' + b', '.join(b'<a%d@example.org>' % i for i in range(2200))"
    " + b'\\n\\nA par H\\n'",
    "HTML body of 300,000 '<a ' (900 KB)": "b'From: a@example.org\\nContent-Type: text/html\\n\\n' + b'<a ' * 300000",
    "punycode body (800 KB)": "b'From: a@example.org\\nContent-Type: text/plain; charset=punycode\\n\\n' + "
    "b'a' * 800000",
    "20,000 nested message/rfc822": "b'From: a@example.org\\n' + b'Content-Type: message/rfc822\\n\\n' * 20000 + b'x'",
    "one 940 KB text body": "b'From: a@example.org\\n\\n' + b'A par - bur\\n' * 78000",
    "399 SIGNON lines (body read only)": "b'From: a@example.org\\n\\n' + b'SIGNON France g guess\\n' * 399",
}

CHILD = """
import json, resource, sys, time
from judge.mail.message import parse_incoming
from judge.commands.body import parse_body
raw = eval(sys.argv[1])
start = time.perf_counter()
msg = parse_incoming(raw)
body = parse_body(msg.body)
took = time.perf_counter() - start
print(json.dumps({"bytes": len(raw), "seconds": took, "problem": msg.problem, "items": len(body.items),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    base = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import json, resource; import judge.mail.message, "
                "judge.commands.body; print(json.dumps(resource.getrusage(resource."
                "RUSAGE_SELF).ru_maxrss / 1024))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    print(f"baseline process (imports only): {base:.0f} MB peak RSS")
    print(f"{'input':45} {'bytes':>9} {'ms':>8} {'peak MB':>8}  outcome")
    for name, expr in CASES.items():
        out = subprocess.run([sys.executable, "-c", CHILD, expr], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(
            f"{name:45} {r['bytes']:>9} {r['seconds'] * 1000:>8.1f} {r['peak_mb']:>8.0f}  "
            f"{r['problem'] or 'read'} ({r['items']} items)"
        )


if __name__ == "__main__":
    main()

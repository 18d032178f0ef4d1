"""Writes the real-client corpus (tests/mail_corpus/*.eml): replies to the judge the way each client writes them.

Run ``python tests/mail_corpus/make_corpus.py`` after changing a message here; the .eml files are committed, and
tests/mail_corpus/expectations.toml says what each must produce. The shapes (attribution lines, header blocks,
footers, quoting, HTML structure, transfer encodings) follow what those clients write; the text is our own.
"""

from __future__ import annotations

import base64
import quopri
from email.message import EmailMessage
from pathlib import Path

HERE = Path(__file__).parent
FROM = "Françoise Martin <france@p.test>"
JUDGE = "Diplomacy judge <judge@judge.test>"
DATE = "Tue, 01 Dec 2026 11:30:00 +0100"
SIGNON = "SIGNON France g pw-France"
MARKER = "[judge-mail] Mail from the Diplomacy judge: quoted text in your reply is never read as orders."
# The judge's earlier reply, as it is quoted: its old orders must never be read again.
OLD = [
    MARKER,
    "",
    "> SIGNON France g ****",
    "signed on as France in g",
    "> A par - bur",
    "OK: A par - bur",
    "> F bre - eng",
    "OK: F bre - eng",
    "",
    "France in g, Spring 1901 movement:",
    "Your orders:",
    "    A par - bur",
    "    F bre - eng",
    "Without orders (they will hold):",
    "    A mar",
    "You are not ready.",
]
OLD_LINES = "\n".join(OLD)


def quoted(lines: list[str] | str, prefix: str = "> ") -> str:
    lines = lines.splitlines() if isinstance(lines, str) else lines
    return "\n".join((prefix + line).rstrip() for line in lines)


def head(subject: str, msgid: str, extra: str = "") -> str:
    return (
        f"From: {FROM}\nTo: {JUDGE}\nSubject: {subject}\nDate: {DATE}\nMessage-ID: <{msgid}@p.test>\n"
        f"In-Reply-To: <judge.41@judge.test>\nReferences: <game.g@judge.test> <judge.41@judge.test>\n"
        f"MIME-Version: 1.0\n{extra}"
    )


def plain(
    name: str,
    subject: str,
    body: str,
    *,
    charset: str = "utf-8",
    cte: str = "8bit",
    flowed: bool = False,
    extra: str = "",
) -> None:
    ctype = f"text/plain; charset={charset}" + ("; format=flowed" if flowed else "")
    data = body.encode(charset)
    if cte == "quoted-printable":
        data = quopri.encodestring(data)
    elif cte == "base64":
        data = base64.encodebytes(data)
    raw = head(subject, name, extra).encode() + f"Content-Type: {ctype}\nContent-Transfer-Encoding: {cte}\n\n".encode()
    (HERE / f"{name}.eml").write_bytes(raw.replace(b"\n", b"\r\n") + data.replace(b"\n", b"\r\n"))


def mime(name: str, msg: EmailMessage, subject: str, extra: dict[str, str] | None = None) -> None:
    msg["From"], msg["To"], msg["Subject"], msg["Date"] = FROM, JUDGE, subject, DATE
    msg["Message-ID"] = f"<{name}@p.test>"
    msg["In-Reply-To"] = "<judge.41@judge.test>"
    msg["References"] = "<game.g@judge.test> <judge.41@judge.test>"
    for key, value in (extra or {}).items():
        msg[key] = value
    (HERE / f"{name}.eml").write_bytes(bytes(msg))


def alternative(text: str, html: str) -> EmailMessage:
    msg = EmailMessage()
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    return msg


def html_only(html: str) -> EmailMessage:
    msg = EmailMessage()
    msg.set_content(html, subtype="html")
    return msg


OLD_HTML = "".join(f"<div>{line or '<br>'}</div>" for line in OLD)


def main() -> None:
    # Thunderbird, top-posted, format=flowed, with the usual attribution and ">" quotes
    plain(
        "thunderbird_top",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\nCheers,\nFrançoise\n\n"
        f"On 01.12.26 10:00, Diplomacy judge wrote:\n{quoted(OLD)}\n",
        flowed=True,
    )
    # Thunderbird, bottom-posted: the quote first, the orders under it
    plain(
        "thunderbird_bottom",
        "Re: Diplomacy game g: your orders",
        f"On 01.12.26 10:00, Diplomacy judge wrote:\n{quoted(OLD)}\n\n{SIGNON}\nA par - pic\nF bre - mao\n\n"
        f"-- \nFrançoise Martin\nParis\n",
    )
    # Outlook desktop (plain text): no ">" at all, an Original Message line and a header block
    plain(
        "outlook_desktop",
        "RE: Diplomacy game g: your orders",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\n-----Original Message-----\nFrom: {JUDGE}\n"
        f"Sent: Tuesday, December 1, 2026 10:00 AM\nTo: {FROM}\nSubject: Re: Diplomacy game g: your orders\n\n"
        f"{OLD_LINES.replace('> ', '')}\n",
        charset="windows-1252",
        cte="quoted-printable",
    )
    # Outlook 365, HTML only: a signature line "Paris", then the reply header block in a bordered div
    mime(
        "outlook_365_html",
        html_only(
            f"<html><body><div>{SIGNON}</div><div>A par - pic</div><div>F bre - mao</div><div><br></div>"
            f'<div>Françoise</div><div>Paris</div><hr style="display:inline-block;width:98%">'
            f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> Diplomacy judge '
            f"&lt;judge@judge.test&gt;<br><b>Sent:</b> Tuesday, December 1, 2026 10:00<br><b>To:</b> Françoise Martin "
            f"&lt;france@p.test&gt;<br><b>Subject:</b> Re: Diplomacy game g: your orders</font><div>&nbsp;</div></div>"
            f"{OLD_HTML.replace('&gt; ', '')}</body></html>"
        ),
        "RE: Diplomacy game g: your orders",
    )
    # Outlook for Android: its footer, a line of underscores, the header block
    plain(
        "outlook_android",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\nGet Outlook for Android\n"
        f"________________________________\nFrom: Diplomacy judge <judge@judge.test>\n"
        f"Sent: Tuesday, December 1, 2026 10:00:00 AM\nTo: france@p.test <france@p.test>\n"
        f"Subject: Re: Diplomacy game g: your orders\n\n{OLD_LINES}\n",
    )
    # Outlook in German: Von/Gesendet/An/Betreff, subject with AW:
    plain(
        "outlook_german",
        "AW: Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\nViele Grüße\nFrançoise\n\nVon: Diplomacy judge "
        f"<judge@judge.test>\nGesendet: Dienstag, 1. Dezember 2026 10:00\nAn: Françoise Martin <france@p.test>\n"
        f"Betreff: Re: Diplomacy game g: your orders\n\n{OLD_LINES}\n",
        cte="quoted-printable",
    )
    # Outlook header blocks in French, Spanish, Italian and Russian
    for lang, (fr, se, to, su) in {
        "fr": ("De :", "Envoyé :", "À :", "Objet :"),
        "es": ("De:", "Enviado:", "Para:", "Asunto:"),
        "it": ("Da:", "Inviato:", "A:", "Oggetto:"),
        "ru": ("От:", "Отправлено:", "Кому:", "Тема:"),
    }.items():
        plain(
            f"outlook_{lang}",
            "RE: Diplomacy game g: your orders",
            f"{SIGNON}\nA par - pic\nF bre - mao\n\n{fr} Diplomacy judge <judge@judge.test>\n"
            f"{se} mardi 1 décembre 2026 10:00\n{to} france@p.test\n{su} Re: Diplomacy game g\n\n{OLD_LINES}\n",
        )
    # Gmail, English: text and HTML alternatives, a wrapped attribution, ">" quotes; the HTML has a blockquote
    mime(
        "gmail_en",
        alternative(
            f"{SIGNON}\nA par - pic\nF bre - mao\n\nOn Tue, Dec 1, 2026 at 10:00 AM Diplomacy judge <\n"
            f"judge@judge.test> wrote:\n\n{quoted(OLD)}\n",
            f'<div dir="ltr"><div>{SIGNON}</div><div>A par - pic</div><div>F bre - mao</div></div><br>'
            f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Tue, Dec 1, 2026 at 10:00 AM Diplomacy '
            f'judge &lt;<a href="mailto:judge@judge.test">judge@judge.test</a>&gt; wrote:<br></div>'
            f'<blockquote class="gmail_quote">{OLD_HTML}</blockquote></div>',
        ),
        "Re: Diplomacy game g: your orders",
    )
    # Gmail, French, HTML only (the text is the HTML's)
    mime(
        "gmail_fr_html",
        html_only(
            f'<div dir="ltr">{SIGNON}<br>A par - pic<br>F bre - mao<br><br>Bonne journée</div><br>'
            f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">Le mar. 1 déc. 2026 à 10:00, Diplomacy '
            f'judge &lt;judge@judge.test&gt; a écrit&nbsp;:<br></div><blockquote class="gmail_quote">{OLD_HTML}'
            f"</blockquote></div>"
        ),
        "Re: Diplomacy game g: your orders",
    )
    # Thunderbird, HTML only: the quote in a cite blockquote under its moz-cite-prefix
    mime(
        "thunderbird_html",
        html_only(
            f'<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"></head><body>'
            f'<p>{SIGNON}<br>A par - pic<br>F bre - mao</p><div class="moz-cite-prefix">On 01.12.26 10:00, Diplomacy '
            f'judge wrote:<br></div><blockquote type="cite" cite="mid:judge.41@judge.test">{OLD_HTML}</blockquote>'
            f"</body></html>"
        ),
        "Re: Diplomacy game g: your orders",
    )
    # Apple Mail, HTML: the attribution inside the blockquote
    mime(
        "apple_mail_html",
        alternative(
            f"{SIGNON}\nA par - pic\nF bre - mao\n\n> On 1 Dec 2026, at 10:00, Diplomacy judge <judge@judge.test> "
            f"wrote:\n>\n{quoted(OLD)}\n",
            f'<html><body dir="auto"><div>{SIGNON}</div><div>A par - pic</div><div>F bre - mao</div><div><br>'
            f'<blockquote type="cite"><div>On 1 Dec 2026, at 10:00, Diplomacy judge &lt;judge@judge.test&gt; wrote:'
            f'</div><br class="Apple-interchange-newline">{OLD_HTML}</blockquote></div></body></html>',
        ),
        "Re: Diplomacy game g: your orders",
    )
    # Apple Mail: arrows and an en dash, then the attribution over a quote
    plain(
        "apple_mail",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par → pic\nF bre – mao\n\n\nOn 1 Dec 2026, at 10:00, Diplomacy judge <judge@judge.test> "
        f"wrote:\n\n{quoted(OLD)}\n",
        cte="quoted-printable",
    )
    # iPhone: U+2212 minus signs and no-break spaces from autocorrect, the footer, the quote
    plain(
        "iphone",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA\u00a0par \u2212 pic\nF bre \u2011 mao\n\nSent from my iPhone\n\n"
        f"> On 1 Dec 2026, at 10:00, Diplomacy judge <judge@judge.test> wrote:\n>\n{quoted(OLD)}\n",
        cte="quoted-printable",
    )
    # Samsung Email: numbered orders, its footer and its Original message block
    plain(
        "samsung",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\n1. A par - pic\n2) F bre - mao\n\n\n\nSent from my Galaxy\n\n\n"
        f"-------- Original message --------\nFrom: Diplomacy judge <judge@judge.test>\n"
        f"Date: 01/12/2026 10:00 (GMT+01:00)\nTo: france@p.test\nSubject: Re: Diplomacy game g: your orders\n\n"
        f"{OLD_LINES}\n",
        cte="base64",
    )
    # Yahoo Mail: its footer, then an attribution over an unmarked copy of the quoted mail
    plain(
        "yahoo",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\nSent from Yahoo Mail on Android\n\n"
        f"  On Tue, 1 Dec 2026 at 10:00, Diplomacy judge<judge@judge.test> wrote:   \n\n  {OLD_LINES}\n",
    )
    # mutt: interleaved answers between quoted lines, a signature
    plain(
        "mutt_interleaved",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\n\nOn Tue, Dec 01, 2026 at 10:00:00AM +0000, Diplomacy judge wrote:\n> {MARKER}\n>\n"
        f"> > A par - bur\n> OK: A par - bur\n\nA par - pic\n\n> > F bre - eng\n> OK: F bre - eng\n\n"
        f"F bre - mao\n\n> Without orders (they will hold):\n>     A mar\n\nA mar H\n\n-- \nFrançoise\n",
    )
    # K-9 Mail (German): zero-width spaces and a soft hyphen pasted in, K-9's attribution and footer
    plain(
        "k9",
        "Re: Diplomacy game g: your orders",
        f"{SIGNON}\nA par\u200b - pic\nF b\u00adre - mao\n\nAm 1. Dezember 2026 10:00:00 MEZ schrieb Diplomacy "
        f"judge <judge@judge.test>:\n{quoted(OLD)}\n\n-- \nDiese Nachricht wurde von meinem Android-Gerät mit K-9 "
        f"Mail gesendet.\n",
        cte="quoted-printable",
    )
    # Roundcube: bottom-posted under its German attribution, list items with bullets
    plain(
        "roundcube",
        "Re: Diplomacy game g: your orders",
        f"Am 01.12.2026 10:00, schrieb Diplomacy judge:\n{quoted(OLD)}\n\n{SIGNON}\n• A par - pic\n* F bre - mao\n",
    )
    # A plain HTML mail with the orders as a list, the quote in a blockquote
    mime(
        "html_list",
        html_only(
            f"<html><body><p>{SIGNON}</p><ul><li>A par - pic</li><li>F bre ⇒ mao</li></ul>"
            f'<p>On 1 Dec 2026, Diplomacy judge &lt;judge@judge.test&gt; wrote:</p><blockquote type="cite">'
            f"{OLD_HTML}</blockquote></body></html>"
        ),
        "Re: orders",
    )
    # The orders in an attached text file (the message only signs on)
    msg = EmailMessage()
    msg.set_content(f"{SIGNON}\n")
    msg.add_attachment(b"A par - pic\r\nF bre - mao\r\n", maintype="text", subtype="plain", filename="orders.txt")
    mime("attachment_text", msg, "orders attached")
    # A forwarded message attached (message/rfc822): it is not read, the reply says so
    inner = EmailMessage()
    inner["From"], inner["To"], inner["Subject"] = "Germany <germany@p.test>", FROM, "my plan"
    inner.set_content("A par - bur\nF bre - eng\nA mar - spa\n")
    msg = EmailMessage()
    msg.set_content(f"{SIGNON}\nA par - pic\nF bre - mao\n")
    msg.add_attachment(inner)
    mime("forward_attached", msg, "Fwd: my plan")
    # A forward inline (Gmail): nothing from the forward line on is read
    plain(
        "forward_inline",
        "Fwd: my plan",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\n---------- Forwarded message ---------\nFrom: Germany "
        f"<germany@p.test>\nDate: Tue, 1 Dec 2026 at 09:00\nSubject: my plan\nTo: {FROM}\n\nA mar - spa\n",
    )
    # An Outlook forward (FW:): the forwarded mail's header block ends the reading, and the reply says so
    plain(
        "outlook_forward",
        "FW: my plan",
        f"{SIGNON}\nA par - pic\nF bre - mao\n\n________________________________\nFrom: Germany <germany@p.test>\n"
        f"Sent: Tuesday, December 1, 2026 09:00\nTo: {FROM}\nSubject: my plan\n\nA mar - spa\n",
    )
    # Inline PGP: armour skipped, the signed text read with its dash-escaping undone
    plain(
        "pgp_inline",
        "orders",
        f"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n{SIGNON}\n- - A par - pic\n- F bre - mao\n"
        f"-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEEexampleexampleexampleexampleexampleAAoJEexample\n"
        f"=abcd\n-----END PGP SIGNATURE-----\n",
    )
    # An Outlook out-of-office answer without Auto-Submitted: recognised by its subject, never answered
    plain(
        "outlook_out_of_office",
        "Automatic reply: Diplomacy game g: your orders",
        "I am out of the office until Monday with limited access to mail.\nA par - bur\n",
    )
    plain(
        "german_out_of_office",
        "Abwesenheitsnotiz: Diplomacy game g",
        "Ich bin bis Montag nicht im Büro.\n",
        extra="X-Autoreply: yes\n",
    )


if __name__ == "__main__":
    main()

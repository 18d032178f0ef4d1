"""The text a player wrote in a parsed message: the body among its MIME parts (the plain version of an alternative,
the root of a related group), decoded with a real text charset, format=flowed undone, HTML read as text; attached
text files and forwarded messages kept aside as attachments."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser

from judge.mail.bounds import MAX_PARTS, text_charset
from judge.mail.header_fields import clean, content_type_of, one_line

MAX_ATTACHMENT_CHARS = 64 * 1024  # a text attachment longer than this is not read
_MAX_DEPTH = 10  # nesting of multiparts followed when looking for the body


@dataclass(frozen=True)
class Attachment:
    """A part the sender attached: a text file (``text`` is what it says) or anything else (``text`` is None)."""

    name: str  # the file name, or "" (a forwarded message has none)
    content_type: str  # e.g. "text/plain", "message/rfc822"
    text: str | None  # the text of a readable text/plain attachment, else None (not read)


# Attached parts that are never worth a word in the reply: signatures, keys, vCards and the pictures of a signature.
_SILENT_ATTACHMENTS = frozenset(
    {
        "application/pgp-signature",
        "application/pkcs7-signature",
        "application/x-pkcs7-signature",
        "application/pgp-keys",
        "text/vcard",
        "text/x-vcard",
    }
)


def text_of(part: Message, depth: int, attachments: list[Attachment]) -> tuple[str, str] | None:
    """("plain" or "html", text) for what the player wrote in ``part``, or None if it holds no such text.

    An alternative gives its plain-text version if it has one; a related group gives its root; any other multipart
    gives all its inline text parts in order. Attachments and enclosed messages (forwards, bounces) are not the
    body: they go to ``attachments`` (the text of a plain-text file, nothing of a forward), pictures and signatures
    are passed over.
    """
    if depth > _MAX_DEPTH:
        return None
    ctype = content_type_of(part)
    if ctype == "message/rfc822" or (
        part.get_content_disposition() == "attachment" and not ctype.startswith("multipart/")
    ):
        _attach(part, ctype, attachments)
        return None
    if ctype.startswith("multipart/"):
        children = part.get_payload()
        if not isinstance(children, list):  # a multipart without a usable boundary: read it as plain text
            return "plain", _decode(part)
        if ctype == "multipart/related":
            children = children[:1]
        found = [
            r
            for r in (text_of(c, depth + 1, attachments) for c in children[:MAX_PARTS] if isinstance(c, Message))
            if r is not None
        ]
        if not found:
            return None
        if ctype == "multipart/alternative":
            plain = [r for r in found if r[0] == "plain"]
            return (plain or found)[0]
        kind = "plain" if any(k == "plain" for k, _ in found) else "html"
        return kind, "\n".join(text for _, text in found)
    if ctype == "text/plain":
        return "plain", _plain(part)
    if ctype == "text/html":
        return "html", html_to_text(_decode(part))
    return None


def _plain(part: Message) -> str:
    text = _decode(part)
    if str(part.get_param("format", "")).lower() == "flowed":
        text = _unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _attach(part: Message, ctype: str, attachments: list[Attachment]) -> None:
    if ctype in _SILENT_ATTACHMENTS or ctype.startswith("image/") or len(attachments) >= MAX_PARTS:
        return
    try:
        name = one_line(clean(part.get_filename() or ""))[:200]
    except Exception:  # noqa: BLE001 - a broken file name parameter is as good as none
        name = ""
    text = None
    if ctype == "text/plain":
        decoded = _plain(part)
        if len(decoded) <= MAX_ATTACHMENT_CHARS:
            text = decoded
    attachments.append(Attachment(name, ctype, text))


# Charsets that mail clients declare but mean something wider by (as web browsers also assume).
_WIDER_CHARSET = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "iso-8859-8-i": "iso-8859-8",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
}


def _decode(part: Message) -> str:
    """The text of a leaf part: transfer encoding undone, charset decoded, "\n" line endings, no BOM."""
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    try:
        charset = (part.get_content_charset() or "").strip().lower()
    except Exception:  # noqa: BLE001 - a broken charset parameter is as good as none
        charset = ""
    text = _decode_bytes(data, text_charset(_WIDER_CHARSET.get(charset, charset)) or "" if charset else "")
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _decode_bytes(data: bytes, charset: str) -> str:
    """Decode with the declared charset; with none, an unknown one, or ASCII, try UTF-8 and then Windows-1252."""
    if charset and charset not in ("us-ascii", "ascii") and text_charset(charset):
        try:
            return data.decode(charset, "replace")
        except (LookupError, UnicodeError):  # unknown or not a text encoding ("base64", "zlib", …)
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _unflow(text: str, *, delsp: bool) -> str:
    """Rejoin the soft line breaks of format=flowed text (RFC 3676), keeping quote depth."""
    lines: list[str] = []
    pending: list[str] | None = None
    pending_depth = 0

    def flush() -> None:
        joined = "".join(pending or [])
        lines.append((">" * pending_depth + (" " + joined if joined else "")) if pending_depth else joined)

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffing
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            content = content[:-1]
        if pending is not None and depth != pending_depth:
            flush()
            pending = None
        if pending is None:
            pending, pending_depth = [], depth
        pending.append(content)
        if not soft:
            flush()
            pending = None
    if pending is not None:
        flush()
    return "\n".join(lines)


class _HtmlText(HTMLParser):
    """Collects the visible text of an HTML body, one line per block.

    Line breaks wait in ``pending`` until the next text, so that the end of one block and the start of the next
    make one break, not two; a paragraph asks for a blank line, each ``<br>`` for one more break.
    """

    SKIP = frozenset({"script", "style", "head", "title", "template"})
    PARAGRAPH = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol"})
    BLOCK = PARAGRAPH | frozenset(
        {
            "address",
            "article",
            "aside",
            "caption",
            "dd",
            "details",
            "dialog",
            "div",
            "dl",
            "dt",
            "fieldset",
            "figcaption",
            "figure",
            "footer",
            "form",
            "header",
            "hr",
            "li",
            "main",
            "nav",
            "section",
            "summary",
            "tbody",
            "tfoot",
            "thead",
            "tr",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.pending = 0
        self.skip = 0
        self.pre = 0
        self.quote = 0  # depth of <blockquote>: its lines are written with "> " as a plain-text client would
        self.line_start = True

    def _block(self, tag: str) -> None:
        self.pending = max(self.pending, 2 if tag in self.PARAGRAPH else 1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "body":
            self.skip = 0  # a <head> whose end tag was left out ends here
        elif tag == "br":
            self.pending += 1
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag in self.BLOCK:
            self._block(tag)
            if tag == "pre":
                self.pre += 1
            elif tag == "blockquote":
                self.quote += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.SKIP:  # <script/> opens nothing
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            self._block(tag)
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            elif tag == "blockquote":
                self.quote = max(0, self.quote - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if not self.pre:
            data = re.sub(r"[ \t\n\r\f]+", " ", data)
            if data == " ":  # whitespace between tags separates words at most, never lines
                if not self.pending:
                    self.parts.append(data)
                return
        if self.pending and self.parts:
            self.parts.append("\n" * self.pending)
            self.line_start = True
        self.pending = 0
        if self.quote:
            prefix = "> " * min(self.quote, 20)
            if self.line_start:
                data = prefix + data.lstrip(" ")
            data = data.replace("\n", "\n" + prefix)
        self.line_start = False
        self.parts.append(data)


# A "<" that does not open a complete tag, comment, declaration or processing instruction within reach. Python's
# HTMLParser rescans the rest of the document for each of these (quadratic time: 15 KB of "<a " took 4 s), so they
# are written as text (&lt;) before it sees them; the lookahead is bounded, so this pass is linear.
_STRAY_LT = re.compile(r"<(?!/?[A-Za-z][^<>]{0,2000}>|!--|![^<>]{0,2000}>|\?[^<>]{0,2000}>)")


def html_to_text(markup: str) -> str:
    """The visible text of an HTML body: scripts and styles dropped, blocks on their own lines, entities decoded."""
    markup = _STRAY_LT.sub("&lt;", markup)
    try:
        parser = _HtmlText()
        parser.feed(markup)
        parser.close()
        text = "".join(parser.parts)
    except Exception:  # noqa: BLE001 - HTMLParser is lenient, but a body must never be lost to it: strip tags by hand instead
        text = html.unescape(re.sub(r"<[^>]*>", " ", markup))
    lines = [line.replace("\xa0", " ").strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)

"""Every mail is rendered from one set of Jinja templates shared by every language, templates/en/: ``<name>.txt.j2``
(plain text, first line "Subject: …", always) and ``<name>.html.j2`` (the HTML alternative, autoescaped, where there
is one). Their words are the catalogs' (judge/i18n): ``{{ _("Orders are due {deadline}.", deadline=deadline) }}``,
``ngettext``, ``pgettext``, worded in the mail's language; a language is a catalog and nothing else.

A host may replace a template for every language (``templates_dir/<name>.txt.j2``) or for one
(``templates_dir/<language>/<name>.txt.j2``, which wins); see docs/reports.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    pass_context,
    select_autoescape,
)
from markupsafe import Markup, escape

from judge.data.resources import search_dirs
from judge.facts import LANGUAGES as LANGUAGES
from judge.game.notices import ANONYMOUS_SENDER
from judge.game.press import EVERYONE  # the languages of the templates, for the callers here
from judge.i18n import T, Text, gettext, ngettext, outcome_of, pgettext, phase_words, result_words, translate, word
from judge.rules.orders import Outcome
from judge.rules.words import Named, Reason
from judge.timeutil import format_moment, parse_iso_utc

DEFAULT_LANGUAGE = "en"
HOST, SHIPPED = "host", "shipped"  # where a template comes from, as the loader names it
SHARED = "en"  # the shipped templates every language shares: written in English, the catalogs' message ids


@dataclass(frozen=True)
class Mail:
    subject: str
    text: str
    html: str | None


def _env() -> Environment:
    return _env_for(search_dirs("templates"))


@lru_cache(maxsize=4)
def _env_for(folders: tuple[Path, ...]) -> Environment:
    """Templates from the host's ``templates_dir`` first (its files win on a name clash), then the shipped ones; the
    template words are the catalogs' (``_``, ``ngettext``, ``pgettext``) in the mail's language."""
    host, shipped = (folders[0], folders[-1]) if len(folders) > 1 else (None, folders[-1])
    by_origin = {SHIPPED: FileSystemLoader(str(shipped))} | ({HOST: FileSystemLoader(str(host))} if host else {})
    env = Environment(
        # "host/ru/x.txt.j2", "shipped/en/x.txt.j2" for a mail; a bare name ("_layout.html.j2") the host's first
        loader=ChoiceLoader([PrefixLoader(by_origin), FileSystemLoader([str(f) for f in folders])]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
    )
    env.filters["signed"] = lambda n: f"+{n}" if n > 0 else str(n)
    env.filters["t"] = _t
    env.filters["word"] = _word
    env.filters["seat"] = _seat
    env.filters["place"] = _place
    env.filters["result"] = _result
    env.filters["when"] = _when
    add_catalog_words(env)
    env.filters["phase"] = _phase
    env.filters["press_sender"] = _press_sender
    env.filters["press_addressees"] = _press_addressees
    return env


@pass_context
def _t(context: Any, value: Any) -> str:
    """``{{ response | t }}``: a :class:`judge.i18n.Text` (or plain words) in the mail's language."""
    return translate(value, context.get("language", DEFAULT_LANGUAGE))


@pass_context
def _result(context: Any, line: Any, board: Any = None) -> str:
    """``{{ line | result }}``: what became of an order, in the mail's language (judge.i18n.result_words);
    ``{{ line | result(board) }}`` adds where a dislodged unit may retreat, from the position after the phase."""
    language = context.get("language", DEFAULT_LANGUAGE)
    words = translate(result_words(line), language)
    if board is None or outcome_of(line) is not Outcome.DISLODGED:
        return words
    unit = " ".join(str(line.get("order") or "").split()[:2])
    for entry in (board.get("dislodged") or {}).get(line.get("power"), ()):
        if entry.get("unit") == unit:
            places = entry.get("retreats") or []
            then = T("may retreat to {places}", places=", ".join(places)) if places else T("no retreat: disbanded")
            return f"{words}, {translate(then, language)}"
    return words


@pass_context
def _when(context: Any, value: Any) -> str:
    """``{{ until | when }}``: a moment (a datetime, or an ISO text as the store keeps it) in the reader's zone and
    language (``reader_zone``, which the mail side passes; UTC without it)."""
    moment = parse_iso_utc(value) if isinstance(value, str) else value
    return format_moment(moment, context.get("reader_zone", "UTC"), context.get("language", DEFAULT_LANGUAGE))


@pass_context
def _word(context: Any, value: Any) -> str:
    """``{{ power | word }}``: a name in the mail's language: a power of the mail's game as its variant names it
    (``[names.<language>]``), a place or power given as a ``Named``, else a word of the catalog (a season)."""
    language = context.get("language", DEFAULT_LANGUAGE)
    if isinstance(value, Named):
        return value.word(language)
    variant = _variant(context)
    if variant is not None and str(value) in variant.powers:
        return str(variant.power(str(value)).word(language))
    return word(language, str(value))


@pass_context
def _seat(context: Any, value: Any) -> str:
    """``{{ power | seat }}``: a power as ``| word`` names it, marked "(bot)" while the stand-in bot plays it (the
    notice's ``bots``): where a mail names who plays a power — the results, the tally, the start mail."""
    name = _word(context, value)
    if str(value) in (context.get("bots") or ()):
        return translate(T("{power} (bot)", power=name), context.get("language", DEFAULT_LANGUAGE))
    return name


def _variant(context: Any) -> Any:
    """The variant of the mail's game (``game`` in the context), or None."""
    game = context.get("game")
    return getattr(game, "variant", None) if game is not None else None


@pass_context
def _place(context: Any, value: Any) -> str:
    """``{{ "bur" | place }}``, ``{{ row.gains | map("place") | join(", ") }}``: a place of the mail's game in the
    mail's language with the abbreviation the player types beside it ("Бургундия (bur)"), a split coast with its coast
    ("Испания, северный берег (spa/nc)"); in English its name."""
    language = context.get("language", DEFAULT_LANGUAGE)
    if isinstance(value, Named):
        return value.shown(language)
    variant = _variant(context)
    loc = variant.geo.by_loc_name.get(str(value)) if variant is not None else None
    if loc is None:
        return str(value)
    return str(variant.geo.loc_named(loc).shown(language))


def add_catalog_words(env: Environment) -> None:
    """``_``, ``pgettext`` and ``ngettext`` in ``env``'s templates: the catalogs' words in the reader's language
    (``language`` in the context), the parameters escaped where the template is autoescaped (the mails' HTML, the
    archive's pages)."""
    env.globals["_"] = _gettext
    env.globals["ngettext"] = _ngettext
    env.globals["pgettext"] = _pgettext


@pass_context
def _gettext(context: Any, msgid: str, **params: Any) -> str:
    """``{{ _("Deadline: {when}", when=deadline) }}``: the template's words in the mail's language (the catalogs)."""
    return _worded(context, gettext(context.get("language", DEFAULT_LANGUAGE), msgid), msgid, params)


@pass_context
def _ngettext(context: Any, singular: str, plural: str, count: int, **params: Any) -> str:
    """``{{ ngettext("{count} unit", "{count} units", n) }}``: the form the number takes in the mail's language (three
    in Russian), from the catalog's plural entries (judge.i18n.ngettext)."""
    return ngettext(context.get("language", DEFAULT_LANGUAGE), singular, plural, count, **params)


@pass_context
def _pgettext(context: Any, msgctxt: str, msgid: str, **params: Any) -> str:
    """``{{ pgettext("announcement", what) }}``: words as the catalog says them in that place (gettext's msgctxt),
    with their parameters like ``_``."""
    return _worded(context, pgettext(context.get("language", DEFAULT_LANGUAGE), msgctxt, msgid), msgid, params)


def _worded(context: Any, words: str, msgid: str, params: dict[str, Any]) -> str:
    """``words`` (a translation of ``msgid``) with its ``{name}`` parameters filled in; in an HTML template the words
    are the template's own markup and only the parameters are escaped, as ``{{ x }}`` would be."""
    language = context.get("language", DEFAULT_LANGUAGE)
    values = {k: translate(v, language) if isinstance(v, (Text, Reason, Named)) else v for k, v in params.items()}
    markup = context.eval_ctx.autoescape
    try:
        return Markup(words).format(**values) if markup else words.format(**values)
    except (KeyError, IndexError, ValueError):  # a broken translation never hides the message
        return Markup(msgid).format(**values) if markup else msgid.format(**values)


@pass_context
def _phase(context: Any, phase: Any) -> str:
    """``{{ game.position.phase | phase }}``: "Весна 1901, движение" (judge.i18n.phase_words, as the code says it)."""
    return translate(phase_words(phase), context.get("language", DEFAULT_LANGUAGE))


@pass_context
def _press_sender(context: Any, sender: str) -> str:
    """``{{ sender | press_sender }}``: who a press comes from, as the words after "from" take it in the mail's
    language ("от державы Россия", "от анонимной державы"); grey press names no power."""
    language = context.get("language", DEFAULT_LANGUAGE)
    if sender == ANONYMOUS_SENDER:
        return pgettext(language, "press sender", sender)
    return pgettext(language, "press sender", "{power}").format(power=word(language, sender))


@pass_context
def _press_addressees(context: Any, label: str) -> str:
    """``{{ to_label | press_addressees }}``: whom a press went to ("всем", "Россия, Германия")."""
    language = context.get("language", DEFAULT_LANGUAGE)
    if label == EVERYONE:
        return pgettext(language, "press addressees", label)
    return ", ".join(word(language, power) for power in label.split(", "))


def _template(name: str, language: str, kind: str) -> Any:
    """``<name>.<kind>.j2``: the host's own for the language (``templates_dir/<language>/``), else the host's own for
    every language (``templates_dir/``), else the shipped one every language shares (``templates/en/``, whose words
    the catalogs translate)."""
    env = _env()
    file = f"{name}.{kind}.j2"
    for path in (f"{HOST}/{language}/{file}", f"{HOST}/{file}", f"{SHIPPED}/{SHARED}/{file}"):
        try:
            return env.get_template(path)
        except TemplateNotFound:
            continue
    return None


def render_mail(name: str, language: str, **context: Any) -> Mail:
    """Mail ``name`` in ``language`` (English where there is no translation)."""
    text_template = _template(name, language, "txt")
    if text_template is None:
        raise LookupError(f"there is no template {name!r}")
    text = text_template.render(language=language, **context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject: "):
        raise ValueError(f"template {name} must start with a 'Subject: ' line")
    html_template = _template(name, language, "html")
    html = html_template.render(language=language, **context) if html_template is not None else None
    return Mail(first[len("Subject: ") :].strip(), body.lstrip("\n"), html)


def judge_marker(language: str) -> str:
    """The line on top of every mail the judge sends (templates/_marker.txt.j2, in the mail's language). It carries
    the token the body reader knows (``judge.commands.body.JUDGE_MARKER``), so a reply that quotes the judge's mail
    without ">" (Outlook) is read only down to it."""
    return _env().get_template("_marker.txt.j2").render(language=language).strip()


def marked(mail: Mail, language: str) -> Mail:
    """``mail`` with the judge's marker line on top of its text and of its HTML body."""
    marker = judge_marker(language)
    html = mail.html
    if html is not None:
        line = f'<p style="color: #777; font-size: 0.8em; margin: 0 0 1em 0">{escape(marker)}</p>'
        at = html.find("<body")
        end = html.find(">", at) if at >= 0 else -1
        html = html[: end + 1] + "\n" + line + html[end + 1 :] if end >= 0 else line + "\n" + html
    return Mail(mail.subject, f"{marker}\n\n{mail.text}", html)

"""Issue 11, every word translated: two real games played by mail whose players and game masters read Russian and
German from the start send every kind of mail the judge has; no word of the judge's own English vocabulary is left
in any text or HTML part a Russian or German reader gets.

The English vocabulary is built, not kept by hand: every word of the English templates and of the catalogs' message
ids, less the words the target language's own templates and catalog use (for Russian only the Latin tokens it
writes as they are: commands, OK, UTC), the variant's province abbreviations and province names, and the tokens no
translation changes (addresses, game names, passwords, order notation, the players' own words)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from datetime import timedelta
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from babel import Locale
from babel.messages.pofile import read_po
from gamekit import POWERS, Table

from judge.commands import handlers
from judge.commands.grammar import known_commands
from judge.data.catalog import load_variant
from judge.game import records
from judge.i18n import LOCALE_DIR
from judge.reports import render
from judge.rules.parse import ORDER_WORDS
from judge.rules.position_json import position_from_json
from judge.store import mail_queue, write
from judge.transport.failures import report_failures

TEMPLATES = Path(__file__).parent.parent / "templates"
MASTER_PW = "gm-secret-7"
# who reads what: every mail kind reaches a Russian and a German reader
READERS = {
    "russia@p.test": "ru",
    "austria@p.test": "ru",
    "turkey@p.test": "ru",
    "germany@p.test": "de",
    "italy@p.test": "de",
    "england@p.test": "de",
    "france@p.test": "ru",
    "gm-ru@p.test": "ru",
    "gm-de@p.test": "de",
    "loop-ru@p.test": "ru",
    "loop-de@p.test": "de",
    "new-ru@p.test": "ru",
    "new-de@p.test": "de",
}
ZONES = {"ru": "Europe/Moscow", "de": "Europe/Berlin"}
# what the players write in press and diaries: their own words, in their language
SAID = {"ru": "Привет, друзья", "de": "Hallo Freunde"}


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, game: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} {game} pw-{power}", *lines])


def master(game: str, *lines: str) -> str:
    return "\n".join([f"MASTER {game} {MASTER_PW}", *lines])


def template_kinds() -> set[str]:
    return {p.name.removesuffix(".txt.j2") for p in (TEMPLATES / "en").glob("*.txt.j2")}


# --- the games --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Table, set[tuple[str, str]]]]:
    """The games, played once for the module, and each (template, language) a mail or an answer was rendered from."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _play(tmp_path_factory.mktemp("mail-words"), monkeypatch)


def _recording(seen: set[tuple[str, str]], real: Any) -> Any:
    def render(name: str, language: str, **context: Any) -> Any:
        seen.add((name, language))
        return real(name, language, **context)

    return render


def _play(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Table, set[tuple[str, str]]]:
    seen: set[tuple[str, str]] = set()
    original = render.render_mail
    recording = _recording(seen, original)
    for module in [m for name, m in sys.modules.items() if name.startswith("judge.")]:
        if getattr(module, "render_mail", None) is original:  # every module that renders mail, wherever it moves
            monkeypatch.setattr(module, "render_mail", recording)
    t = Table(folder / "judge.db")

    # h: players join by mail choosing their language in the JOIN message; the master (German) hears it is full
    assert t.cli("game", "create", "h", "--master", "gm-de@p.test", "--takeover", "approve") == 0
    assert t.cli("game", "master-password", "h", "--password", MASTER_PW) == 0
    t.reply("gm-de@p.test", master("h", "SET LANGUAGE de", "SET TIMEZONE Europe/Berlin"))
    for power in POWERS:
        language = READERS[addr(power)]
        t.reply(
            addr(power),
            f"JOIN h pw-{power} {power}\nSET LANGUAGE {language}\nSET TIMEZONE {ZONES[language]}",
        )
    # g: the seats are given on the host, to readers whose language is known from the start
    options = ["--deadline", "48h", "--grace", "6h", "--press", "both", "--abandon-after", "2", "--absence-days", "7"]
    assert t.cli("game", "create", "g", *options, "--master", "gm-ru@p.test") == 0
    assert t.cli("game", "master-password", "g", "--password", MASTER_PW) == 0
    t.reply("gm-ru@p.test", master("g", "SET LANGUAGE ru", "SET TIMEZONE Europe/Moscow"))
    for power in POWERS:
        assert t.cli("game", "join", "g", "--power", power, "--email", addr(power), "--password", f"pw-{power}") == 0
    for address in ("loop-ru@p.test", "loop-de@p.test", "new-ru@p.test", "new-de@p.test"):
        _set_reader(t, address)
    assert t.cli("game", "start", "g") == 0  # game_started
    assert t.cli("game", "start", "h") == 0
    # h: Austria (ru) and Germany (de) are eliminated; Turkey abandoned, a takeover asked and refused, one approved
    game_h = records.load_game(t.db, "h")
    assert game_h is not None
    with write(t.db):
        game_h.position = position_from_json(
            game_h.variant,
            {
                "phase": "S1901M",
                "units": {
                    "Austria": ["A vie"],
                    "Germany": ["A mun"],
                    "Russia": ["A boh", "A gal", "A tyr", "A sil"],
                    "France": ["A par"],
                    "England": ["F lon"],
                    "Italy": ["A rom"],
                    "Turkey": ["A con"],
                },
                "supply_centers": {
                    "Austria": ["vie"],
                    "Germany": ["mun"],
                    "Russia": ["mos", "war"],
                    "France": ["par"],
                    "England": ["lon"],
                    "Italy": ["rom"],
                    "Turkey": ["con"],
                },
            },
        )
        records.save_game(t.db, game_h, t.now)
    t.reply(
        addr("Russia"), sign("Russia", "h", "A gal - vie", "A boh S A gal - vie", "A tyr - mun", "A sil S A tyr - mun")
    )
    t.cli("game", "process", "h")  # Spring: dislodged
    t.cli("game", "process", "h")  # retreats: disbanded
    t.reply(addr("Russia"), sign("Russia", "h", "A vie H"))
    t.cli("game", "process", "h")  # Fall: Russia keeps Vienna and Munich; Austria and Germany are eliminated
    t.reply("gm-de@p.test", master("h", "EJECT Turkey"))  # in civil disorder
    t.reply("new-ru@p.test", "TAKEOVER h Turkey pw-new-ru")  # asked of the master
    t.reply("gm-de@p.test", master("h", "REJECT Turkey"))  # refused, to the asker
    t.reply("new-de@p.test", "TAKEOVER h Turkey pw-new-de")
    t.reply("gm-de@p.test", master("h", "APPROVE Turkey"))
    t.reply("gm-de@p.test", master("h", "SET DEADLINE +24h", "PAUSE"))  # h waits while g is played

    # replies: an unknown command, an error, an order void on arrival, information, guides, future orders
    for power in ("Russia", "Germany"):
        said = SAID[READERS[addr(power)]]
        t.reply(
            addr(power),
            sign(
                power,
                "g",
                "GOSSIP",
                "A xyz - abc",
                "Build A mos",
                "LIST g",
                "WHOGAME g",
                "SUMMARY g",
                "ORDERS",
                "GET RULES",
                "HELP",
                "GET ORDERS",
                "PHASE F1901M",
                "A mos H" if power == "Russia" else "A ber H",
                f"PRESS TO {'Germany' if power == 'Russia' else 'Russia'}",
                said,
                "ENDPRESS",
                f"PRESS TO {'Germany' if power == 'Russia' else 'Russia'} GREY",
                said,
                "ENDPRESS",
                "BROADCAST",
                said,
                "ENDPRESS",
                "POSTAL PRESS",
                said,
                "ENDPRESS",
                "DIARY",
                said,
                "ENDDIARY",
                "READY",
                "UNREADY",
            ),
        )
    t.reply(addr("France"), sign("France", "g", "PRESS TO Russia Germany", SAID["ru"], "ENDPRESS"))
    t.reply(addr("Russia"), sign("Russia", "g", "MAP"))
    t.reply(addr("Germany"), sign("Germany", "g", "MAP"))
    # another address tries the passwords: the owners are warned
    t.reply("eve@evil.test", "SIGNON Russia g wrong-one")
    t.reply("eve@evil.test", "SIGNON Germany g wrong-two")
    # a mail loop: the 31st message in an hour gets the one "replies paused" notice
    for address in ("loop-ru@p.test", "loop-de@p.test"):
        for _ in range(31):
            t.mail(address, "LIST")
    # a draw proposed, and refused
    t.reply(addr("Austria"), sign("Austria", "g", "DRAW PROPOSE"))
    t.reply(addr("England"), sign("England", "g", "DRAW REJECT"))
    # Spring 1901: France's army in Burgundy, Germany behind it
    t.reply(addr("France"), sign("France", "g", "A par - bur", "A mar - spa", "F bre - mao"))
    t.reply(addr("Germany"), sign("Germany", "g", "A mun - ruh", "A ber - mun", "F kie - hol"))
    t.reply(addr("Russia"), sign("Russia", "g", "A war - gal", "F sev - bla", "A mos - ukr", "F stp/sc - bot"))
    t.reply(addr("Austria"), sign("Austria", "g", "A vie - gal", "A bud S A war - gal"))  # a void support
    t.reply(addr("England"), sign("England", "g", "F lon - nth", "F edi - nwg", "A lvp - yor"))
    # Italy (German) and Turkey (Russian) are late
    t.later(hours=40)
    t.cli("game", "tick")  # reminders
    t.later(hours=8, seconds=1)
    t.cli("game", "tick")  # the deadline: late notices, the grace
    t.reply("gm-ru@p.test", master("g", "PAUSE"))  # announcements
    t.reply("gm-ru@p.test", master("g", "RESUME"))
    t.reply("gm-ru@p.test", master("g", "SET DEADLINE +24h"))
    t.reply("gm-ru@p.test", master("g", "PROCESS"))  # Spring results, postal press
    # Fall 1901: the French army in Burgundy is dislodged; Turkey misses its second deadline
    t.reply(addr("Germany"), sign("Germany", "g", "A ruh - bur", "A mun S A ruh - bur", "F hol H"))
    t.reply(addr("France"), sign("France", "g", "A bur H", "A spa - por", "F mao - bre"))
    t.reply(addr("Italy"), sign("Italy", "g", "RESIGN"))  # resigned, to the others
    away = t.now + timedelta(days=2)  # the day of the deadline: it moves (deadline_moved, to the others)
    t.reply(addr("England"), sign("England", "g", f"SET ABSENCE {away:%Y-%m-%d}"))
    t.reply(addr("Austria"), sign("Austria", "g", f"SET ABSENCE {away + timedelta(days=1):%Y-%m-%d}"))
    t.later(hours=80)
    t.cli("game", "tick")  # results, a retreat due; Turkey in civil disorder, the master told
    t.reply(addr("France"), sign("France", "g", "A bur - pic"))
    t.cli("game", "process", "g")  # retreats
    t.reply("new-de@p.test", "TAKEOVER g Turkey pw-new-de")  # taken over, at once
    t.reply("gm-ru@p.test", master("g", "REPLACE Italy new-ru@p.test pw-new-ru"))  # seat_change
    t.reply("gm-ru@p.test", master("g", "EJECT Russia"))
    # HISTORY of the phases played so far (a void support among them), read in Russian and in German
    t.reply(addr("Austria"), sign("Austria", "g", "HISTORY g"))
    t.reply(addr("Germany"), sign("Germany", "g", "HISTORY g"))
    # an internal error, told to the game master (a line's handler fails)
    _internal_error(t, monkeypatch, "Germany", "g")

    t.later(hours=2)
    t.reply("gm-de@p.test", master("h", "RESUME"))
    _internal_error(t, monkeypatch, "Russia", "h")
    # undeliverable mail: each game master gets the digest
    rows = t.outbox()
    with write(t.db):
        for game_name in ("g", "h"):
            game_id = records.load_game(t.db, game_name).id  # type: ignore[union-attr]
            row = next(r for r in rows if r["game_id"] == game_id and r["to_addr"] == addr("France"))
            mail_queue.mark_failed(t.db, row["id"], "550 5.1.1")
    assert report_failures(t.db, t.now) == 2
    # g ends in a draw: game over
    t.reply(addr("Austria"), sign("Austria", "g", "DRAW PROPOSE"))
    for power in POWERS:
        seat = "new-ru@p.test" if power == "Italy" else addr(power)
        if power in ("Russia", "Italy", "Austria"):
            continue
        t.reply(seat if power != "Turkey" else "new-de@p.test", _draw_vote(power, "DRAW ACCEPT"))
    t.reply("new-ru@p.test", "SIGNON Italy g pw-new-ru\nDRAW ACCEPT")
    return t, seen


def _draw_vote(power: str, vote: str) -> str:
    password = "pw-new-de" if power == "Turkey" else f"pw-{power}"
    return f"SIGNON {power} g {password}\n{vote}"


def _set_reader(t: Table, address: str) -> None:
    from judge.store.users import set_user

    language = READERS[address]
    with write(t.db):
        set_user(t.db, address, language=language, timezone=ZONES[language])


def _internal_error(t: Table, monkeypatch: pytest.MonkeyPatch, power: str, game: str) -> None:
    from judge.commands import items as c

    def broken(db: Any, s: Any, item: Any) -> Any:
        raise ZeroDivisionError

    with monkeypatch.context() as patched:
        patched.setitem(handlers.HANDLERS, c.Ready, broken)
        t.mail(addr(power), sign(power, game, "READY"))


# --- finding English --------------------------------------------------------------------------------------------------

_WORD = re.compile(r"(?<![\w/@.=-])[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß']*(?![\w/@=-])")  # not a key=value


def _template_words(folder: Path, *, prose: bool = False) -> set[str]:
    """The words of a folder's templates (their text and string literals); with ``prose``, commands and orders as a
    player types them left out (as in a mail)."""
    words: set[str] = set()
    for path in folder.glob("*.j2"):
        text = path.read_text(encoding="utf-8")
        code = " ".join(re.findall(r"\{\{.*?\}\}|\{%.*?%\}", text, flags=re.S))
        text = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}|<[^>]+>|&\w+;", " ", text, flags=re.S)
        for literal in re.finditer(r'"((?:[^"\\]|\\.)*)"', code):  # the string literals: no dict keys, no msgids
            if not code[literal.end() :].lstrip().startswith(":") and not code[: literal.start()].endswith("_("):
                text += " " + literal.group(1)
        words.update(_tokens(text) if prose else _WORD.findall(text))
    return words


def _catalog(language: str) -> list[tuple[str, str]]:
    with (LOCALE_DIR / language / "LC_MESSAGES" / "judge.po").open("rb") as f:
        catalog = read_po(f, locale=language)
    pairs = []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        pairs += [(str(i), " ".join(str(s) for s in strings)) for i in ids]
    return pairs


def _words(text: str) -> set[str]:
    return set(_WORD.findall(re.sub(r"\{\w+\}", " ", text)))


def english_vocabulary() -> set[str]:
    words = {w.lower() for w in _template_words(TEMPLATES / "en")}
    for msgid, _ in _catalog("ru"):
        words |= {w.lower() for w in _words(msgid)}
    return {w for w in words if len(w) > 1}


def own_words(language: str) -> set[str]:
    """The Latin-script words a language's catalog writes (the templates are one set, in English, whose words are in
    the catalogs too): for Russian only tokens in capitals (commands, OK, UTC, PNG) and names with capitals inside
    (OpenPGP); for German the words of its
    translations (some are English too: "in", "an", "so")."""
    if language == "ru":
        words: set[str] = set()
        for _, string in _catalog(language):
            words |= _words(string)
        # tokens in capitals, and names with capitals inside (OpenPGP, GnuPG): no translation changes them
        return {w for w in words if w.isupper() or (not w.islower() and not w.istitle())}
    words = set()
    for msgid, string in _catalog(language):
        if string != msgid:
            words |= set(_tokens(re.sub(r"\{\w+\}", " ", string)))
    locale = Locale.parse(language)  # the names of days and months Babel writes
    for names in (locale.days["format"], locale.months["format"]):
        for width in ("abbreviated", "wide"):
            words |= {w for name in names[width].values() for w in _WORD.findall(name)}
    return words


def allowed() -> set[str]:
    """Tokens no translation changes: province abbreviations and names, order notation, commands, addresses."""
    words: set[str] = set()
    for name in ("classic",):
        geo = load_variant(name).geo
        for key in geo.names:
            words.update(w.lower() for w in key)
        for prov in geo.provinces:
            words.add(prov.abbr.lower())
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", prov.name))
    words.update({"nc", "sc", "ec", "wc", "classic"})  # coasts; the variant's name
    return words


def _texts(row: dict[str, Any]) -> str:
    """What a reader reads of a mail: subject, text and HTML (tags and the reader's own quoted lines left out)."""
    text = "\n".join(line for line in row["body"].splitlines() if not line.startswith(">"))
    html = row["html"] or ""
    html = re.sub(r"<span[^>]*>&gt;[^<]*</span>", " ", html)
    if row["subject"].startswith("Re: "):  # a reply's title is the player's own subject
        html = re.sub(r"<title>.*?</title>", " ", html, flags=re.S)
    html = unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S))
    return f"{row['subject']}\n{text}\n{html}"


_SEGMENT = re.compile(r"[;()]|\s{2,}|(?<=[.:])\s")
_UNIT = re.compile(r"\b[AF] [A-Za-z]{3}")
_COMMANDS = frozenset(w for cmd in known_commands() for w in cmd.upper().split())
_POWERS = frozenset(POWERS)
_ORDER_START = {"build", "remove", "waive", "disband"}  # an order that names no unit: "Waive."
_PHASE_WORD = re.compile(r"Spring|Fall|Winter|movement|retreats|adjustments", re.I)


def _tokens(text: str) -> list[str]:
    """The words of ``text`` a translation should have changed: commands and orders as a player types them (a part
    of a line starting with a command, or holding a unit), addresses, file names and the host's commands aside."""
    text = re.sub(r"(?m)^\s*Re: .*", " ", text)  # the player's own subject, answered
    text = re.sub(r"\bjudge [a-z]+ [a-z]+.*", " ", text)  # a command the host types, e.g. judge game start g
    text = re.sub(r"\S+@\S+|cid:\S+|\[judge-mail\]|pw-[\w-]+|https?://\S+|\b\w+\.(?:png|txt)\b", " ", text)
    tokens: list[str] = []
    for line in text.splitlines():
        for segment in _SEGMENT.split(line):
            words = _WORD.findall(segment)
            if words and words[0] in _COMMANDS:
                continue  # a command as typed: SIGNON Austria g <password>, PHASE Fall 1901 retreats
            order = _UNIT.search(segment) is not None or (words and words[0].lower() in _ORDER_START)
            command = next((i for i, w in enumerate(words) if w in _COMMANDS), len(words))
            tokens += [
                w
                for i, w in enumerate(words)
                if not (order and w.lower() in ORDER_WORDS)
                and not (w.isupper() and w.lower() in ORDER_WORDS)
                and not (i > command and (w in _POWERS or _PHASE_WORD.fullmatch(w)))  # "mit SIGNON Turkey g",
                # "(oder PHASE Fall 1901 retreats)": what the command takes, as the judge reads it
            ]
    return tokens


def english_left(mails: list[dict[str, Any]], language: str) -> dict[str, str]:
    """Each English word of the judge's vocabulary found in ``mails``, with the subject of a mail it is in."""
    vocabulary = english_vocabulary()
    own = own_words(language)
    own_lower = {w.lower() for w in own if not w.isupper()} if language == "de" else set()
    free = allowed()
    found: dict[str, str] = {}
    for row in mails:
        for token in _tokens(_texts(row)):
            low = token.lower()
            if low not in vocabulary or low in free or low in own_lower or token in own:
                continue
            found.setdefault(token, _context(row, token))
    return found


def _context(row: dict[str, Any], token: str) -> str:
    """The line of the mail a word is in, to show where it comes from."""
    for line in _texts(row).splitlines():
        if re.search(rf"(?<![\w/@.-]){re.escape(token)}(?![\w/@-])", line):
            return f"{row['subject']}: {line.strip()[:150]}"
    return row["subject"]


# --- the tests --------------------------------------------------------------------------------------------------------


def _mails_in(t: Table, language: str) -> list[dict[str, Any]]:
    return [r for r in t.outbox() if READERS.get(r["to_addr"]) == language]


def test_every_mail_kind_reaches_a_russian_and_a_german_reader(played: tuple[Table, set[tuple[str, str]]]) -> None:
    _, seen = played
    kinds = [(kind, language) for kind in sorted(template_kinds()) for language in ("ru", "de")]
    missing = [f"{kind} ({language})" for kind, language in kinds if (kind, language) not in seen]
    assert missing == [], missing


@pytest.mark.parametrize("language", ["ru", "de"])
def test_no_english_word_is_left(played: tuple[Table, set[tuple[str, str]]], language: str) -> None:
    t, _ = played
    mails = _mails_in(t, language)
    assert len(mails) > 100
    left = english_left(mails, language)
    assert left == {}, json.dumps(left, ensure_ascii=False, indent=1)


def test_the_detector_finds_english(played: tuple[Table, set[tuple[str, str]]]) -> None:
    """A mail with English words of the judge's vocabulary fails the check; the reader's own language passes."""
    mail = {"subject": "Diplomacy game g: results", "body": "Russia bounced with A war", "html": None}
    assert set(english_left([mail], "ru")) >= {"game", "results", "Russia", "bounced", "with"}
    assert set(english_left([mail], "de")) >= {"game", "results", "Russia", "bounced", "with"}
    ok = {"subject": "Партия g: итоги", "body": "OK: A mos - ukr; SIGNON Russia", "html": None}
    assert english_left([ok], "ru").keys() <= {"Russia"}
    de = {"subject": "Partie g: Ergebnisse", "body": "Die Frist endet in 2 Tagen. A mun - bur", "html": None}
    assert english_left([de], "de") == {}


_RAW_TIME = re.compile(r"(?<!= )\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")


@pytest.mark.parametrize("language", ["ru", "de"])
def test_times_are_in_the_readers_zone_and_language(played: tuple[Table, set[tuple[str, str]]], language: str) -> None:
    """A moment is written as the reader's language writes it, in their zone ("чт 3 дек. 2026 15:00 MSK"); the UTC
    copy beside it ("= 2026-12-03 12:00 UTC") is the one raw time a mail may show."""
    t, _ = played
    raw = {
        line.strip()
        for row in _mails_in(t, language)
        for line in _texts(row).splitlines()
        if _RAW_TIME.search(line) and "SET DEADLINE" not in line  # the command's own syntax, in HELP
    }
    assert raw == set(), sorted(raw)


def test_numbers_and_names_take_the_readers_grammar(played: tuple[Table, set[tuple[str, str]]]) -> None:
    """Plural forms come from the catalogs (ngettext: three in Russian); a power named after a preposition is named
    with the noun ("от державы Россия"), so its name needs no case the catalog does not have."""
    t, _ = played
    ru = "\n".join(r["subject"] + "\n" + r["body"] for r in _mails_in(t, "ru"))
    de = "\n".join(r["subject"] + "\n" + r["body"] for r in _mails_in(t, "de"))
    assert "Держава Турция в партии g не присылала приказов 2 срока подряд" in ru
    assert "Турция: нет приказов 2 срока подряд" in ru  # the game master's subject
    assert "сообщение от державы Россия" in ru and "неудачные попытки входа за державу Россия" in ru
    assert "Seit " in de and "ist 1 Anmeldung als Deutschland" in de
    assert "Nachricht von Russland an Deutschland" in de
    assert "SIGNON Turkey g und Ihrem Passwort" in de  # a command keeps the name the command takes


def variant_names_left(mails: list[dict[str, Any]], language: str, variant: str) -> dict[str, str]:
    """Each English place or power name of ``variant`` (its data: provinces' and powers' names) found in ``mails``
    where the language names it otherwise, with the line it is in; commands and orders as a player types them
    aside (``_tokens``). A word the language's own names use too ("Berlin", "Paris", "England") is no sign."""
    data = load_variant(variant)
    own: set[str] = set()
    for prov in data.geo.provinces:
        own.update(w.lower() for w in _WORD.findall(dict(prov.words).get(language, "")))
    for power in data.powers:
        own.update(w.lower() for w in _WORD.findall(data.power(power).word(language)))
    english: set[str] = set()
    for name in (*(p.name for p in data.geo.provinces), *data.powers):
        english.update(w.lower() for w in _WORD.findall(name) if len(w) > 2)
    english -= own | {p.abbr for p in data.geo.provinces}  # "los" is Los Angeles's abbreviation too
    found: dict[str, str] = {}
    for row in mails:
        for token in _tokens(_texts(row)):
            if token.lower() in english and not token.isupper():
                found.setdefault(token, _context(row, token))
    return found


@pytest.mark.parametrize("language", ["ru", "de"])
def test_no_english_place_or_power_name_is_left(played: tuple[Table, set[tuple[str, str]]], language: str) -> None:
    t, _ = played
    left = variant_names_left(_mails_in(t, language), language, "classic")
    assert not left, "\n".join(f"{w}: {where}" for w, where in sorted(left.items()))

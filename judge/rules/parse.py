"""From one line of order text, as players write it by email, to a typed order or a clear error.

The parser knows the map's names but not the position: it does not check that a unit exists or may move there
(that is judge.rules.legality). It forgives case, abbreviations, full names and aliases, optional unit types,
``-``/``->``/``to``/``move``, ``S``/``supports``, ``C``/``convoys``, coasts written ``spa/nc``, ``spa(nc)``, ``spa nc``
or ``Spain north coast``, and ``via convoy``. It never guesses: what it cannot read is an ``OrderError`` — place
names alone (``Paris``, ``Paris Burgundy``) included, since a unit without its type needs its verb. Text is
normalised first (``normalise``): compatibility forms, invisible characters, Unicode dashes and arrows.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from judge.rules.geography import Geography, UnitKind, name_words
from judge.rules.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive
from judge.rules.phase import Step
from judge.rules.words import Reason


@dataclass(frozen=True)
class OrderError:
    """A line that is not an order: what is wrong, and where it helps, what would be valid."""

    text: str
    reason: str


_KIND_WORDS = {"a": UnitKind.ARMY, "army": UnitKind.ARMY, "f": UnitKind.FLEET, "fleet": UnitKind.FLEET}
_KEYWORDS = {
    "-": "move",
    "to": "move",
    "move": "move",
    "moves": "move",
    "m": "move",
    "into": "move",
    "attacks": "move",
    "attack": "move",
    "h": "hold",
    "hold": "hold",
    "holds": "hold",
    "stand": "hold",
    "stands": "hold",
    "s": "support",
    "sup": "support",
    "supp": "support",
    "support": "support",
    "supports": "support",
    "c": "convoy",
    "convoy": "convoy",
    "convoys": "convoy",
    "transports": "convoy",
    "via": "via",
    "by": "via",
    "vc": "via",
    "vias": "via",
    "r": "retreat",
    "retreat": "retreat",
    "retreats": "retreat",
    "d": "disband",
    "disband": "disband",
    "disbands": "disband",
    "remove": "disband",
    "removes": "disband",
    "destroy": "disband",
    "b": "build",
    "build": "build",
    "builds": "build",
    "waive": "waive",
    "waives": "waive",
    "waived": "waive",
    "pass": "waive",
}
_COAST_WORDS = {
    "nc": "nc",
    "sc": "sc",
    "ec": "ec",
    "wc": "wc",
    "north": "nc",
    "south": "sc",
    "east": "ec",
    "west": "wc",
    "n": "nc",
    "s": "sc",
    "e": "ec",
    "w": "wc",
}
_FILLER = {"the", "of", "and", "army's", "fleet's", "unit", "in", "at", "from"}

# The order words of the other languages the judge speaks (docs/orders.md, "Orders in Russian and German"), written as
# the parser compares them: lower case, "ё" as "е", German umlauts and "ß" as "ae", "oe", "ue", "ss". A fourth
# language adds its words here; its place and power names come with the variants ([names.<language>]).
_LOCAL_KINDS = {
    "ru": {"а": "a", "арм": "a", "армия": "a", "армию": "a", "ф": "f", "фл": "f", "флот": "f"},
    "de": {"armee": "a", "flotte": "f"},
}
_LOCAL_KEYWORDS = {
    "ru": {
        "идет": "move",
        "идти": "move",
        "ход": "move",
        "атакует": "move",
        "атака": "move",
        "стоит": "hold",
        "стоять": "hold",
        "держит": "hold",
        "удерживает": "hold",
        "удержание": "hold",
        "п": "support",
        "под": "support",
        "подд": "support",
        "поддерживает": "support",
        "поддержка": "support",
        "поддержать": "support",
        "к": "convoy",
        "конв": "convoy",
        "конвой": "convoy",
        "конвоирует": "convoy",
        "конвоировать": "convoy",
        "перевозит": "convoy",
        "через": "via",
        "конвоем": "via",
        "отступает": "retreat",
        "отступить": "retreat",
        "отступление": "retreat",
        "отход": "retreat",
        "распустить": "disband",
        "роспуск": "disband",
        "расформировать": "disband",
        "распускается": "disband",
        "убрать": "disband",
        "построить": "build",
        "строит": "build",
        "строить": "build",
        "постройка": "build",
        "пропуск": "waive",
        "пропустить": "waive",
        "отказ": "waive",
    },
    "de": {
        "nach": "move",
        "zieht": "move",
        "greift": "move",
        "haelt": "hold",
        "halten": "hold",
        "steht": "hold",
        "bleibt": "hold",
        "u": "support",
        "unt": "support",
        "unterstuetzt": "support",
        "unterstuetzen": "support",
        "unterstuetzung": "support",
        "k": "convoy",
        "konvoi": "convoy",
        "konvoiert": "convoy",
        "konvoieren": "convoy",
        "transportiert": "convoy",
        "befoerdert": "convoy",
        "per": "via",
        "ueber": "via",
        "rueckzug": "retreat",
        "zurueck": "retreat",
        "aufloesen": "disband",
        "aufloesung": "disband",
        "loest": "disband",
        "entfernen": "disband",
        "entfernt": "disband",
        "baue": "build",
        "baut": "build",
        "bauen": "build",
        "bau": "build",
        "verzicht": "waive",
        "verzichtet": "waive",
        "verzichten": "waive",
    },
}
_LOCAL_FILLER = {
    "ru": {"в", "во", "на", "из", "и", "юнит", "отряд", "берег", "побережье"},
    "de": {"der", "die", "das", "den", "dem", "in", "im", "von", "aus", "und", "einheit", "sich", "an", "kueste"},
}
_COAST_NOUNS = frozenset({"coast", "берег", "побережье", "kueste"})  # "Spain north coast", "Испания северный берег"
_KIND_WORDS.update({w: _KIND_WORDS[k] for words in _LOCAL_KINDS.values() for w, k in words.items()})
_KEYWORDS.update({w: k for words in _LOCAL_KEYWORDS.values() for w, k in words.items()})
_FILLER.update(w for words in _LOCAL_FILLER.values() for w in words)
# every word an order line may start with or contain besides places: a line starting with another word that is no
# place either is not an order (the mail side calls it an unknown command)
ORDER_WORDS = frozenset({*_KIND_WORDS, *_KEYWORDS, *_COAST_WORDS, *_FILLER, "remove", "retreat"})

# Cyrillic letters that look like Latin ones, and back: "А mos - stp" typed with a Cyrillic "А" is "A mos - stp",
# and "Мoсква" with a Latin "o" is "Москва".
_CYRILLIC_TO_LATIN = str.maketrans("авекмнорстухіјѕ", "abekmhopctyxijs")
_LATIN_TO_CYRILLIC = str.maketrans("abekmhopctyx", "авекмнорстух")
_FOLD = str.maketrans({"ё": "е", "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})

# ASCII-only case folding: under full Unicode folding "ſ" (U+017F) matches "s" and "K" (U+212A) matches "k".
_COAST_PAREN = re.compile(
    r"\s*(?:/\s*|[(\[]\s*)(north|south|east|west|n|s|e|w)\.?\s*(?:c\b\.?|coast\b)?(?![a-z])(?:\s*[)\]])?", re.I | re.A
)
_ARROW = re.compile(r"(->|=>|→|–|—|>)")
# Dashes, minus signs and arrows players paste from word processors and web pages: all mean "moves to".
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d\u2e3a\u2e3b"
_ARROWS = (
    "\u2190\u2192\u21a6\u21d2\u21e8\u21fe\u2794\u2799\u279b\u279c\u279d\u279e\u279f\u27a0\u27a1\u27a4"
    "\u27f6\u27f9\u27fe\u2b62\u2b95\u25b6\u25ba\u2192\u00bb\u2023"
)
_TO_HYPHEN = str.maketrans({ch: "-" for ch in _DASHES} | {ch: " - " for ch in _ARROWS})


def normalise(text: str) -> str:
    """Order text as the parser compares it: compatibility forms folded (NFKC: "ſ" is "s", "ﬁ" is "fi", NBSP is a
    space), invisible format characters (zero-width space, soft hyphen, BOM, direction marks) removed, Unicode
    dashes and minus signs made "-", arrows made " - "."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return text.translate(_TO_HYPHEN)


@dataclass(frozen=True)
class _Place:
    loc: int  # province location, or a coast location when one was named


def parse_order(line: str, geo: Geography, step: Step) -> Order | OrderError:
    """Parse one order line written for a phase of kind ``step``."""
    text = line.strip()
    if not text:
        return OrderError(line, "empty line")
    symbols = _symbols(normalise(text), geo)
    if isinstance(symbols, OrderError):
        return symbols
    if step is Step.ADJUSTMENT:
        return _adjustment(text, symbols)
    if step is Step.RETREAT:
        return _retreat(text, symbols)
    return _movement(text, symbols)


# --- tokens -------------------------------------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    text = _ARROW.sub(" - ", text)
    text = _COAST_PAREN.sub(lambda m: "/" + _COAST_WORDS.get(m.group(1).lower(), m.group(1)), text)
    text = re.sub(r"[,;:!?()\[\]]", " ", text)
    text = text.replace("-", " - ").lower()
    if not text.isascii():
        text = text.translate(_FOLD)
    return [t for t in text.split() if t not in (".",)]


def _known(tok: str, geo: Geography) -> bool:
    """Whether a token is an order word, or a place name or the start of one."""
    if tok in _KEYWORDS or tok in _KIND_WORDS or tok in _FILLER:
        return True
    key = _words(tok.partition("/")[0])
    return key in geo.names or key in geo.name_prefixes


def _lookalike(tok: str, geo: Geography) -> str:
    """A token with letters of the other alphabet that look the same, read in the alphabet that makes it a word:
    a Cyrillic "А" or "Н" as the Latin unit letter or keyword, a Latin "o" in "Мoсква" as the Cyrillic one."""
    if tok.isascii() or _known(tok, geo):
        return tok
    for table in (_CYRILLIC_TO_LATIN, _LATIN_TO_CYRILLIC):
        other = tok.translate(table)
        if other != tok and _known(other, geo):
            return other
    return tok


def _symbols(text: str, geo: Geography) -> list[object] | OrderError:
    """Tokens turned into UnitKind, _Place or keyword strings."""
    toks = [_lookalike(t, geo) for t in _tokens(text)]
    out: list[object] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        word = tok in _KEYWORDS or tok in _KIND_WORDS
        # an order word is a place only when it starts a longer place name
        place = None if word and (tok,) not in geo.name_prefixes else _match_place(toks, i, geo)
        if place is not None and not (word and place[1] == i + 1):
            loc, i = place
            loc, i, err = _coast_after(toks, i, loc, geo, text)
            if err:
                return err
            out.append(_Place(loc))
            continue
        if tok in _KIND_WORDS:
            out.append(_KIND_WORDS[tok])
        elif tok in _KEYWORDS:
            out.append(_KEYWORDS[tok])
        elif tok in _FILLER or tok.strip(".") == "":
            pass
        else:
            return OrderError(text, _unknown_place(tok.rstrip("."), geo))
        i += 1
    # "via convoy" / "by convoy": the keyword "convoy" after "via" is part of the via.
    cleaned: list[object] = []
    for sym in out:
        if sym == "convoy" and cleaned and cleaned[-1] == "via":
            continue
        if sym == "move" and cleaned and cleaned[-1] == "move":  # "zieht nach": one move
            continue
        cleaned.append(sym)
    return cleaned


@lru_cache(maxsize=4096)
def _words(token: str) -> tuple[str, ...]:
    return name_words(token)


def _match_place(toks: list[str], i: int, geo: Geography) -> tuple[int, int] | None:
    """Longest place name starting at toks[i] (hyphen tokens may sit between its words)."""
    best: tuple[int, int] | None = None
    key: tuple[str, ...] = ()
    names, prefixes = geo.names, geo.name_prefixes
    j = i
    while j < len(toks):
        tok = toks[j]
        if tok == "-":
            if not key:
                return None
            j += 1
            continue
        base, slash, coast = tok.partition("/")
        key += _words(base)
        prov = names.get(key)
        if prov is not None:
            if slash:
                cloc = geo.by_loc_name.get(f"{geo.provinces[prov].abbr}/{_coast_code(coast, geo) or coast}")
                return (cloc, j + 1) if cloc is not None else (-1 - prov, j + 1)
            best = (prov, j + 1)
        if slash or key not in prefixes:
            break
        j += 1
    return best


def _coast_after(toks: list[str], i: int, loc: int, geo: Geography, text: str) -> tuple[int, int, OrderError | None]:
    """A coast written after the province: ``spa nc``, ``spain north coast``; also reports unknown coasts."""
    if loc < 0:
        prov = geo.provinces[-1 - loc]
        if not prov.coasts:
            return loc, i, OrderError(text, Reason("{where} has no such coast; it is not split", where=prov.named))
        return (
            loc,
            i,
            OrderError(
                text,
                Reason(
                    "{where} has no such coast; its coasts are {coasts}",
                    where=prov.named,
                    coasts=", ".join(prov.abbr + "/" + c for c in prov.coasts),
                ),
            ),
        )
    prov = geo.provinces[geo.loc_province[loc]]
    if not prov.coasts or loc != prov.id or i >= len(toks):
        return loc, i, None
    word = toks[i]
    coast = _coast_code(word, geo)
    noun = i + 1 < len(toks) and toks[i + 1] in _COAST_NOUNS
    if coast is None or (word in ("s", "n", "e", "w") and not noun):
        return loc, i, None
    # "Spain north" is a coast only when nothing else could follow
    if not noun and i + 1 < len(toks) and _match_place(toks, i, geo):
        return loc, i, None
    consumed = i + 1 + (1 if noun else 0)
    cloc = geo.by_loc_name.get(f"{prov.abbr}/{coast}")
    if cloc is None:
        return (
            loc,
            i,
            OrderError(
                text,
                Reason(
                    "{where} has no {coast} coast; its coasts are {coasts}",
                    where=prov.named,
                    coast=coast,
                    coasts=", ".join(prov.abbr + "/" + c for c in prov.coasts),
                ),
            ),
        )
    return cloc, consumed, None


def _coast_code(word: str, geo: Geography) -> str | None:
    """``nc`` for "nc", "north", "сб", "северный", "nordkueste"; None for a word that names no coast."""
    return _COAST_WORDS.get(word) or geo.coast_words.get(word)


def _unknown_place(tok: str, geo: Geography) -> str:
    # the names and abbreviations of every language, never an alias: an alias may be a misspelling ("burgandy")
    near = difflib.get_close_matches(tok, geo.real_names, n=3, cutoff=0.75)
    if near:
        return Reason(
            "{word} is not a province or a word of an order; did you mean {near}?",
            word=repr(tok),
            near=tuple(repr(n) for n in near),
        )
    return Reason("{word} is not a province or a word of an order", word=repr(tok))


# --- grammar ------------------------------------------------------------------------------------------------------


def _unit(symbols: list[object], i: int) -> tuple[UnitKind | None, _Place | None, int]:
    kind: UnitKind | None = None
    sym = symbols[i] if i < len(symbols) else None
    if isinstance(sym, UnitKind):
        kind = sym
        i += 1
        sym = symbols[i] if i < len(symbols) else None
    if isinstance(sym, _Place):
        return kind, sym, i + 1
    return kind, None, i


def _places_after(symbols: list[object], i: int) -> list[_Place]:
    return [s for s in symbols[i:] if isinstance(s, _Place)]


def _movement(text: str, sym: list[object]) -> Order | OrderError:
    if sym and sym[0] in ("retreat", "disband", "build", "waive"):
        if sym[0] in ("build", "waive"):
            return OrderError(
                text, Reason("a {verb} order belongs in an adjustment phase, not in movement", verb=str(sym[0]).upper())
            )
        return OrderError(
            text,
            Reason(
                "a {verb} order belongs in a retreat or adjustment phase, not in movement", verb=str(sym[0]).upper()
            ),
        )
    kind, place, i = _unit(sym, 0)
    if place is None:
        return OrderError(text, "an order starts with the unit, e.g. 'A Paris - Burgundy' or 'F nth S A lon - bel'")
    rest = sym[i:]
    if kind is None and not rest:  # "Paris" alone (a signature, a greeting) is not an order
        return OrderError(text, "a place name alone is not an order; to hold, write it like 'A Paris H'")
    if kind is None and isinstance(rest[0], _Place):  # "Paris Burgundy": names, not an order
        return OrderError(
            text, "place names alone are not an order; write the unit and the move, like 'A Paris - Burgundy'"
        )
    if not rest or rest == ["hold"]:
        return Hold(kind, place.loc)
    verb = rest[0]
    if verb == "move" or isinstance(verb, _Place):
        return _move(text, kind, place, rest)
    if verb == "support":
        return _support(text, kind, place, rest)
    if verb == "convoy":
        return _convoy(text, kind, place, rest)
    if verb in ("retreat", "disband", "build", "waive"):
        return OrderError(
            text,
            Reason(
                "a {verb} order belongs in a retreat phase, not in movement"
                if verb in ("retreat", "disband")
                else "a {verb} order belongs in an adjustment phase, not in movement",
                verb=str(verb).upper(),
            ),
        )
    return OrderError(
        text,
        "could not read this order; write it like 'A Paris - Burgundy', 'A Paris H', "
        "'A mun S A ber - kie' or 'F nth C A lon - nwy'",
    )


def _move(text: str, kind: UnitKind | None, place: _Place, rest: list[object]) -> Order | OrderError:
    path = _places_after(rest, 0)
    via = "via" in rest or "convoy" in rest
    if not path:
        return OrderError(text, "a move needs a destination, e.g. 'A Paris - Burgundy'")
    if any(s not in ("move", "via", "convoy") and not isinstance(s, _Place) for s in rest):
        return OrderError(text, "could not read this move; write it like 'A Paris - Burgundy'")
    # a path through seas ("A lon - nth - nwy") is a move by convoy to the last place
    return Move(kind, place.loc, path[-1].loc, via or len(path) > 1)


def _support(text: str, kind: UnitKind | None, place: _Place, rest: list[object]) -> Order | OrderError:
    _, target, j = _unit(rest, 1)  # the supported unit's type is not checked: the position knows it
    if target is None:
        return OrderError(text, "a support names the supported unit, e.g. 'A mun S A ber - kie' or 'F kie S A ber'")
    tail = rest[j:]
    if not tail or tail == ["hold"]:
        return SupportHold(kind, place.loc, target.loc)
    if tail[0] == "move" and len(tail) == 2 and isinstance(tail[1], _Place):
        return SupportMove(kind, place.loc, target.loc, tail[1].loc)
    if isinstance(tail[0], _Place) and len(tail) == 1:
        return SupportMove(kind, place.loc, target.loc, tail[0].loc)
    return OrderError(text, "could not read this support; write it like 'A mun S A ber - kie' or 'F kie S A ber'")


def _convoy(text: str, kind: UnitKind | None, place: _Place, rest: list[object]) -> Order | OrderError:
    akind, army, j = _unit(rest, 1)
    tail = [s for s in rest[j:] if s != "move"]
    if army is None or len(tail) != 1 or not isinstance(tail[0], _Place):
        return OrderError(text, "a convoy names the army and where it goes, e.g. 'F nth C A lon - nwy'")
    if akind is UnitKind.FLEET:
        return OrderError(text, "only armies can be convoyed")
    return Convoy(kind, place.loc, army.loc, tail[0].loc)


def _retreat(text: str, sym: list[object]) -> Order | OrderError:
    lead_disband = bool(sym) and sym[0] == "disband"
    kind, place, i = _unit(sym, 1 if lead_disband else 0)
    if place is None:
        return OrderError(text, "a retreat order starts with the unit, e.g. 'A mun - boh' or 'A mun disband'")
    rest = sym[i:]
    if (lead_disband and not rest) or rest == ["disband"]:
        return Disband(kind, place.loc)
    if rest[:2] == ["retreat", "move"]:  # "A Moskau Rückzug nach Livland"
        rest = rest[1:]
    if rest and rest[0] in ("retreat", "move") and len(rest) == 2 and isinstance(rest[1], _Place):
        return Retreat(kind, place.loc, rest[1].loc)
    if len(rest) == 1 and isinstance(rest[0], _Place) and kind is not None:
        return Retreat(kind, place.loc, rest[0].loc)
    return OrderError(
        text, "in a retreat phase a dislodged unit retreats ('A mun - boh') or disbands ('A mun disband')"
    )


def _adjustment(text: str, sym: list[object]) -> Order | OrderError:
    if "waive" in sym:
        return Waive()
    if sym and sym[0] == "build":
        kind, place, i = _unit(sym, 1)
        if place is None or i != len(sym):
            return OrderError(
                text, "a build names the unit type and the centre, e.g. 'Build A Paris' or 'Build F stp/nc'"
            )
        if kind is None:
            return OrderError(text, "say what to build: 'Build A …' (army) or 'Build F …' (fleet)")
        return Build(kind, place.loc)
    if sym and sym[0] == "disband":
        kind, place, i = _unit(sym, 1)
        if place is not None and i == len(sym):
            return Disband(kind, place.loc)
    else:
        kind, place, i = _unit(sym, 0)
        if place is not None and sym[i:] == ["disband"]:
            return Disband(kind, place.loc)
        if place is not None and kind is not None and sym[i:] == ["build"]:
            return Build(kind, place.loc)
    return OrderError(
        text, "in an adjustment phase write 'Build A Paris', 'Build F stp/nc', 'Remove A Paris' or 'Waive'"
    )

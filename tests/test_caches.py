"""The judge's in-process caches stay bounded in a process that runs for months (issue 27).

Every cache the judge keeps from one message or phase to the next is listed in ``CACHES`` with its verdict, found by
looking at the modules (tests/cachekit.py: every functools cache, every container a module holds), so a new cache
fails ``test_every_cache_is_known`` until it is listed here:

- ``FIXED``: keyed by data that does not grow with games, phases, senders or messages (variants, languages, font
  sizes, the labels and legend words of a map, templates): the same play again under new names adds nothing to it;
- ``LRU``: keyed by what grows (boards by their stored text, verified sign-ons, order words, layouts), with the
  bound given (its ``maxsize``, or the bound the module keeps by hand): it never holds more;
- ``TABLE``: a constant table (grammar words, settings, spellings): it never changes.

``test_caches_bounded_in_play`` plays games by mail in process — orders, press, READY, a wrong password, strangers'
HELP and LIST, map pictures in three languages, deadlines — then the very same play again under other game names,
senders and passwords: a FIXED cache that grows in the second half is keyed by something that grows (as the letters
of each map's title were, which name its game and phase), and an LRU cache must stay within its bound.
"""

from __future__ import annotations

import random
from pathlib import Path

import cachekit
from gamekit import POWERS, START, Table, raw_mail
from mailservers import PASSWORD, folder_uids, start_imap

from judge.cli.demo import choose_orders
from judge.config import ImapConfig
from judge.game import passwords, records, service
from judge.store import open_db
from judge.transport.imap import Inbox, handle_new_mail

FIXED, LRU, TABLE = "fixed", "lru", "table"
LANGUAGES = ["en", "de", "ru"]

CACHES: dict[str, tuple[str, int | None]] = {
    # functools caches
    "judge.cli._parser": (FIXED, None),  # the one argument parser
    "judge.commands.handlers._shipped_map": (FIXED, None),  # by shipped variant name
    "judge.data.catalog._load": (FIXED, None),  # by variant name or file and the data folders
    "judge.data.catalog._shape_of": (FIXED, None),  # by variant file and its mtime: more only as a host edits one
    "judge.i18n.outcome_openings": (FIXED, None),  # no argument
    "judge.mail.message._parsed_field": (LRU, 512),  # a header field as a sender wrote it (at most 512 characters)
    "judge.i18n._catalog": (FIXED, None),  # by language (en, de, ru)
    "judge.i18n._contexts": (FIXED, None),
    "judge.i18n._plurals": (FIXED, None),
    "judge.i18n._read": (FIXED, None),
    "judge.i18n.gaps._module_ids": (LRU, 1024),  # the translators' tool: by source file
    "judge.i18n.gaps._template_file_ids": (LRU, 1024),
    "judge.reports.maps.areas._glyphs": (FIXED, 2048),  # a map's labels and legend words; never its title
    "judge.reports.maps.areas._mix": (FIXED, 4096),  # by colour
    "judge.reports.maps.areas._levels": (FIXED, 2048),
    "judge.reports.maps.areas._solid": (FIXED, 512),
    "judge.reports.maps.draw._fit": (FIXED, 1024),
    "judge.reports.maps.fonts._font": (FIXED, None),  # by font size
    "judge.reports.maps.fonts._glyph": (FIXED, 4096),  # by size and character
    "judge.reports.maps.fonts._missing_glyph": (FIXED, None),
    "judge.reports.maps.fonts.drawable": (FIXED, 4096),
    "judge.reports.maps.geometry._load": (FIXED, 32),  # by variant
    "judge.reports.maps.layout._label_size": (FIXED, 4096),  # by label
    "judge.reports.render._env_for": (FIXED, 4),  # by template folders
    "judge.web.pages._env": (FIXED, 1),  # the archive's one template folder
    "judge.rules.parse._words": (LRU, 4096),  # by a word of an order as a player typed it
    "judge.timeutil._zone_cities": (FIXED, None),
    "judge.timeutil._zone_names": (FIXED, None),
    # containers kept by hand
    "judge.game.passwords._verified": (LRU, passwords._CACHE_SIZE),  # sign-ons verified, by HMAC
    "judge.game.records._POSITIONS": (LRU, 256),  # boards by their stored text
    "judge.reports.maps.draw._LEGENDS": (LRU, 32),  # a picture's legend, by its title and counts
    "judge.reports.maps.areas._BASES": (FIXED, 16),  # a map's base layer, by variant
    "judge.reports.maps.layout._PLACES": (LRU, 1024),  # label places by layout and location
    "judge.game.ports._installed": (FIXED, 1),  # the wiring
    "judge.data.resources._HOST": (FIXED, 2),  # the host's data folders
}
TABLES = {
    "judge.cli.demo.LANGUAGES",
    "judge.cli.demo_orders.ORDER_WORDS",
    "judge.exports.mila.RESULTS",  # the judge's outcomes to MILA's result codes
    "judge.commands.arguments.SHADES",
    "judge.commands.body._ARMOUR",
    "judge.commands.grammar.MASTER_COMMANDS",
    "judge.commands.grammar.SHADES",
    "judge.commands.grammar._BARE",
    "judge.commands.grammar._DRAW_ACTIONS",
    "judge.commands.grammar._GAME_ONLY_USAGE",
    "judge.commands.grammar._SEASON_WORDS",
    "judge.commands.grammar._STEP_WORDS",
    "judge.commands.grammar._WITH_ARGUMENTS",
    "judge.commands.handlers.HANDLERS",
    "judge.commands.handlers.INFO_HANDLERS",
    "judge.commands.handlers.MASTER_HANDLERS",
    "judge.commands.handlers._LANGUAGE_NAMES",
    "judge.commands.info_commands.HANDLERS",
    "judge.commands.info_commands._COSTLY_PER_MESSAGE",
    "judge.commands.master_commands.HANDLERS",
    "judge.commands.master_grammar.MASTER_COMMANDS",
    "judge.commands.master_grammar.MASTER_SETTINGS",
    "judge.commands.sandbox_reply._HEADER_VALUES",  # the words of a text SANDBOX header line
    "judge.commands.set_grammar.MASTER_SETTINGS",
    "judge.commands.set_grammar.SHADES",
    "judge.commands.set_grammar._SETTINGS",
    "judge.config.EXAMPLE_VALUES",
    "judge.config.SECRETS",
    "judge.config.SECTIONS",
    "judge.game.duties.NOTHING_OWED",
    "judge.i18n._ZONE_WORDS",
    "judge.rules.geography._BARE",
    "judge.rules.geography._FOLD",
    "judge.rules.parse._CYRILLIC_TO_LATIN",
    "judge.rules.parse._FOLD",
    "judge.rules.parse._LATIN_TO_CYRILLIC",
    "judge.rules.parse._LOCAL_FILLER",
    "judge.rules.parse._LOCAL_KEYWORDS",
    "judge.rules.parse._LOCAL_KINDS",
    "judge.facts._CATALOGS",
    "judge.web.pages.AUTONYMS",
    "judge.game.future_orders._SEASON_ORDER",
    "judge.game.future_orders._STEP_ORDER",
    "judge.game.notices._PRESS_RULES",
    "judge.game.setting_changes.SETTING_KEYS",
    "judge.game.setting_changes._OPTION_ALIASES",
    "judge.game.setting_changes._SETTERS",
    "judge.game.settings._DEADLINES",
    "judge.game.settings._STORED_AS",
    "judge.i18n._OUTCOMES",
    "judge.i18n._SEASONS",
    "judge.i18n._STEPS",
    "judge.i18n.gaps.REASON_MODULES",
    "judge.mail.part_text._WIDER_CHARSET",
    "judge.reports.map_words.LEGEND",
    "judge.reports.maps.fonts.WORDS",
    "judge.reports.maps.fonts._SPELLED",
    "judge.reports.maps.layout._MARKER_EDGE",
    "judge.reports.maps.layout._MARKER_SPOTS",
    "judge.reports.maps.style.WORDS",
    "judge.reports.maps.style._SPELLED",
    "judge.rules.parse._COAST_WORDS",
    "judge.rules.parse._FILLER",
    "judge.rules.parse._KEYWORDS",
    "judge.rules.parse._KIND_WORDS",
    "judge.rules.parse._TO_HYPHEN",
    "judge.rules.variant._PROVINCE_TYPES",
    "judge.store.schema.KNOWN",  # the migrations' names, filled as the module is read
    "judge.store.schema._DRAW_STATUS_RANK",
    "judge.store.upkeep._GROWING",
    "judge.store.versions.KNOWN",
    "judge.timeutil._ABBREVIATIONS",
    "judge.timeutil._OFFSET_CITIES",
    "judge.timeutil._UNIT_MINUTES",
    "judge.timeutil._UNIT_SPELLINGS",
}


def test_every_cache_is_known() -> None:
    """Every functools cache and module-level container of the judge is listed with its verdict; an unbounded
    functools cache (``functools.cache``) only where its keys do not grow; every bound listed is the real one."""
    found = cachekit.bounds()
    containers = set(cachekit.module_containers())
    unknown = sorted((set(found) | containers) - set(CACHES) - TABLES)
    assert not unknown, f"caches not listed in tests/test_caches.py (give each a verdict and a bound): {unknown}"
    gone = sorted((set(CACHES) | TABLES) - set(found) - containers)
    assert not gone, f"listed in tests/test_caches.py and no longer in the judge: {gone}"
    for name, maxsize in found.items():
        verdict, bound = CACHES[name]
        assert maxsize == bound, f"{name}: maxsize {maxsize}, listed as {bound}"
        assert maxsize is not None or verdict == FIXED, f"{name} grows with what it is keyed by: give it a bound"


def _play(t: Table, name: str, tag: str, phases: int) -> None:
    """A classic game ``name`` played by mail for ``phases`` phases: the same orders, press and mistakes for every
    ``name`` (the random choices seeded alike), from senders, passwords and strangers of its own (``tag``)."""
    rng = random.Random(7)
    assert t.cli("game", "create", name) == 0
    for power in POWERS:
        email, password = f"{power.lower()}.{tag}@p.test", f"pw-{power}-{tag}"
        assert t.cli("game", "join", name, "--power", power, "--email", email, "--password", password) == 0
    assert t.cli("game", "start", name) == 0
    for i, power in enumerate(POWERS):
        t.mail(
            f"{power.lower()}.{tag}@p.test", f"SIGNON {power} {name} pw-{power}-{tag}\nSET LANGUAGE {LANGUAGES[i % 3]}"
        )
    for phase in range(phases):
        game = records.load_game(t.db, name)
        assert game is not None and game.position is not None
        for power in POWERS:
            signon = f"SIGNON {power} {name} pw-{power}-{tag}"
            sender = f"{power.lower()}.{tag}@p.test"
            lines = choose_orders(game.variant, game.position, power, rng)
            t.mail(sender, "\n".join([signon, *lines]))
            if power in ("France", "Russia"):
                t.mail(sender, f"{signon}\nPRESS TO Germany\nshall we talk of Sweden\nENDPRESS\nREADY")
        t.mail(f"france.{tag}@p.test", f"SIGNON France {name} wrong-{tag}-{phase}\nA par H")
        t.mail(f"stranger.{tag}.{phase}@elsewhere.test", "HELP\nLIST")
        t.mail(f"other.{tag}.{phase}@elsewhere.test", f"WHOGAME {name}\nSUMMARY {name}")
        t.later(days=3)
        service.tick(t.db, t.now)


def test_caches_bounded_in_play(tmp_path: Path) -> None:
    """The same play twice under new names: no FIXED cache grows the second time; none exceeds its bound."""
    _play(Table(tmp_path / "first.db"), "play12", "a", 4)  # a database each: the first game stops at its phase
    after_first = cachekit.sizes()
    _play(Table(tmp_path / "second.db"), "play21", "b", 4)
    after_second = cachekit.sizes()
    grew = {
        name: (after_first.get(name, 0), size)
        for name, size in after_second.items()
        if name in CACHES and CACHES[name][0] == FIXED and size > after_first.get(name, 0)
    }
    assert not grew, f"keyed by something that grows with games, phases or senders (before, after): {grew}"
    over = {n: s for n, s in after_second.items() if n in CACHES and CACHES[n][1] is not None and s > CACHES[n][1]}
    assert not over, f"over their bound: {over}"
    changed = {n for n in TABLES if after_second[n] != after_first[n]}
    assert not changed, f"constant tables that changed: {changed}"


def test_imap_connection_keeps_no_responses(tmp_path: Path) -> None:
    """The daemon's IMAP connection lives for weeks: the responses the server sends on its own (EXPUNGE and COPYUID
    for each message moved, EXISTS and RECENT as mail arrives) are not kept once a round has read its mail."""
    server = start_imap("pymap", tmp_path / "imap")
    try:
        cfg = ImapConfig(host="127.0.0.1", port=server.port, security="none", username="judge", password=PASSWORD)
        db = open_db(tmp_path / "judge.db")
        inbox = Inbox(cfg)
        inbox.open()
        poster = server.client("judge")
        kept = []
        for round_ in range(3):
            for n in range(20):
                poster.append("INBOX", raw_mail(f"p{n}@players.test", "HELP"))
            handled = 0
            for _ in range(5):  # pymap may show mail appended meanwhile to the next command only
                handled += handle_new_mail(db, inbox, lambda: START, "judge@judge.test", 10000)
                if handled == 20:
                    break
            assert handled == 20
            assert inbox.client is not None
            kept.append(sum(len(v) for v in inbox.client._imap.untagged_responses.values()))
            assert len(folder_uids(server, "Processed")) == 20 * (round_ + 1)
        poster.logout()
        inbox.drop()
    finally:
        server.stop()
    assert kept == [0, 0, 0], kept  # before: [31, 53, 75] (an EXPUNGE a message moved, COPYUID, EXISTS, ...)

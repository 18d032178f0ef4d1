"""The game master by mail (MASTER, CREATE, SET DEADLINE, PROCESS, PAUSE, RESUME, EJECT, REPLACE, TERMINATE) and civil
disorder with TAKEOVER (open, or approved by the game master): games driven by mail on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamekit import POWERS, Table
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.commands.body import parse_body
from judge.commands.items import LineProblem
from judge.game.records import set_create_by_mail_policy
from judge.store import write

GM = "gm@p.test"
MASTER_PW = "gm-secret-7"


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def master(*lines: str, game: str = "g", password: str = MASTER_PW) -> str:
    return "\n".join([f"MASTER {game} {password}", *lines])


def last_id(t: Table) -> int:
    rows = t.outbox()
    return rows[-1]["id"] if rows else 0


def since(t: Table, mark: int) -> list[dict]:
    return [m for m in t.outbox() if m["id"] > mark]


def everything_written(t: Table) -> str:
    """Every mail queued and every event logged, as one text (to look for a password in)."""
    mails = json.dumps([[m["subject"], m["body"], m["html"]] for m in t.outbox()])
    events = json.dumps([dict(r) for r in t.db.query("select * from events")])
    return mails + events


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", GM, reuse=True)
    assert table.cli("game", "master-password", "g", "--password", MASTER_PW) == 0
    return table


# --- CREATE by mail -------------------------------------------------------------------------------------------------


def test_create_by_mail_makes_the_sender_its_master(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    reply = t.reply("boss@p.test", "CREATE club pw-master-1 deadline=24h press=grey anonymous --resolve=orders-in")
    assert "created club (Classic)" in reply and "JOIN club" in reply
    assert "pw-master-1" not in reply and "CREATE club ****" in reply
    shown = t.show("club", capsys)
    assert shown["status"] == "forming"
    assert shown["settings"]["master"] == "boss@p.test"
    assert shown["settings"]["movement_deadline"] == "1d" and shown["settings"]["press"] == "grey"
    assert shown["settings"]["anonymous"] is True and shown["settings"]["resolve"] == "orders-in"
    # the same checks as judge game create: a solo at or below half needs a tie rule; nothing is created
    bad = t.reply("boss@p.test", "CREATE other pw-master-1 solo=17")
    assert "ERROR" in bad and "tie rule" in bad
    assert t.cli("game", "show", "other") == 1
    assert "unknown option" in t.reply("boss@p.test", "CREATE other pw-master-1 colour=blue")
    assert "names a variant" in t.reply("boss@p.test", "CREATE other pw-master-1 variant=/etc/passwd")
    assert "already exists" in t.reply("x@p.test", "CREATE club pw-master-2")
    assert "not an option" in t.reply("boss@p.test", "CREATE other pw-master-1 deadline:24h")
    # the creator signs on as its master later, and players join by mail as usual
    for power in POWERS:
        assert "joined club" in t.reply(addr(power), f"JOIN club pw-{power} {power}")
    assert "signed on as the game master of club" in t.reply("boss@p.test", master(game="club", password="pw-master-1"))
    assert "pw-master-1" not in everything_written(t)


def test_who_may_create_by_mail_is_the_hosts_choice(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    with write(t.db):
        set_create_by_mail_policy(t.db, "nobody")
    assert "does not take new games by mail" in t.reply("a@p.test", "CREATE one pw-abcdef")
    with write(t.db):
        set_create_by_mail_policy(t.db, "gm@club.test, @friends.test")
    assert "does not take new games" in t.reply("a@p.test", "CREATE one pw-abcdef")
    assert "created one" in t.reply("gm@club.test", "CREATE one pw-abcdef")
    assert "created two" in t.reply("bob@friends.test", "CREATE two pw-abcdef")


# --- signing on as the game master ----------------------------------------------------------------------------------


def test_master_commands_need_the_master_sign_on(t: Table, capsys) -> None:
    for line in ("PROCESS", "PAUSE", "SET DEADLINE +24h", "EJECT France", "TERMINATE ABANDONED"):
        assert "sign on as the game master first" in t.reply(GM, line)
    assert "sign on as the game master first" in t.reply(addr("France"), sign("France", "PROCESS"))
    assert t.show("g", capsys)["phase"] == "S1901M"
    wrong = t.reply("eve@evil.test", master(password="guess-1"))
    assert "sign-on failed" in wrong and "guess-1" not in wrong and "MASTER g ****" in wrong
    assert "sign-on failed" in t.reply(GM, "MASTER nosuch whatever1")


def test_failed_master_sign_ons_are_counted_and_held_back(t: Table) -> None:
    for n in range(3):
        assert "sign-on failed" in t.reply("eve@evil.test", master(password=f"guess-{n}"))
    held = t.reply("eve@evil.test", master())  # even the right password is not checked now
    assert "too many failed sign-ons as the game master of g" in held
    assert "signed on as the game master" in t.reply(GM, master())  # the master's own address is never held back
    failures = list(t.db.query("select * from signon_failures where power = '(master)'"))
    assert len(failures) == 3 and all(f["address"] == "eve@evil.test" for f in failures)
    assert "guess-" not in everything_written(t)


def test_only_one_password_check_per_message(t: Table) -> None:
    reply = t.reply(GM, master() + "\n" + f"MASTER g {MASTER_PW}")
    assert "only one sign-on is checked per message" in reply


# --- the controls, with the same mail to the players as the command line ---------------------------------------------


def test_set_deadline_pause_resume_and_process_by_mail(t: Table, capsys) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    mark = last_id(t)
    reply = t.reply(GM, master("SET DEADLINE +24h"))
    assert "the deadline of g is now Fri 4 Dec 2026 12:00 UTC" in reply  # in the master's zone (UTC here)
    told = {m["to_addr"] for m in since(t, mark) if "deadline extended" in m["subject"]}
    assert told == {addr(p) for p in POWERS if p != "France"}  # those who still owe orders, as judge game extend
    assert t.reply(GM, master("SET DEADLINE -12h")).count("Fri 4 Dec 2026 00:00 UTC") == 1
    assert "Sat 5 Dec 2026 18:00 UTC" in t.reply(GM, master("SET DEADLINE 2026-12-05 18:00"))
    assert "has passed" in t.reply(GM, master("SET DEADLINE 2026-11-30 18:00"))  # the CLI's rule: not in the past
    assert t.show("g", capsys)["deadline"] == "2026-12-05T18:00:00Z"
    mark = last_id(t)
    assert "g is paused" in t.reply(GM, master("PAUSE"))
    assert {m["to_addr"] for m in since(t, mark) if "paused" in m["subject"]} >= {addr(p) for p in POWERS}
    assert "game g is paused already" in t.reply(GM, master("PAUSE"))  # nothing changed: an answer, not an error
    assert "g is running again" in t.reply(GM, master("RESUME"))
    reply = t.reply(GM, master("PROCESS"))
    assert "g: S1901M is adjudicated" in reply
    shown = t.show("g", capsys)
    assert shown["phase"] == "F1901M" and "A bur" in shown["units"]["France"]


def test_a_master_in_another_zone_sets_the_deadline_in_their_own_time(t: Table, capsys) -> None:
    t.reply(GM, master())  # the master's own settings (zone) are kept per address, as a player's
    t.db.execute("insert into users (email, timezone, language) values (?, ?, ?)", [GM, "Europe/Berlin", "en"])
    t.db.conn.commit()
    t.reply(GM, master("SET DEADLINE 2026-12-05 18:00"))
    assert t.show("g", capsys)["deadline"] == "2026-12-05T17:00:00Z"
    for far in ("0001-01-01 00:00", "9999-12-31 23:59"):  # refused with a reason, never an internal error
        reply = t.reply(GM, master(f"SET DEADLINE {far}"))
        assert "ERROR" in reply and "internal" not in reply
    assert t.show("g", capsys)["deadline"] == "2026-12-05T17:00:00Z"


def test_eject_replace_and_terminate_by_mail(t: Table, capsys) -> None:
    mark = last_id(t)
    assert "Italy in g has no player now" in t.reply(GM, master("EJECT Italy"))
    assert sorted(m["to_addr"] for m in since(t, mark)) == [GM, addr("Italy")]  # the reply, the ejected player
    reply = t.reply(GM, master("REPLACE Italy it2@p.test pw-it2-new"))
    assert "Italy in g is now played by it2@p.test" in reply and "pw-it2-new" not in reply
    assert "REPLACE Italy it2@p.test ****" in reply
    assert "signed on as Italy" in t.reply("it2@p.test", "SIGNON Italy g pw-it2-new")
    assert "pw-it2-new" not in everything_written(t)
    assert "a draw needs at least two powers" in t.reply(GM, master("TERMINATE DRAW England"))
    mark = last_id(t)
    assert "g is over" in t.reply(GM, master("TERMINATE DRAW England France Russia"))
    shown = t.show("g", capsys)
    assert shown["result"] == {"kind": "draw", "powers": ["England", "France", "Russia"], "by": "master"}
    over = [m for m in since(t, mark) if "is over" in m["subject"]]
    assert len(over) == 8  # seven players and the master, as judge game end
    assert "is finished" in t.reply(GM, master("PROCESS"))


# --- civil disorder and TAKEOVER ------------------------------------------------------------------------------------

HOLDS = {
    "Austria": "A vie H",
    "England": "F lon H",
    "France": "A par H",
    "Germany": "A ber H",
    "Italy": "A rom H",
    "Russia": "A mos H",
    "Turkey": "A con H",
}


def _orders_from_all_but(t: Table, late: str) -> None:
    for power in POWERS:
        if power != late:
            t.reply(addr(power), sign(power, HOLDS[power]))


def _miss(t: Table, late: str, times: int) -> None:
    for _ in range(times):
        _orders_from_all_but(t, late)
        t.later(hours=49)
        t.cli("game", "tick")


def test_a_power_that_misses_abandon_after_deadlines_is_in_civil_disorder(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--master", GM, "--abandon-after", "2", reuse=True)
    _miss(t, "Turkey", 1)
    assert not t.show("g", capsys)["players"][-1]["resigned"]
    mark = last_id(t)
    _miss(t, "Turkey", 1)
    turkey = next(p for p in t.show("g", capsys)["players"] if p["power"] == "Turkey")
    assert turkey["resigned"]  # in civil disorder: not waited for, units hold
    told = [m for m in since(t, mark) if "Turkey is in civil disorder" in m["subject"]]
    assert sorted(m["to_addr"] for m in told) == sorted([*(addr(p) for p in POWERS), GM])
    assert "TAKEOVER g Turkey <password>" in told[0]["body"]
    assert "no longer gives orders" in t.reply(addr("Turkey"), sign("Turkey", "A con H"))
    events = [json.loads(r["detail"]) for r in t.db.query("select detail from events where kind = 'abandoned'")]
    assert events == [{"power": "Turkey", "missed": 2}]
    # with everyone else READY the phase resolves: Turkey is not waited for
    before = t.show("g", capsys)["phase"]
    for power in POWERS[:-1]:
        t.reply(addr(power), sign(power, "READY"))
    assert t.show("g", capsys)["phase"] != before


def test_abandon_after_zero_never_abandons(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)  # the default: 0
    _miss(t, "Turkey", 3)
    assert not any(p["resigned"] for p in t.show("g", capsys)["players"])


def test_takeover_in_an_open_game_is_at_once(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--master", GM, "--abandon-after", "1", reuse=True)
    assert "is not in civil disorder" in t.reply("new@p.test", "TAKEOVER g Turkey pw-new-tr")
    _miss(t, "Turkey", 1)
    mark = last_id(t)
    reply = t.reply("new@p.test", "TAKEOVER g Turkey pw-new-tr")
    assert "you play Turkey in g now" in reply and "pw-new-tr" not in reply and "TAKEOVER g Turkey ****" in reply
    sent = since(t, mark)
    start = next(m for m in sent if m["to_addr"] == "new@p.test" and "you have taken over Turkey" in m["subject"])
    assert "SIGNON Turkey g <your password>" in start["body"] and "Fall 1901" in start["body"]
    assert "The powers and their units:" in start["body"] and "A con" in start["body"]
    others = {m["to_addr"] for m in sent if "Turkey has a new player" in m["subject"]}
    assert others == {*(addr(p) for p in POWERS if p != "Turkey"), GM}
    assert "signed on as Turkey" in t.reply("new@p.test", "SIGNON Turkey g pw-new-tr")
    assert "sign-on failed" in t.reply(addr("Turkey"), sign("Turkey"))
    turkey = next(p for p in t.show("g", capsys)["players"] if p["power"] == "Turkey")
    assert turkey["email"] == "new@p.test" and not turkey["resigned"]
    assert "is not in civil disorder" in t.reply("late@p.test", "TAKEOVER g Turkey pw-late-1")
    summary = t.reply("late@p.test", "SUMMARY g")
    assert "Turkey fell into civil disorder (no orders) on 2026-12-03" in summary
    assert "Turkey was taken over by a new player on" in summary
    assert "pw-new-tr" not in everything_written(t)
    # a power resigned by its player may be taken over too; one address holds one power unless the game allows more
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    assert "already plays a power in g" in t.reply(addr("France"), "TAKEOVER g Italy pw-fr-2")
    assert "you play Italy" in t.reply("it2@p.test", "TAKEOVER g Italy pw-it-2")


def test_takeover_waits_for_the_masters_approval_where_the_game_says_so(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--master", GM, "--abandon-after", "1", "--takeover", "approve", reuse=True)
    assert t.cli("game", "master-password", "g", "--password", MASTER_PW) == 0
    _miss(t, "Turkey", 1)
    mark = last_id(t)
    reply = t.reply("new@p.test", "TAKEOVER g Turkey pw-new-tr")
    assert "the game master decides" in reply
    asked = [m for m in since(t, mark) if m["to_addr"] == GM]
    assert len(asked) == 1 and "asks to take over Turkey" in asked[0]["subject"]
    assert "new@p.test" in asked[0]["body"] and "APPROVE Turkey" in asked[0]["body"]
    assert "already asked" in t.reply("other@p.test", "TAKEOVER g Turkey pw-other-1")
    turkey = next(p for p in t.show("g", capsys)["players"] if p["power"] == "Turkey")
    assert turkey["resigned"] and t.show("g", capsys)["takeovers"][0]["email"] == "new@p.test"
    assert "sign on as the game master first" in t.reply("new@p.test", "APPROVE Turkey")
    mark = last_id(t)
    reply = t.reply(GM, master("APPROVE Turkey"))
    assert "Turkey in g is now played by new@p.test" in reply
    assert any("you have taken over Turkey" in m["subject"] for m in since(t, mark) if m["to_addr"] == "new@p.test")
    assert "signed on as Turkey" in t.reply("new@p.test", "SIGNON Turkey g pw-new-tr")  # the password they chose
    assert t.show("g", capsys)["takeovers"] == []
    assert "nobody waits to take over Turkey" in t.reply(GM, master("REJECT Turkey"))
    assert "pw-new-tr" not in everything_written(t)


def test_the_master_rejects_a_takeover_by_command_line(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--master", GM, "--abandon-after", "1", "--takeover", "approve", reuse=True)
    _miss(t, "Turkey", 1)
    t.reply("new@p.test", "TAKEOVER g Turkey pw-new-tr")
    mark = last_id(t)
    assert t.cli("game", "reject", "g", "Turkey") == 0
    told = since(t, mark)
    assert [m["to_addr"] for m in told] == ["new@p.test"] and "not approved" in told[0]["subject"]
    assert t.cli("game", "approve", "g", "Turkey") == 1  # nothing waits now
    assert "you asked to take over Turkey" in t.reply("again@p.test", "TAKEOVER g Turkey pw-again-1")
    assert t.cli("game", "approve", "g", "Turkey") == 0
    assert "signed on as Turkey" in t.reply("again@p.test", "SIGNON Turkey g pw-again-1")


def test_takeover_settings_are_checked(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    capsys.readouterr()
    assert t.cli("game", "create", "g", "--takeover", "approve") == 1  # nobody to approve
    assert "needs a game master" in capsys.readouterr().err
    assert t.cli("game", "create", "g", "--abandon-after", "100") == 1
    t.seven("h", "--master", GM, reuse=True)
    assert t.cli("game", "settings", "h", "takeover", "approve") == 0
    assert t.show("h", capsys)["settings"]["abandon_after"] == 0  # never, unless the game says so
    assert t.cli("game", "settings", "h", "abandon_after", "3") == 0
    settings_now = t.show("h", capsys)["settings"]
    assert settings_now["takeover"] == "approve" and settings_now["abandon_after"] == 3


# --- refusals in the reader's language ------------------------------------------------------------------------------

BOSS, NEWCOMER = "boss@p.test", "new@p.test"

# (who writes, what, and the sentences of the refusals: English, Russian, German)
REFUSALS = [
    (  # the game master's commands refused: their state, a power the variant lacks, deadlines out of range
        GM,
        master("RESUME", "EJECT Atlantis", "SET DEADLINE +90d", "SET DEADLINE 2027-06-01 00:00"),
        {
            "en": [
                "game g is running already",
                "Classic has no power 'Atlantis'; it has Austria, England, France, Germany, Italy, Russia, Turkey",
                "'90d' is too long; a deadline may be at most 60 days away",
                "ERROR: a deadline may be at most 60 days away",
            ],
            "ru": [
                "партия g уже идёт",
                "в варианте Классика нет державы 'Atlantis'; есть Австрия, Англия, Франция, Германия, Италия, Россия, "
                "Турция",
                "'90d' — слишком долго; срок может быть не дальше чем через 60 дн.",
                "ОШИБКА: срок может быть не дальше чем через 60 дн.",
            ],
            "de": [
                "die Partie g läuft bereits",
                "Klassik hat keine Macht 'Atlantis'; es gibt Österreich, England, Frankreich, Deutschland, Italien, "
                "Russland, Türkei",
                "'90d' ist zu lang; eine Frist darf höchstens 60 Tage entfernt sein",
                "FEHLER: eine Frist darf höchstens 60 Tage entfernt sein",
            ],
        },
    ),
    (
        GM,
        master("SET DEADLINE 2000-01-01 00:00"),
        {
            "en": ["2000-01-01T00:00:00Z has passed; to adjudicate now send PROCESS (by mail)"],
            "ru": ["2000-01-01T00:00:00Z уже прошло; чтобы рассчитать фазу сейчас, пришлите PROCESS (по почте)"],
            "de": ["2000-01-01T00:00:00Z ist schon vorbei; zum sofortigen Auswerten senden Sie PROCESS (per Mail)"],
        },
    ),
    (  # CREATE with a point value that is not a number
        BOSS,
        "CREATE other pw-master-1 points=par:x",
        {
            "en": ["points: par = 'x': a value is a whole number, 0 or more (at most 999999)"],
            "ru": ["points: par = 'x': значение — целое число, 0 или больше (не больше 999999)"],
            "de": ["points: par = 'x': ein Wert ist eine ganze Zahl, 0 oder mehr (höchstens 999999)"],
        },
    ),
    (  # CREATE with two problems at once: a place the variant lacks, and a solo at or below half of the points
        BOSS,
        "CREATE other pw-master-1 points=atl:3,par:2 solo=17",
        {
            "en": [
                "points: 'atl' is not a province of Classic; did you mean 'wal'?; solo 17 is at or below half of "
                "the 35 points, so two powers can reach it together: give a tie rule"
            ],
            "ru": [
                "points: 'atl' — не провинция варианта Classic; может быть, 'wal'?; solo 17 — не больше половины "
                "всех очков (их 35), так что две державы могут достичь его одновременно: задайте правило для равенства"
            ],
            "de": [
                "points: 'atl' ist keine Provinz von Classic; meinten Sie 'wal'?; solo 17 ist höchstens die Hälfte "
                "der 35 Punkte, also können zwei Mächte es gleichzeitig erreichen: geben Sie eine Regel für den "
                "Gleichstand an"
            ],
        },
    ),
    (  # CREATE with a solo at or below half of the centres and no tie rule
        BOSS,
        "CREATE other pw-master-1 solo=17",
        {
            "en": [
                "solo 17 is at or below half of the 34 centres, so two powers can reach it together: give a tie rule "
                "(tie_break: an order of powers, or tie_others: play-on or draw)"
            ],
            "ru": [
                "solo 17 — не больше половины всех центров снабжения (их 34), так что две державы могут достичь его "
                "одновременно: задайте правило для равенства (tie_break — порядок держав, или tie_others — play-on "
                "или draw)"
            ],
            "de": [
                "solo 17 ist höchstens die Hälfte der 34 Versorgungszentren, also können zwei Mächte es gleichzeitig "
                "erreichen: geben Sie eine Regel für den Gleichstand an (tie_break: eine Reihenfolge der Mächte, oder "
                "tie_others: play-on oder draw)"
            ],
        },
    ),
    (
        BOSS,
        "CREATE g pw-master-1",
        {
            "en": ["a game called 'g' already exists"],
            "ru": ["партия с именем 'g' уже есть"],
            "de": ["eine Partie namens 'g' gibt es schon"],
        },
    ),
    (  # TAKEOVER of a power that is played
        NEWCOMER,
        "TAKEOVER g France pw-new-1",
        {
            "en": ["France is not in civil disorder in g"],
            "ru": ["держава Франция в партии g не в анархии"],
            "de": ["Frankreich ist in der Partie g nicht in Anarchie"],
        },
    ),
]


@pytest.mark.parametrize("language", ["en", "ru", "de"])
def test_refusals_reach_the_reader_in_their_language(t: Table, language: str, capsys) -> None:
    """Each refusal is worded in the language its reader chose, and none of its English is left in the reply."""
    from judge.game.records import set_user

    with write(t.db):
        for address in (GM, BOSS, NEWCOMER):
            set_user(t.db, address, language=language, timezone="UTC")
    for sender, body, sentences in REFUSALS:
        reply = t.reply(sender, body)
        for sentence in sentences[language]:
            assert sentence in reply, (sentence, reply)
        if language != "en":
            assert "ERROR" not in reply, reply
            for english in sentences["en"]:
                assert english not in reply, (english, reply)
    assert t.cli("game", "show", "other") == 1  # nothing was created, nor changed
    shown = t.show("g", capsys)
    assert shown["status"] == "active" and shown["phase"] == "S1901M"


# --- reading the lines ----------------------------------------------------------------------------------------------

# words as a player types them (letters, digits, punctuation, symbols; invisible characters are dropped by the reader)
_WORD = st.text(alphabet=st.characters(whitelist_categories=("L", "N", "P", "S")), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    command=st.sampled_from(["MASTER", "CREATE", "TAKEOVER", "REPLACE"]),
    words=st.lists(_WORD, min_size=0, max_size=5),
)
def test_master_lines_never_raise_nor_show_the_password(command: str, words: list[str]) -> None:
    secret = "Zq9secretZq9"
    position = {"MASTER": 1, "CREATE": 1, "TAKEOVER": 2, "REPLACE": 2}[command]
    line_words = [*words[:position], secret, *words[position:]] if len(words) >= position else [*words, secret]
    parsed = parse_body(" ".join([command, *line_words]))
    for problem in parsed.problems:
        assert isinstance(problem, LineProblem)
        assert secret not in problem.text


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORD, min_size=0, max_size=4))
def test_set_deadline_and_decisions_never_raise(words: list[str]) -> None:
    for head in ("SET DEADLINE", "APPROVE", "REJECT", "TERMINATE", "EJECT", "PROCESS"):
        parse_body(" ".join([head, *words]))


def test_create_reads_its_options_as_written() -> None:
    parsed = parse_body("CREATE club secret variant=classic --deadline=24h anonymous shared-addresses")
    (item,) = parsed.items
    assert item.options == (  # type: ignore[union-attr]
        ("variant", "classic"),
        ("deadline", "24h"),
        ("anonymous", None),
        ("shared-addresses", None),
    )


def test_the_hosts_create_by_mail_setting_is_checked() -> None:
    import copy

    from test_config import GOOD

    from judge.config import ConfigError, config_from_data

    data = copy.deepcopy(GOOD)
    assert config_from_data(data, {}, "").create_by_mail == "anyone"
    data["judge"]["create_by_mail"] = "gm@club.test, @friends.test"
    assert config_from_data(data, {}, "").create_by_mail == "gm@club.test, @friends.test"
    data["judge"]["create_by_mail"] = "sometimes"
    with pytest.raises(ConfigError, match="create_by_mail"):
        config_from_data(data, {}, "")

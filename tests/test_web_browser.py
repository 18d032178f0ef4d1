"""The public archive in a real browser (issue 25): headless Chromium (Debian's package, /usr/bin/chromium, installed
by .ci/run) driven by Playwright against a static server on 127.0.0.1 serving the archive's folder. The page renders
with no console error, every image loads, ←/→ change the phase shown, a phone (375 px) has no horizontal scroll, the
page reads without JavaScript, and a screenshot of a finished game is kept in tests/artefacts/ (git-ignored)."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

from judge.web.archive import build_all

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTEFACTS = Path(__file__).parent / "artefacts"
# Chromium as the machine's closed network wants it: no sandbox (root in a container), no background connections
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (.ci/run installs it)"),
]


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A finished game of two years (a bounce, a move, press) in an archive served on 127.0.0.1; its address."""
    folder = tmp_path_factory.mktemp("web")
    t = Table(folder / "judge.db")
    t.seven("g", "--deadline", "48h", "--press", "both", reuse=True)
    t.reply("france@p.test", sign("France", "A par - bur", "F bre - mao", "BROADCAST", "Bonjour à tous", "ENDPRESS"))
    t.reply("germany@p.test", sign("Germany", "A mun - bur"))
    for _ in range(4):
        t.later(hours=49)
        assert t.cli("game", "process", "g") == 0
    assert t.cli("game", "end", "g", "--draw", "France", "Germany", "Russia") == 0
    build_all(t.db, folder / "site")
    handler = functools.partial(_Quiet, directory=str(folder / "site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium; Playwright gives each launch a fresh temporary profile (--user-data-dir)."""
    from playwright.sync_api import sync_playwright  # the test extra's

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser: Any, url: str, **options: Any) -> tuple[Any, Any, list[str]]:
    """A new page at ``url`` in a context of its own, and the console errors and uncaught exceptions it logs."""
    context = browser.new_context(**options)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    page.on("response", lambda r: errors.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    page.goto(url, wait_until="load")
    return context, page, errors


def shown(page: Any) -> str:
    """The phase on show: its article's id, or the ids of every article shown."""
    return str(
        page.evaluate(
            "Array.from(document.querySelectorAll('article.phase'))"
            ".filter(a => a.offsetParent !== null).map(a => a.id).join(' ')"
        )
    )


def image_loaded(page: Any) -> bool:
    return bool(
        page.evaluate(
            "(() => { const a = Array.from(document.querySelectorAll('article.phase'))"
            ".filter(a => a.offsetParent !== null)[0]; const i = a.querySelector('img');"
            " return i.complete && i.naturalWidth > 0; })()"
        )
    )


def test_the_arrow_keys_step_through_the_phases_and_every_picture_loads(browser: Any, site: str) -> None:
    context, page, errors = open_page(browser, f"{site}/g/index.html", viewport={"width": 1280, "height": 900})
    try:
        phases = page.eval_on_selector_all("article.phase", "a => a.map(x => x.id)")
        assert len(phases) >= 4 and phases[0] == "S1901M"
        assert shown(page) == phases[-1]  # the last phase first
        page.wait_for_function("document.querySelector('article.phase.on img').complete")
        assert image_loaded(page)
        for back in reversed(phases[:-1]):  # ← through every phase: each board in place, its picture loaded
            page.keyboard.press("ArrowLeft")
            assert shown(page) == back
            page.wait_for_function("document.querySelector('article.phase.on img').complete")
            assert image_loaded(page), back
        page.keyboard.press("ArrowLeft")  # the first phase stays
        assert shown(page) == phases[0]
        page.keyboard.press("ArrowRight")
        assert shown(page) == phases[1] and page.evaluate("location.hash") == f"#{phases[1]}"
        assert page.inner_text("#now") == page.inner_text(f"#{phases[1]} h2")
        assert page.get_attribute(f".phases a[href='#{phases[1]}']", "aria-current") == "step"
        assert all(page.eval_on_selector_all("img", "a => a.map(i => i.alt.length > 10)"))  # text alternatives
        assert page.get_attribute("svg", "role") == "img"
        ARTEFACTS.mkdir(exist_ok=True)
        page.keyboard.press("End")
        assert shown(page) == phases[-1]
        page.screenshot(path=str(ARTEFACTS / "web-finished-game.png"), full_page=True)
        assert (ARTEFACTS / "web-finished-game.png").stat().st_size > 10_000
        assert errors == []
    finally:
        context.close()


def test_a_phone_has_no_horizontal_scroll_and_every_language_renders(browser: Any, site: str) -> None:
    for path in ("g/index.html", "g/index.ru.html", "g/index.de.html", "index.html", "index.ru.html"):
        context, page, errors = open_page(
            browser, f"{site}/{path}", viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True
        )
        try:
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 375, (path, wide)
            assert errors == [], path
            if path.startswith("g/"):
                ARTEFACTS.mkdir(exist_ok=True)
                page.wait_for_function("document.querySelector('article.phase.on img').complete")
                assert image_loaded(page)
                board = "document.querySelector('article.phase.on img').getBoundingClientRect().width"
                assert page.evaluate(board) <= 375
                page.screenshot(path=str(ARTEFACTS / f"web-phone-{path.replace('/', '-')}.png"))
        finally:
            context.close()


def test_without_javascript_every_phase_reads_one_below_the_other(browser: Any, site: str) -> None:
    context, page, errors = open_page(browser, f"{site}/g/index.html", java_script_enabled=False)
    try:
        phases = page.eval_on_selector_all("article.phase", "a => a.map(x => x.id)")
        assert shown(page) == " ".join(phases)
        assert page.is_hidden("#step")  # the stepping buttons need the script
        assert "Bonjour à tous" in page.inner_text("body")
        page.click("a[href='#S1901M']")  # the phase list still leads to each phase
        assert page.evaluate("location.hash") == "#S1901M"
        assert errors == []
    finally:
        context.close()

"""The memory page in a real browser (headless Chromium driven by Selenium): a person opens the
link /web gave them, presses Continue, settles a conflict, sees the lists change, edits, deletes
and undoes, searches, opens a history and the timeline, uploads a backup. The screenshots the
README shows (docs/screenshots/) are taken here, at phone and desktop width.

Skipped with the reason when Chromium is missing, a failure under CI=true (tests/conftest.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import make_settings, require_chromium
from tests.support.web_kit import Person, WebKit, start_kit, stop_kit

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
MINIAPP_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[WebKit]:
    require_chromium()
    from bot.storage.db import Database

    url = f"sqlite:///{tmp_path / 'page.db'}"
    db = Database(url)
    # a bot token only for the Mini App's signature: the kit runs no Telegram adapter
    started = await start_kit(make_settings(database_url=url), db, telegram_bot_token=MINIAPP_TOKEN)
    try:
        yield started
    finally:
        await stop_kit(started)
        db.dispose()


@pytest.fixture
async def browser(site: WebKit) -> AsyncIterator[object]:
    from tests.support.browser import Browser

    b = Browser(site.url)
    try:
        yield b
    finally:
        b.close()


async def a_life(site: WebKit) -> Person:
    """Someone who has told the assistant a few things over time, and just moved."""
    maya = await site.person("5001", name="maya")
    for fact in ("I work as a nurse at St Mary's since 2018", "My sister Lena lives in Hamburg",
                 "I drive a red Fiat Pnada", "I'm allergic to penicillin", "My favourite tea is sencha",
                 "I live in London since 2016"):
        await site.say(maya, f"remember: {fact}")
    await site.say(maya, "remember: I moved to Paris in May 2025")
    return maya


async def log_in(site: WebKit, browser, person: Person) -> None:  # noqa: ANN001
    [out] = await site.say(person, "/web")
    link = next(word for word in out.text.split() if "/login/" in word)
    await browser.open(urlsplit(link).path)  # the link's own path on this test's port
    assert "Press Continue to open it" in await browser.text()
    await browser.button("Continue")


async def test_a_person_reviews_and_settles_their_memory_in_a_browser(site: WebKit, browser, tmp_path: Path) -> None:  # noqa: ANN001
    maya = await a_life(site)
    from tests.support.browser import DESKTOP, PHONE

    await browser.size(*PHONE)
    await log_in(site, browser, maya)
    assert browser.path == "/"

    block = await browser.text(".conflicts")
    assert "Possible conflicts (1)" in block
    assert "I moved to Paris in May 2025" in block and "I live in London since 2016" in block
    assert "Mark older as past (recommended)" in block
    assert "“I moved to Paris in May 2025” is current; “I live in London since 2016” was true before" in block
    await browser.screenshot(SHOTS / "memory-page-phone.png")
    await browser.size(*DESKTOP)
    await browser.screenshot(SHOTS / "memory-page-desktop.png")
    # for a keyboard and a screen reader: Tab first reaches "Skip to content"; every field has a label
    await browser.tab()
    assert await browser.script("return document.activeElement.textContent") == "Skip to content"
    unlabelled = await browser.script(
        "return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.name)")
    assert unlabelled == []
    assert await browser.script("return document.querySelectorAll('h1').length") == 1

    # settle it: Paris is current, London moves to the past
    await browser.button("Mark older as past", ".conflicts")
    assert "Settled." in await browser.text("#notice")
    assert await browser.script("return document.activeElement && document.activeElement.id") == "notice"  # page.js ran
    current = await browser.texts(".memory .text")
    assert "I moved to Paris in May 2025" in current and "I live in London since 2016" not in current
    assert not await browser.all(".conflicts")
    await browser.click('.filters a[href^="/?show=historical"]')
    assert await browser.texts(".memory .text") == ["I live in London since 2016"]
    assert await browser.text(".memory .meta") == "Past from January 2016 · typed with remember:"

    # fix a typo in place
    await browser.click('.filters a[href^="/?show=current"]')
    uid = await browser.memory_id("Fiat")
    await browser.click(f"#m-{uid} summary", navigates=False)
    await browser.type(f"#e-{uid}", "I drive a red Fiat Panda")
    await browser.button("Save correction", f"#m-{uid}")
    assert "Corrected." in await browser.text("#notice")
    assert "I drive a red Fiat Panda" in await browser.texts(".memory .text")

    # delete, then take it back with Undo
    await browser.button("Delete", f"#m-{uid}")
    assert "Deleted." in await browser.text("#notice")
    assert "I drive a red Fiat Panda" not in await browser.texts(".memory .text")
    await browser.button("Undo", "#notice")
    assert "Restored as current." in await browser.text("#notice")
    assert "I drive a red Fiat Panda" in await browser.texts(".memory .text")

    # search, the same words the chat finds
    await browser.submit("#q", "penicillin")
    assert await browser.texts(".memory .text") == ["I'm allergic to penicillin"]

    # the history of what moved: Current / Previously (the filters keep the search until Clear)
    assert await browser.find('.filters a[href="/?show=all&q=penicillin"]')
    await browser.click('.search a[href="/?show=current"]')
    await browser.click('.filters a[href="/?show=all"]')
    puid = await browser.memory_id("Paris")
    await browser.click(f"#m-{puid} a.button")
    chain = await browser.text(".chain")
    assert "Current: I moved to Paris in May 2025" in chain and "Previously: I live in London since 2016" in chain

    # the timeline: where she lived, her work, her car
    await browser.click('nav a[href="/timeline"]')
    svg = await browser.find("svg.timeline")
    assert await browser.run(lambda: svg.is_displayed())
    listed = await browser.text(".timeline-list")
    assert "Where you live" in listed and "I live in London since 2016" in listed and "I moved to Paris in May 2025" in listed
    await browser.screenshot(SHOTS / "timeline-desktop.png")

    # a backup from elsewhere, uploaded
    backup = tmp_path / "backup.json"
    other = await site.person("5002")
    await site.say(other, "remember: My locker code is 4711")
    backup.write_text(json.dumps(await site.app.memory.export(other.owner_id)))
    await browser.click('nav a[href="/backup"]')
    await browser.type("#backup", str(backup), clear=False)
    await browser.button("Import")
    assert "Backup imported" in await browser.text("h1")
    await browser.open("/?q=locker")
    assert await browser.texts(".memory .text") == ["My locker code is 4711"]

    assert await browser.problems() == []  # no script error, no Content-Security-Policy violation

    # the chat sees what the page did
    [listing] = await site.say(maya, "/memories")
    assert "I drive a red Fiat Panda" in listing.text and "Fiat Pnada" not in listing.text


async def test_the_mini_app_signs_in_with_telegrams_data_in_the_address(site: WebKit, browser) -> None:  # noqa: ANN001
    import time
    from urllib.parse import quote, urlencode

    from tests.support.browser import PHONE
    from web.miniapp import sign

    await browser.size(*PHONE)
    ona = await site.person("6001")
    await site.say(ona, "remember: My bike is a green Brompton")
    fields = {"auth_date": str(int(time.time())), "user": json.dumps({"id": 6001, "first_name": "Ona"})}
    data = urlencode(fields | {"hash": sign(fields, MINIAPP_TOKEN)})
    # what Telegram opens: the Mini App's address with its data in the fragment
    await browser.open(f"/app#tgWebAppData={quote(data, safe='')}&tgWebAppVersion=8.0&tgWebAppPlatform=android")
    await browser.wait_for_path("/")  # page.js posted the data; the server checked it and let her in
    assert "My bike is a green Brompton" in await browser.texts(".memory .text")

    # the same page without Telegram's data says where to open it, and logs nobody in
    browser.driver.delete_all_cookies()
    await browser.open("/app")
    assert "open this page from the assistant's menu button in Telegram" in (await browser.text("#miniapp-status"))
    assert await browser.problems() == []

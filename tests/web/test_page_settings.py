"""The memory page's settings screen over plain forms, on SQLite and PostgreSQL: settings and the
time zone through the chat's verbs (the chat's /settings reads what the page set), reminders
listed, snoozed and cancelled, linked accounts, API tokens made and revoked, and forget
everything only after the typed words."""

from __future__ import annotations

import html
import re

from tests.support.page_kit import csrf_of, logged_in
from tests.support.web_kit import WebKit, kit  # noqa: F401


async def test_settings_and_time_zone_change_as_in_the_chat(kit: WebKit) -> None:  # noqa: F811
    ada = await kit.person("4001")
    browser = await logged_in(kit, ada)
    page = (await browser.get("/settings")).text
    assert re.search(r'name="conflict_review" checked', page) and 'name="recheck" >' in page
    csrf = await csrf_of(browser, "/settings")
    r = await browser.post("/settings", data={"csrf": csrf, "conflict_review": "on", "recheck": "on",
                                              "extraction_notice": "on", "timezone": "Lisbon"})
    assert r.status_code == 303 and r.headers["location"] == "/settings?notice=settings"
    page = (await browser.get(r.headers["location"])).text
    assert "Settings saved." in page and 'value="Europe/Lisbon"' in page
    [chat] = await kit.say(ada, "/settings")
    assert "recheck — now and then ask whether old facts are still true: on" in chat.text
    assert "time zone: Europe/Lisbon" in chat.text
    [undo] = await kit.say(ada, "/undo")  # the page's change is the person's action: undoable in the chat
    assert 'value="Europe/Lisbon"' not in (await browser.get("/settings")).text

    before = kit.state(ada)
    r = await browser.post("/settings", data={"csrf": csrf, "timezone": "Mars/Olympus"})
    assert r.status_code == 400 and "is not a time zone" in html.unescape(r.text) and "Nothing was changed" in r.text
    assert kit.state(ada) == before
    [chat] = await kit.say(ada, "/settings")
    assert "review — check each new fact" in chat.text and ": on" in chat.text.split("\n")[1]


async def test_reminders_are_listed_snoozed_and_cancelled(kit: WebKit) -> None:  # noqa: F811
    bo = await kit.person("4002")
    await kit.say(bo, "/remind tomorrow at 9 call the dentist")
    browser = await logged_in(kit, bo)
    page = (await browser.get("/settings")).text
    assert "call the dentist" in page
    uid = re.search(r'id="r-([^"]+)"', page)[1]  # type: ignore[index]
    csrf = await csrf_of(browser, "/settings")
    r = await browser.post(f"/reminders/{uid}/snooze", data={"csrf": csrf, "minutes": "60"})
    assert r.headers["location"] == "/settings?notice=reminder_snoozed"
    [listing] = await kit.say(bo, "/reminders")
    assert listing.text.count("call the dentist") == 1  # moved, not doubled
    page = (await browser.get("/settings")).text
    new_uid = re.search(r'id="r-([^"]+)"', page)[1]  # type: ignore[index]
    assert new_uid != uid
    assert (await browser.post(f"/reminders/{new_uid}/snooze", data={"csrf": csrf, "minutes": "7"})).status_code == 400
    r = await browser.post(f"/reminders/{new_uid}/cancel", data={"csrf": csrf})
    assert r.headers["location"] == "/settings?notice=reminder_cancelled"
    assert "No upcoming reminders" in (await browser.get("/settings")).text
    other = await kit.person("4003")
    await kit.say(other, "/remind tomorrow at 10 water the plants")
    theirs = (await kit.http(other).get("/api/reminders")).json()["reminders"][0]["id"]
    assert (await browser.post(f"/reminders/{theirs}/cancel", data={"csrf": csrf})).status_code == 404
    assert (await kit.http(other).get("/api/reminders")).json()["reminders"][0]["state"] == "scheduled"


async def test_tokens_are_made_shown_once_and_revoked(kit: WebKit) -> None:  # noqa: F811
    cy = await kit.person("4004")  # the kit made one token for programs
    browser = await logged_in(kit, cy)
    csrf = await csrf_of(browser, "/settings")
    r = await browser.post("/tokens/new", data={"csrf": csrf, "name": "laptop"})
    secret = re.search(r'<code id="new-token">(mem_[^<]+)</code>', r.text)[1]  # type: ignore[index]
    assert (await kit.http(Authorization=f"Bearer {secret}").get("/api/memories")).status_code == 200
    page = (await browser.get("/settings")).text
    assert secret not in page and "laptop" in page and "Telegram: 4004" in page
    ids = re.findall(r'action="/tokens/(\d+)/revoke"', page)
    assert len(ids) == 2
    r = await browser.post(f"/tokens/{ids[1]}/revoke", data={"csrf": csrf})
    assert r.headers["location"] == "/settings?notice=token_revoked"
    assert (await kit.http(Authorization=f"Bearer {secret}").get("/api/memories")).status_code == 401
    assert (await kit.http(cy).get("/api/memories")).status_code == 200  # the other token still works
    dee = await kit.person("4005")
    theirs = kit.state(dee)["tokens"][0][0]
    assert (await browser.post(f"/tokens/{theirs}/revoke", data={"csrf": csrf})).status_code == 404
    assert (await kit.http(dee).get("/api/memories")).status_code == 200


async def test_forget_everything_needs_the_typed_words(kit: WebKit) -> None:  # noqa: F811
    eve = await kit.person("4006")
    await kit.say(eve, "remember: My blood type is 0+")
    browser = await logged_in(kit, eve)
    csrf = await csrf_of(browser, "/settings")
    before = kit.state(eve)
    for typed in ("", "yes", "forget", "forget everything!"):
        r = await browser.post("/forget", data={"csrf": csrf, "confirm": typed})
        assert r.status_code == 400 and "Nothing was deleted" in r.text
    assert kit.state(eve) == before
    r = await browser.post("/forget", data={"csrf": csrf, "confirm": "  Forget   everything "})
    assert r.status_code == 200 and "I deleted everything I held about you: 1 memory" in r.text
    assert kit.state(eve)["memories"] == [] and all(t[1] != "None" for t in kit.state(eve)["tokens"])
    assert (await browser.get("/")).status_code == 401  # the session ended with everything else
    assert (await kit.http(eve).get("/api/memories")).status_code == 401

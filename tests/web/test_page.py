"""The memory page's story over plain HTTP forms (no JavaScript), on SQLite and PostgreSQL: the
Possible conflicts block with the chat's four answers, filters, search, paging, and per memory
Edit, Update, Mark as past / Restore, History, Delete with Undo; a change in the chat shows on
the next page load and the other way round; backups download and upload."""

from __future__ import annotations

import html
import json
import re

from tests.support.page_kit import csrf_of, logged_in
from tests.support.web_kit import WebKit, kit  # noqa: F401


def texts(page: str) -> list[str]:
    """The memories listed, as a person reads them."""
    return [html.unescape(t) for t in re.findall(r'<li class="memory[^"]*" id="m-[^"]+">\s*<p class="text">([^<]*)</p>', page)]


def uid_of(page: str, text: str) -> str:
    for uid, shown in re.findall(r'id="m-([^"]+)">\s*<p class="text">([^<]*)</p>', page):
        if html.unescape(shown) == text:
            return uid
    raise AssertionError(f"{text!r} not listed")


async def test_a_conflict_is_settled_on_the_page_and_the_lists_change(kit: WebKit) -> None:  # noqa: F811
    ana = await kit.person("3001")
    await kit.say(ana, "remember: I live in London")
    [question] = await kit.say(ana, "remember: I moved to Paris")
    assert "Mark older as past" in " ".join(b.label for b in question.all_buttons)
    browser = await logged_in(kit, ana)
    page = (await browser.get("/")).text
    block = page[page.index("Possible conflicts"):page.index("</section>")]
    assert "Possible conflicts (1)" in block and "I moved to Paris" in block and "I live in London" in block
    labels = re.findall(r'<button type="submit" name="choice" value="([a-z_]+)"\s+aria-describedby="[^"]+">([^<]+)</button>', block)
    assert labels == [("keep_both", "Keep both"), ("mark_older_past", "Mark older as past (recommended)"),
                      ("replace_older", "Replace older (deletes it)"), ("discard_newer", "Discard newer")]
    assert 'class="choice recommended"' in block
    assert html.unescape(block).count("“I moved to Paris” is current; “I live in London” was true before") == 1
    assert "“I moved to Paris” was a mistake: it is dropped and “I live in London” stays current." in html.unescape(block)

    qid = re.search(r'action="/questions/([^/]+)/answer"', block)[1]  # type: ignore[index]
    csrf = await csrf_of(browser)
    r = await browser.post(f"/questions/{qid}/answer", data={"csrf": csrf, "choice": "mark_older_past", "back": "/"})
    assert r.status_code == 303
    after = (await browser.get(r.headers["location"])).text
    assert "Settled." in after and "Possible conflicts" not in after
    assert texts(after) == ["I moved to Paris"]
    assert texts((await browser.get("/?show=historical")).text) == ["I live in London"]
    # the chat sees the same: nothing waiting, London is past
    [listing] = await kit.say(ana, "/memories historical")
    assert "I live in London" in listing.text
    # the chat's buttons on the old question now say it was settled
    [late] = await kit.press(ana, question, "Keep both")
    assert "already" in (late.text + (late.notice or "")).lower()


async def test_edit_update_past_restore_delete_and_undo_through_forms(kit: WebKit) -> None:  # noqa: F811
    ben = await kit.person("3002")
    await kit.say(ben, "remember: I drive a red Fiat Pnada")
    browser = await logged_in(kit, ben)
    csrf = await csrf_of(browser)
    page = (await browser.get("/")).text
    uid = uid_of(page, "I drive a red Fiat Pnada")
    assert "typed with remember:" in page and "noted " in page

    r = await browser.post(f"/memories/{uid}/edit", data={"csrf": csrf, "text": "I drive a red Fiat Panda", "back": "/"})
    assert r.status_code == 303 and "notice=edited" in r.headers["location"]
    page = (await browser.get(r.headers["location"])).text
    assert "Corrected." in page and texts(page) == ["I drive a red Fiat Panda"]

    r = await browser.post(f"/memories/{uid}/update", data={"csrf": csrf, "text": "I drive a blue Tesla", "back": "/"})
    assert r.status_code == 303
    page = (await browser.get("/")).text
    assert texts(page) == ["I drive a blue Tesla"]
    assert texts((await browser.get("/?show=historical")).text) == ["I drive a red Fiat Panda"]
    history = (await browser.get(f"/memories/{uid}")).text
    assert re.search(r"Current:</strong>\s*<span class=\"text\">I drive a blue Tesla", history)
    assert re.search(r"Previously:</strong>\s*<span class=\"text\">I drive a red Fiat Panda", history)
    assert "I drive a red Fiat Pnada" in history  # the typo fix is in the history of what happened
    events = html.unescape(history[history.index("What happened"):])
    assert "Saved (by you)" in events and "Corrected (by you)" in events
    assert not re.search(r"\b[0-9a-f]{32}\b", events)  # other memories named by their words, never by uid

    tesla = uid_of(page, "I drive a blue Tesla")
    r = await browser.post(f"/memories/{tesla}/past", data={"csrf": csrf, "back": "/"})
    assert "Marked as past" in (await browser.get(r.headers["location"])).text
    assert texts((await browser.get("/")).text) == []
    r = await browser.post(f"/memories/{tesla}/restore", data={"csrf": csrf, "back": "/"})
    assert texts((await browser.get("/")).text) == ["I drive a blue Tesla"]

    r = await browser.post(f"/memories/{tesla}/delete", data={"csrf": csrf, "back": "/?show=current"})
    location = r.headers["location"]
    assert location.startswith("/?show=current&") and f"undo={tesla}" in location
    page = (await browser.get(location)).text
    assert "Deleted." in page and f'action="/memories/{tesla}/restore"' in page and ">Undo</button>" in page
    minutes = kit.app.settings.undo_window_seconds // 60
    assert f"possible for {minutes} minutes after deleting; then its text is gone for good" in page
    assert texts(page) == []
    r = await browser.post(f"/memories/{tesla}/restore", data={"csrf": csrf, "back": "/"})
    assert texts((await browser.get("/")).text) == ["I drive a blue Tesla"]


async def test_bad_input_gets_a_sentence_and_changes_nothing(kit: WebKit) -> None:  # noqa: F811
    cleo = await kit.person("3003")
    await kit.say(cleo, "remember: My cat is called Miso")
    browser = await logged_in(kit, cleo)
    csrf = await csrf_of(browser)
    uid = uid_of((await browser.get("/")).text, "My cat is called Miso")
    before = kit.state(cleo)
    r = await browser.post(f"/memories/{uid}/edit", data={"csrf": csrf, "text": "   "})
    assert r.status_code == 400 and "Nothing was changed" in r.text
    r = await browser.post("/memories", data={"csrf": csrf, "text": "x" * 2500})
    assert r.status_code == 400
    r = await browser.post(f"/memories/{uid}/edit", data={"csrf": csrf, "text": "My cat is Miso", "version": "999"})
    assert r.status_code == 409 and "changed since you read it" in r.text
    r = await browser.post(f"/memories/{uid}/frobnicate", data={"csrf": csrf})
    assert r.status_code == 404
    r = await browser.post(f"/questions/{uid}/answer", data={"csrf": csrf, "choice": "both"})
    assert r.status_code == 400 and "choice must be one of" in r.text
    assert (await browser.post("/import", data={"csrf": csrf})).status_code == 400
    r = await browser.post("/import", data={"csrf": csrf}, files={"backup": ("b.json", b"{not json", "application/json")})
    assert r.status_code == 400 and "Nothing was imported" in r.text
    # a redirect only goes back to this site
    r = await browser.post(f"/memories/{uid}/past", data={"csrf": csrf, "back": "https://evil.example/"})
    assert r.headers["location"].startswith("/?")
    r = await browser.post(f"/memories/{uid}/restore", data={"csrf": csrf, "back": "//evil.example/"})
    assert r.headers["location"].startswith("/?")
    state = kit.state(cleo)
    assert [m[:3] for m in state["memories"]] == [m[:3] for m in before["memories"]]


async def test_search_filters_and_paging_over_many_memories(kit: WebKit) -> None:  # noqa: F811
    dora = await kit.person("3004")
    api = kit.http(dora)
    for i in range(65):
        await api.post("/api/memories", json={"text": f"Book number {i} on my shelf is a novel about sailing boat {i}"})
    await api.post("/api/memories", json={"text": "My dentist is Dr Okafor"})
    browser = await logged_in(kit, dora)
    first = (await browser.get("/?show=all")).text
    assert len(texts(first)) == 30 and texts(first)[0] == "My dentist is Dr Okafor"
    seen = texts(first)
    url = re.search(r'href="([^"]+)" rel="next"', first)[1]  # type: ignore[index]
    while True:
        page = (await browser.get(html.unescape(url))).text
        seen += texts(page)
        found = re.search(r'href="([^"]+)" rel="next"', page)
        if not found:
            break
        url = found[1]
        assert "First page" in page
    assert len(seen) == 66 and len(set(seen)) == 66

    hits = texts((await browser.get("/?show=current&q=dentist")).text)
    assert hits == ["My dentist is Dr Okafor"]
    chat = (await kit.say(dora, "/search dentist"))[0].text
    assert "My dentist is Dr Okafor" in chat  # the same search as the chat
    assert "Nothing matches “zebra” here." in html.unescape((await browser.get("/?q=zebra")).text)
    assert texts((await browser.get("/?show=review")).text) == []
    assert texts((await browser.get("/?show=archived")).text) == []
    assert len(texts((await browser.get("/?show=bogus")).text)) == 30  # an unknown filter: Current


async def test_a_change_in_the_chat_shows_on_the_next_load_and_back(kit: WebKit) -> None:  # noqa: F811
    eli = await kit.person("3005")
    browser = await logged_in(kit, eli)
    csrf = await csrf_of(browser)
    r = await browser.post("/memories", data={"csrf": csrf, "text": "My favourite tea is sencha", "back": "/"})
    assert "notice=saved" in r.headers["location"]
    [listing] = await kit.say(eli, "/memories")
    assert "My favourite tea is sencha" in listing.text
    assert "added on this page" in (await browser.get("/")).text
    await kit.say(eli, "remember: I work as a nurse")
    assert "I work as a nurse" in texts((await browser.get("/")).text)
    [undone] = await kit.say(eli, "/undo")
    assert "I work as a nurse" not in texts((await browser.get("/")).text)


async def test_a_backup_downloads_and_uploads(kit: WebKit) -> None:  # noqa: F811
    fay = await kit.person("3006")
    await kit.say(fay, "remember: My passport expires in 2031")
    browser = await logged_in(kit, fay)
    r = await browser.get("/export")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    backup = r.content
    assert "My passport expires in 2031" in json.loads(backup)["memories"][0]["text"]
    gus = await kit.person("3007")
    other = await logged_in(kit, gus)
    csrf = await csrf_of(other, "/backup")
    r = await other.post("/import", data={"csrf": csrf}, files={"backup": ("memory-backup.json", backup, "application/json")})
    assert r.status_code == 200 and "Backup imported" in r.text
    assert "My passport expires in 2031" in texts((await other.get("/")).text)
    assert "My passport expires in 2031" in texts((await browser.get("/")).text)  # still hers too


async def test_the_timeline_draws_single_value_topics_over_time(kit: WebKit) -> None:  # noqa: F811
    hal = await kit.person("3008")
    await kit.say(hal, "remember: I live in Berlin since 2019")
    [question] = await kit.say(hal, "remember: I moved to Lisbon in March 2024")
    await kit.press(hal, question, "Mark older as past")
    await kit.say(hal, "remember: I work as a chef")
    browser = await logged_in(kit, hal)
    page = (await browser.get("/timeline")).text
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert "Where you live" in svg and "Work" in svg
    assert "I live in Berlin since 2019" in html.unescape(svg) and "I moved to Lisbon in March 2024" in html.unescape(svg)
    assert svg.count('class="bar past"') == 1 and svg.count('class="bar now"') == 2
    assert ">2019</text>" in svg and ">2024</text>" in svg
    assert "<script" not in svg

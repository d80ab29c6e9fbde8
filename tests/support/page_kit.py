"""The memory page for tests: log a person in through a real one-time link over HTTP, read the
CSRF token from the page, post forms like a browser without JavaScript would."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx

from tests.support.web_kit import Person, WebKit

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


async def link_for(kit: WebKit, person: Person) -> str:
    link = await kit.app.web_logins.link(person.platform, person.user_id)
    assert link is not None
    return urlsplit(link.url).path  # /login/<code>


async def logged_in(kit: WebKit, person: Person) -> httpx.AsyncClient:
    """A browser-like client (cookies kept, redirects not followed) logged in as the person."""
    browser = kit.http()
    path = await link_for(kit, person)
    form = await browser.get(path)
    assert form.status_code == 200 and "Continue" in form.text
    code = path.rsplit("/", 1)[1]
    r = await browser.post("/login", data={"code": code})
    assert r.status_code == 303, r.text
    return browser


async def csrf_of(browser: httpx.AsyncClient, path: str = "/") -> str:
    page = await browser.get(path)
    assert page.status_code == 200, page.text
    found = CSRF.search(page.text)
    assert found, page.text[:500]
    return found[1]

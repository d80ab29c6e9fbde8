"""A real browser for the memory page's tests: Debian's headless Chromium driven by Selenium.

Why every call goes through a thread: the web server under test runs in the test's own event
loop; Selenium blocks, and a blocking call on the loop would wait for a page the loop can no
longer serve.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import CHROMEDRIVER, CHROMIUM

PHONE = (390, 844)
DESKTOP = (1280, 900)


class Browser:
    def __init__(self, base_url: str) -> None:
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--force-device-scale-factor=1", "--lang=en-GB"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)
        self.base = base_url

    async def run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def open(self, path: str) -> None:
        await self.run(self.driver.get, self.base + path)

    async def find(self, css: str) -> WebElement:
        return await self.run(self.driver.find_element, By.CSS_SELECTOR, css)

    async def all(self, css: str) -> list[WebElement]:
        return await self.run(self.driver.find_elements, By.CSS_SELECTOR, css)

    def _mark_page(self) -> None:
        """Stamp the page being left: the next page's window will not carry the stamp."""
        self.driver.execute_script("window.__leaving = true")

    def _wait_for_next_page(self) -> None:
        """Wait until the stamped page is gone and its successor has loaded.

        Why not Selenium's staleness_of: while Chromium swaps documents, asking about the old
        element can fail with "Node with given id does not belong to the document" (an unknown
        error, not a stale-element one), which staleness_of does not expect; CI saw it once in
        4,500 tests. Every driver error during the swap is taken as "not there yet"."""
        WebDriverWait(self.driver, 15, ignored_exceptions=(WebDriverException,)).until(
            lambda d: d.execute_script("return !window.__leaving && document.readyState === 'complete'"))

    def _click_and_wait(self, element: WebElement, navigates: bool) -> None:
        """Click; when the click loads a page, return only once the new one is there, so that
        nothing is read from the page being left."""
        if navigates:
            self._mark_page()
        element.click()
        if navigates:
            self._wait_for_next_page()

    async def click(self, css: str, *, navigates: bool = True) -> None:
        element = await self.find(css)
        await self.run(self._click_and_wait, element, navigates)

    async def button(self, label: str, within: str = "body") -> None:
        """Press the button whose visible words start with `label` (as a person would); it
        submits a form, so this returns when the answer has loaded."""
        buttons = await self.all(f"{within} button")
        for b in buttons:
            if (await self.run(lambda: b.text)).strip().startswith(label):
                await self.run(self._click_and_wait, b, True)
                return
        raise AssertionError(f"no button {label!r} in {within}")

    async def submit(self, css: str, text: str) -> None:
        """Type into a field and press Enter (a search), waiting for the answer to load."""
        element = await self.find(css)
        await self.run(self._mark_page)
        await self.run(element.clear)
        await self.run(element.send_keys, text + "\n")
        await self.run(self._wait_for_next_page)

    async def type(self, css: str, text: str, *, clear: bool = True) -> None:
        element = await self.find(css)
        if clear:
            await self.run(element.clear)
        await self.run(element.send_keys, text)

    async def text(self, css: str = "body") -> str:
        element = await self.find(css)
        return await self.run(lambda: element.text)

    async def texts(self, css: str) -> list[str]:
        return [await self.run(lambda e=e: e.text) for e in await self.all(css)]

    async def wait_for_path(self, path: str) -> None:
        """Wait until the browser has arrived at this path of the site (after a script's submit)."""
        await self.run(lambda: WebDriverWait(self.driver, 15).until(lambda d: self.path == path))

    async def memory_id(self, containing: str) -> str:
        """The uid of the listed memory whose text contains these words."""
        for element in await self.all(".memory"):
            if containing in await self.run(lambda e=element: e.text):
                return str(await self.run(element.get_attribute, "id")).removeprefix("m-")
        raise AssertionError(f"no memory with {containing!r} listed")

    async def tab(self) -> None:
        """Press Tab, as a keyboard user moving to the next control."""
        body = await self.find("body")
        await self.run(body.send_keys, Keys.TAB)

    async def script(self, js: str) -> Any:
        return await self.run(self.driver.execute_script, js)

    async def size(self, width: int, height: int) -> None:
        await self.run(self.driver.set_window_size, width, height)

    async def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        ok = await self.run(self.driver.save_screenshot, str(path))
        assert ok, f"no screenshot written to {path}"

    async def problems(self) -> list[str]:
        """What the browser's console reported as errors (a CSP violation, a script error)."""
        logs = await self.run(self.driver.get_log, "browser")
        return [entry["message"] for entry in logs if entry.get("level") == "SEVERE"]

    @property
    def path(self) -> str:
        url: str = self.driver.current_url
        return url[len(self.base):] if url.startswith(self.base) else url

    def close(self) -> None:
        self.driver.quit()

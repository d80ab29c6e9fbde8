"""Bad input to the HTTP API, over a real socket, on SQLite and PostgreSQL: oversized bodies
(declared and streamed), invalid JSON, wrong types, unknown and missing fields, path ids that are
not uids, query parameters out of range, injection strings. Every refusal has the one error shape
with a clear message and the right status, and changes nothing; hostile text that is a valid fact
is stored verbatim and breaks nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from tests.support.web_kit import Person, WebKit, kit, start_kit, stop_kit  # noqa: F401

JSON = {"content-type": "application/json"}


async def seeded(kit: WebKit) -> tuple[Person, str, str]:  # noqa: F811
    alice = await kit.person("4001")
    api = kit.http(alice)
    await api.post("/api/memories", json={"text": "I live in London"})
    asked = (await api.post("/api/memories", json={"text": "I moved to Paris"})).json()
    return alice, asked["memory"]["id"], asked["question"]["id"]


def refused(r, status: int, words: str = "") -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["message"].endswith(".") or body["error"]["message"].endswith(")"), body
    assert words.lower() in body["error"]["message"].lower(), body


async def test_malformed_bodies_are_refused_clearly_and_change_nothing(kit: WebKit) -> None:  # noqa: F811
    alice, mid, qid = await seeded(kit)
    api = kit.http(alice)
    before = kit.state(alice)
    cases = [
        # (method, path, raw body, headers, status, words in the message)
        ("POST", "/api/memories", b'{"text": "unterminated', JSON, 400, "not valid JSON"),
        ("POST", "/api/memories", b"", JSON, 422, "body is required"),
        ("POST", "/api/memories", b'["I like tea"]', JSON, 422, "JSON object"),
        ("POST", "/api/memories", b'"I like tea"', JSON, 422, "JSON object"),
        ("POST", "/api/memories", b"{}", JSON, 422, '"text" is required'),
        ("POST", "/api/memories", b'{"text": 5}', JSON, 422, '"text" is not valid'),
        ("POST", "/api/memories", b'{"text": null}', JSON, 422, '"text" is not valid'),
        ("POST", "/api/memories", b'{"text": ["a"]}', JSON, 422, '"text" is not valid'),
        ("POST", "/api/memories", b'{"text": {"$ne": 1}}', JSON, 422, '"text" is not valid'),
        ("POST", "/api/memories", b'{"text": "I like tea", "owner": 2}', JSON, 422, 'unknown field "owner"'),
        ("POST", "/api/memories", b'{"text": "I like tea", "user_id": "9"}', JSON, 422, "unknown field"),
        ("POST", "/api/memories", b'{"text": "I like tea"}', {"content-type": "text/plain"}, 400, "Content-Type"),
        ("POST", "/api/memories", b"text=I+like+tea", {"content-type": "application/x-www-form-urlencoded"}, 400, "JSON"),
        ("POST", "/api/memories", json.dumps({"text": "x" * 3000}).encode(), JSON, 422, "too long"),
        ("POST", "/api/memories", b'{"text": "   "}', JSON, 422, "nothing to remember"),
        ("PATCH", f"/api/memories/{mid}", b'{"text": "I moved to Rome", "version": "1"}', JSON, 422, '"version"'),
        ("PATCH", f"/api/memories/{mid}", b'{"text": "I moved to Rome", "version": 0}', JSON, 422, '"version"'),
        ("PATCH", f"/api/memories/{mid}", b'{"text": "I moved to Rome", "version": true}', JSON, 422, '"version"'),
        ("PATCH", f"/api/memories/{mid}", b'{"text": "I moved to Rome", "version": 1.5}', JSON, 422, '"version"'),
        ("POST", f"/api/memories/{mid}/past", b'{"version": 1, "force": true}', JSON, 422, 'unknown field "force"'),
        ("POST", f"/api/questions/{qid}/answer", b'{"choice": "yes"}', JSON, 422, '"choice"'),
        ("POST", f"/api/questions/{qid}/answer", b'{"choice": "KEEP_BOTH"}', JSON, 422, '"choice"'),
        ("POST", f"/api/questions/{qid}/answer", b"{}", JSON, 422, "required"),
        ("POST", "/api/reminders", b'{"when": "", "text": "call mom"}', JSON, 422, ""),
        ("POST", "/api/reminders", b'{"when": "tomorrow", "text": 7}', JSON, 422, '"text"'),
        ("POST", "/api/reminders", json.dumps({"when": "tomorrow at 9", "text": "x" * 1001}).encode(), JSON, 422, '"text"'),
        ("POST", "/api/reminders", b'{"when": "the twelfth of never", "text": "call mom"}', JSON, 422, ""),
        ("POST", "/api/import", b"", JSON, 422, "backup"),
        ("POST", "/api/import", b"{not json", JSON, 422, "nothing was imported"),
        ("POST", "/api/import", b'{"format": "memory-assistant-backup", "version": 99}', JSON, 422, "nothing was imported"),
    ]
    for method, path, body, headers, status, words in cases:
        r = await api.request(method, path, content=body, headers=headers)
        refused(r, status, words)
        assert kit.state(alice) == before, (method, path, body)


async def test_path_ids_that_are_not_uids(kit: WebKit) -> None:  # noqa: F811
    alice, mid, qid = await seeded(kit)
    api = kit.http(alice)
    before = kit.state(alice)
    for bad in ("1;DROP TABLE memory", "' OR '1'='1", "a" * 33, "%00", "<script>", "caf%C3%A9", "..%2F..%2Fetc"):
        for method, path in (("GET", "/api/memories/{}"), ("DELETE", "/api/memories/{}"),
                             ("POST", "/api/memories/{}/past"), ("DELETE", "/api/reminders/{}")):
            r = await api.request(method, path.format(bad))
            assert r.status_code in (404, 422), (method, bad, r.status_code, r.text)
            refused(r, r.status_code)
        r = await api.post(f"/api/questions/{bad}/answer", json={"choice": "keep_both"})
        refused(r, r.status_code)
        assert r.status_code in (404, 422)
    # a row number is never an id, and a well-formed id that is nobody's is simply not found
    for n in ("1", "2", str(alice.owner_id)):
        refused(await api.get(f"/api/memories/{n}"), 404, "no memory with id")
    refused(await api.get("/api/memories/" + "0" * 32), 404, "no memory with id")
    refused(await api.post(f"/api/questions/{'f' * 32}/answer", json={"choice": "keep_both"}), 404)
    assert kit.state(alice) == before


async def test_query_parameters_out_of_range(kit: WebKit) -> None:  # noqa: F811
    alice, _, _ = await seeded(kit)
    api = kit.http(alice)
    before = kit.state(alice)
    for params, words in (
        ({"status": "deleted"}, "status must be one of"),
        ({"limit": "0"}, '"limit"'), ({"limit": "1000"}, '"limit"'), ({"limit": "ten"}, '"limit"'),
        ({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "eyJhZnRlciI6IG51bGx9"}, "cursor"),
        ({"q": "x" * 501}, '"q"'),
    ):
        refused(await api.get("/api/memories", params=params), 422, words)
    refused(await api.get("/api/recall"), 422, '"q" is required')
    refused(await api.get("/api/recall", params={"q": "   "}), 422, "recall")
    refused(await api.get("/api/recall", params={"q": "x", "limit": "51"}), 422, '"limit"')
    refused(await api.delete("/api/memories/abc", params={"version": "-1"}), 422, '"version"')
    assert kit.state(alice) == before


async def test_hostile_text_is_stored_verbatim_and_breaks_nothing(kit: WebKit) -> None:  # noqa: F811
    alice, _, _ = await seeded(kit)
    api = kit.http(alice)
    hostile = [
        "'; DROP TABLE memory; --",
        '" OR 1=1 --',
        "NEAR(London Paris) OR * AND NOT ^bees",
        "<script>alert('x')</script> is my favourite string",
        "Robert'); DELETE FROM api_token;--",
        "My name is {{7*7}} and ${jndi:ldap://x}",
        "I like 🐝 and café",
    ]
    for text in hostile:
        r = await api.post("/api/memories", json={"text": text})
        assert r.status_code in (200, 201), r.text
        assert r.json()["memory"]["text"] == text
    r = await api.post("/api/memories", json={"text": "NUL\u0000 inside"})
    assert r.status_code == 201 and r.json()["memory"]["text"] == "NUL inside"  # control characters dropped
    for q in hostile + ["\u0000", "*", '"', "OR", "NEAR("]:
        r = await api.get("/api/memories", params={"q": q, "status": "all"})
        assert r.status_code == 200, (q, r.text)
        r = await api.get("/api/recall", params={"q": q})
        assert r.status_code in (200, 422), (q, r.text)
    texts = {m["text"] for m in (await api.get("/api/memories", params={"status": "all", "limit": 200})).json()["memories"]}
    assert set(hostile) <= texts
    assert (await api.get("/api/memories")).status_code == 200  # the token table is still there


@pytest.fixture
async def small(settings, database) -> AsyncIterator[WebKit]:
    started = await start_kit(settings, database, web_max_import_bytes=10_000)
    try:
        yield started
    finally:
        await stop_kit(started)


async def test_oversized_bodies_are_413_before_anything_is_read(small: WebKit) -> None:
    alice, _, _ = await seeded(small)
    api = small.http(alice)
    before = small.state(alice)
    big = json.dumps({"text": "I like tea " + "x" * 70_000}).encode()
    refused(await api.post("/api/memories", content=big, headers=JSON), 413, "larger than this endpoint takes")

    async def streamed() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"text": "'
        for _ in range(20):
            yield b"y" * 4096
        yield b'"}'

    refused(await api.post("/api/memories", content=streamed(), headers=JSON), 413, "larger")
    backup = json.dumps({"format": "memory-assistant-backup", "version": 1,
                         "memories": [{"uid": f"u{i}", "text": "z" * 100} for i in range(200)]}).encode()
    refused(await api.post("/api/import", content=backup, headers=JSON), 413, "10,000 bytes")
    assert small.state(alice) == before
    # a body within the limit still works afterwards, on the same connection
    assert (await api.post("/api/memories", json={"text": "I like green tea"})).status_code == 201

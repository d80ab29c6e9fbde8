"""Owner isolation, over real sockets, for every route of the API and every MCP tool: two people,
two tokens; each tries the other's ids and gets 404, and nothing of the other's changes. No
token, a wrong token, a revoked token: 401 everywhere. The route list is read from the app, so a
route added later is covered without editing this file."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.support.web_kit import Person, WebKit, kit  # noqa: F401

BODIES: dict[tuple[str, str], Any] = {
    ("POST", "/api/memories"): {"text": "I like oolong tea"},
    ("PATCH", "/api/memories/{memory_id}"): {"text": "changed by someone else"},
    ("POST", "/api/memories/{memory_id}/update"): {"text": "a new version by someone else"},
    ("POST", "/api/memories/{memory_id}/past"): {},
    ("POST", "/api/memories/{memory_id}/restore"): {},
    ("POST", "/api/questions/{question_id}/answer"): {"choice": "replace_older"},
    ("POST", "/api/reminders"): {"when": "tomorrow at 9", "text": "water the plants"},
    ("POST", "/api/import"): {"format": "memory-assistant-backup", "version": 1, "memories": []},
}
QUERIES: dict[tuple[str, str], dict[str, str]] = {("GET", "/api/recall"): {"q": "where do I live?"}}


def routes(kit: WebKit) -> list[tuple[str, str]]:  # noqa: F811
    """Every (method, path) of the API as its OpenAPI document lists it, but the health check."""
    found = []
    for path, methods in kit.web.api.openapi()["paths"].items():
        if path.startswith("/api") and path != "/api/health":
            found += [(m.upper(), path) for m in sorted(methods)]
    assert len(found) >= 16, found
    return found


async def bob_with_things(kit: WebKit) -> tuple[Person, dict[str, str]]:  # noqa: F811
    bob = await kit.person("3002")
    api = kit.http(bob)
    await api.post("/api/memories", json={"text": "I live in London"})
    asked = (await api.post("/api/memories", json={"text": "I moved to Paris"})).json()
    bees = (await api.post("/api/memories", json={"text": "I keep bees"})).json()["memory"]
    reminder = (await api.post("/api/reminders", json={"when": "in 2 hours", "text": "feed the bees"})).json()
    assert asked["outcome"] == "asked"
    return bob, {"memory_id": bees["id"], "question_id": asked["question"]["id"], "reminder_id": reminder["reminder"]["id"]}


def fill(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    return path


async def call(client: httpx.AsyncClient, method: str, path: str, ids: dict[str, str]) -> httpx.Response:
    body = BODIES.get((method, path))
    return await client.request(method, fill(path, ids), params=QUERIES.get((method, path)),
                                content=json.dumps(body).encode() if body is not None else None,
                                headers={"content-type": "application/json"} if body is not None else None)


async def test_every_route_with_the_other_persons_ids_is_404_and_changes_nothing(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("3001")
    await kit.http(alice).post("/api/memories", json={"text": "I live in Oslo"})
    bob, ids = await bob_with_things(kit)
    before = kit.state(bob)
    api = kit.http(alice)
    with_ids = [(m, p) for m, p in routes(kit) if "{" in p]
    assert len(with_ids) >= 8  # get, patch, update, past, restore, delete, answer, cancel reminder
    for method, path in with_ids:
        r = await call(api, method, path, ids)
        assert r.status_code == 404, (method, path, r.status_code, r.text)
        assert r.json()["error"]["code"] == "not_found"
    # the routes without ids show Alice only her own
    for method, path in routes(kit):
        if "{" in path or method != "GET":
            continue
        r = await call(api, method, path, ids)
        assert r.status_code == 200, (path, r.text)
        for secret in ("London", "Paris", "bees"):
            assert secret not in r.text, (path, r.text)
    assert kit.state(bob) == before


async def test_every_mcp_tool_with_the_other_persons_ids_is_refused_and_changes_nothing(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("3001")
    bob, ids = await bob_with_things(kit)
    before = kit.state(bob)
    async with kit.mcp(alice) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        foreign = {
            "get_memory": {"id": ids["memory_id"]},
            "update_memory": {"id": ids["memory_id"], "text": "changed by someone else"},
            "mark_memory_past": {"id": ids["memory_id"]},
            "delete_memory": {"id": ids["memory_id"]},
            "answer_question": {"id": ids["question_id"], "choice": "replace_older"},
        }
        for name, args in foreign.items():
            out = await client.call_tool(name, args)
            assert out.is_error, (name, out)
            assert "No memory with id" in out.content[0].text or "No question" in out.content[0].text, out.content
        own = {
            "search_memories": {"query": "where do I live?"}, "list_memories": {"status": "all"},
            "list_questions": {}, "list_reminders": {},
        }
        for name, args in own.items():
            out = await client.call_tool(name, args)
            assert not out.is_error, out
            text = json.dumps(out.structured_content)
            for secret in ("London", "Paris", "bees"):
                assert secret not in text, (name, text)
        # the owner is never an argument: naming one is refused, not obeyed
        out = await client.call_tool("list_memories", {"owner": str(bob.owner_id)})
        assert out.is_error and "owner comes from your token" in out.content[0].text
        assert foreign.keys() | own.keys() | {"add_memory", "add_reminder"} == tools
    assert kit.state(bob) == before


@pytest.mark.parametrize("credential", ["none", "wrong", "revoked", "not bearer"])
async def test_without_a_valid_token_every_route_is_401(kit: WebKit, credential: str) -> None:  # noqa: F811
    bob, ids = await bob_with_things(kit)
    headers: dict[str, str] = {}
    if credential == "wrong":
        headers["Authorization"] = "Bearer mem_" + "A" * 43
    elif credential == "revoked":
        old = await kit.app.access.create("telegram", bob.user_id, "old")
        assert await kit.app.access.revoke_number(bob.owner_id, 2) is not None
        headers["Authorization"] = f"Bearer {old.secret}"
    elif credential == "not bearer":
        headers["Authorization"] = f"Basic {bob.token}"
    before = kit.state(bob)
    api = kit.http(**headers)
    for method, path in routes(kit) + [("POST", "/api/nowhere")]:
        r = await call(api, method, path, ids)
        assert r.status_code == 401, (method, path, r.status_code, r.text)
        assert r.json()["error"]["code"] == "unauthorized"
        if credential == "revoked":
            assert "revoked" in r.json()["error"]["message"]
    r = await api.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        headers={"accept": "application/json, text/event-stream"})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    if credential == "revoked":
        assert "revoked" in r.json()["error"]["message"]
    assert kit.state(bob) == before


async def test_an_mcp_session_cannot_be_used_with_another_persons_token(kit: WebKit) -> None:  # noqa: F811
    alice, bob = await kit.person("3001"), await kit.person("3002")
    await kit.http(alice).post("/api/memories", json={"text": "I live in Oslo"})
    accept = {"accept": "application/json, text/event-stream"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    r = await kit.http(alice).post("/mcp", json=init, headers=accept)
    assert r.status_code == 200, r.text
    session = r.headers["mcp-session-id"]
    await kit.http(alice).post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                               headers=accept | {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
    call_tool = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "list_memories", "arguments": {}}}
    stolen = await kit.http(bob).post("/mcp", json=call_tool, headers=accept | {
        "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
    assert stolen.status_code == 404 and "Oslo" not in stolen.text
    own = await kit.http(alice).post("/mcp", json=call_tool, headers=accept | {
        "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
    assert own.status_code == 200 and "Oslo" in own.text

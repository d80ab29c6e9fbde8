"""The MCP server with the SDK's own client: over streamable HTTP against the running web server
(SQLite and PostgreSQL), and over stdio against `python -m bot mcp` as a subprocess, which must
write nothing but JSON-RPC to stdout."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from bot.storage.db import Database
from tests.support.processes import bot_database, bot_env  # noqa: F401  (fixture)
from tests.support.web_kit import WebKit, kit  # noqa: F401

TOOLS = {"add_memory", "search_memories", "list_memories", "get_memory", "update_memory", "mark_memory_past",
         "delete_memory", "list_questions", "answer_question", "add_reminder", "list_reminders"}


async def call(client: Client, name: str, **args: Any) -> dict[str, Any]:
    out = await client.call_tool(name, args)
    assert not out.is_error, (name, out.content)
    assert isinstance(out.structured_content, dict)
    return out.structured_content


async def test_the_tools_over_streamable_http(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("5001")
    async with kit.mcp(alice) as client:
        listed = (await client.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        described = {t.name: t.description or "" for t in listed}
        assert "asked" in described["add_memory"] and "question" in described["add_memory"]
        assert "historical" in described["search_memories"] and "past" in described["search_memories"]
        assert "person's own choice" in described["answer_question"]
        schemas = {t.name: t.input_schema for t in listed}
        assert set(schemas["search_memories"]["properties"]) == {"query", "limit"}
        assert set(schemas["list_memories"]["properties"]) == {"status", "limit", "cursor"}
        assert set(schemas["add_reminder"]["properties"]) == {"when", "text"}
        assert all("owner" not in json.dumps(s) for s in schemas.values())

        saved = await call(client, "add_memory", text="I live in London")
        assert saved["outcome"] == "saved"
        asked = await call(client, "add_memory", text="I moved to Paris")
        assert asked["outcome"] == "asked" and asked["question"]["old"][0]["text"] == "I live in London"
        questions = (await call(client, "list_questions"))["questions"]
        assert [q["id"] for q in questions] == [asked["question"]["id"]]
        wrong = await client.call_tool("answer_question", {"id": asked["question"]["id"], "choice": "yes please"})
        assert wrong.is_error and "keep_both" in wrong.content[0].text
        await call(client, "answer_question", id=asked["question"]["id"], choice="mark_older_past")

        now = await call(client, "search_memories", query="where do I live?")
        assert [m["text"] for m in now["current"]] == ["I moved to Paris"] and now["historical"] == []
        before = await call(client, "search_memories", query="where did I live before?", limit=3)
        assert "I live in London" in [m["text"] for m in before["historical"]]

        for i in range(5):
            await call(client, "add_memory", text=f"I have visited museum number {i} with {'y' * i}")
        first = await call(client, "list_memories", limit=4)
        rest = await call(client, "list_memories", limit=4, cursor=first["next_cursor"])
        assert len(first["memories"]) == 4 and rest["next_cursor"] is None
        assert len({m["id"] for m in first["memories"] + rest["memories"]}) == 6  # current ones, each once

        paris = asked["memory"]["id"]
        got = await call(client, "get_memory", id=paris)
        assert got["text"] == "I moved to Paris" and [h["kind"] for h in got["history"]][0] == "created"
        updated = await call(client, "update_memory", id=paris, text="I moved to Lyon")
        assert updated["previous"]["status"] == "historical" and updated["memory"]["text"] == "I moved to Lyon"
        lyon = updated["memory"]["id"]
        assert (await call(client, "mark_memory_past", id=lyon))["memory"]["status"] == "historical"
        deleted = await call(client, "delete_memory", id=lyon)
        assert deleted["memory"]["deleted"] and deleted["restorable_until"]
        gone = await client.call_tool("get_memory", {"id": lyon})
        assert gone.is_error and "No memory with id" in gone.content[0].text

        reminder = await call(client, "add_reminder", when="tomorrow at 8", text="buy bread")
        assert reminder["reminder"]["due_local"].endswith("08:00 (UTC)")
        assert [r["text"] for r in (await call(client, "list_reminders"))["reminders"]] == ["buy bread"]
        nonsense = await client.call_tool("add_reminder", {"when": "whenever", "text": "buy bread"})
        assert nonsense.is_error

    # what MCP saved is the person's memory, seen by the API and the chat alike
    texts = {m.text for m in await kit.app.memory.list(alice.owner_id)}
    assert {"I live in London", "I moved to Paris"} <= texts
    events = kit.state(alice)["events"]
    assert int(events[0][0]) > 10


def stdio_params(tmp_path: Path, url: str, owner: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "bot", "mcp", "--owner", owner],
                                 env=bot_env(tmp_path, url, **env), cwd=str(tmp_path))


@pytest.mark.e2e
async def test_the_tools_over_stdio(tmp_path: Path, bot_database) -> None:  # noqa: F811
    url, test_url, schema = bot_database
    async with Client(stdio_params(tmp_path, url, "telegram:5002", LOG_LEVEL="DEBUG")) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        await call(client, "add_memory", text="I live in London")
        asked = await call(client, "add_memory", text="I moved to Paris")
        assert asked["outcome"] == "asked"
        found = await call(client, "search_memories", query="where do I live?")
        assert {m["text"] for m in found["current"]} == {"I moved to Paris"}
        assert [m["text"] for m in found["possibly_outdated"]] == ["I live in London"]
        refused = await client.call_tool("list_memories", {"owner": "telegram:1"})
        assert refused.is_error and "owner comes from your token" in refused.content[0].text
    db = Database(test_url, pg_schema=schema)
    try:
        from bot.memory.service import MemoryService
        from tests.conftest import make_settings

        memory = MemoryService(db, make_settings(database_url=test_url))
        owner = await memory.owner_for("telegram", "5002", create=False)
        assert owner is not None and {m.text for m in await memory.list(owner)} == {"I live in London", "I moved to Paris"}
    finally:
        db.dispose()


@pytest.mark.e2e
@pytest.mark.parametrize("embedding", ["none", pytest.param("default", marks=pytest.mark.slow)])
def test_stdio_writes_nothing_but_json_rpc_to_stdout(tmp_path: Path, embedding: str) -> None:
    """Also while the embedding model loads (and exports its ONNX copy) in the background."""
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add_memory", "arguments": {"text": "I like jazz"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_memory", "arguments": {"id": "nobody"}}},
    ]
    last = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_memories", "arguments": {"query": "jazz"}}}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "mcp", "--owner", "console:tester"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env=bot_env(tmp_path, url, LOG_LEVEL="DEBUG", EMBEDDING_MODEL=embedding),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()

    def answers(n: int) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        while len([r for r in got if "id" in r]) < n:  # a client keeps stdin open until it has its answers
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, "".join(errors)[-2000:]
            got.append(json.loads(line))  # every line is JSON ...
        return got

    try:
        proc.stdin.write("".join(json.dumps(x) + "\n" for x in lines))
        proc.stdin.flush()
        replies = answers(4)
        if embedding != "none":  # stay until the model is loaded, then use it
            deadline = time.monotonic() + 180
            while not any("embedding model" in e and "ready" in e for e in errors):
                assert time.monotonic() < deadline and proc.poll() is None, "".join(errors)[-2000:]
                time.sleep(0.5)
        proc.stdin.write(json.dumps(last) + "\n")
        proc.stdin.flush()
        replies += answers(1)
        proc.stdin.close()
        rest = proc.stdout.read()
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    stderr = "".join(errors)
    assert code == 0, stderr[-2000:]
    assert rest.strip() == "", rest  # nothing after the answers either
    assert all(r.get("jsonrpc") == "2.0" for r in replies)  # ... and JSON-RPC
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4, 5}
    assert by_id[3]["result"]["structuredContent"]["outcome"] == "saved"
    assert by_id[4]["result"]["isError"] is True
    assert [m["text"] for m in by_id[5]["result"]["structuredContent"]["current"]] == ["I like jazz"]
    assert " INFO " in stderr  # the logs went to stderr (library loggers are capped at INFO: no text)

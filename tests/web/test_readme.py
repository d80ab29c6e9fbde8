"""The README's way in for a newcomer, run as written: make a token on the command line and curl
the memories (bash and curl against the running server), and connect the MCP clients with the
configurations it shows for Claude Desktop and Claude Code, over stdio and streamable HTTP, with
the MCP SDK's own client. Only what a real deployment fills in is replaced: the checkout's path,
the database, the server's address and the token."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.processes import bot_env, pg_schema_url
from tests.support.web_kit import WebKit, kit  # noqa: F401

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- tested: tests/web/test_readme\.py[^>]*-->\n```(\w+)\n(.*?)```", re.S)
CHECKOUT = "/path/to/memory-assistant"
PERSON = ("telegram", "123456789")


def blocks() -> list[tuple[str, str]]:
    found = BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(found) == 6, [b[:60] for _, b in found]
    return found


def bot_url(kit: WebKit, db_backend: tuple[str, str | None]) -> str:  # noqa: F811
    url, schema = db_backend
    return pg_schema_url(schema) if schema else url


async def test_a_token_from_the_command_line_and_curl(kit: WebKit, db_backend, tmp_path: Path) -> None:  # noqa: F811
    assert shutil.which("curl") and shutil.which("bash"), "the README's steps need bash and curl"
    token_block, curl_block = [b for lang, b in blocks() if lang == "sh"][:2]
    script = (token_block + curl_block).replace(".venv/bin/python", shlex.quote(sys.executable))
    script = script.replace("http://127.0.0.1:8080", kit.url)
    assert "python -m bot token create" in token_block and "curl" in curl_block
    # the server runs in this test's event loop: the script runs beside it, not blocking it
    proc = await asyncio.create_subprocess_exec(
        "bash", "-euo", "pipefail", "-c", script, cwd=tmp_path, env=bot_env(tmp_path, bot_url(kit, db_backend)),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    raw_out, raw_err = await asyncio.wait_for(proc.communicate(), 180)
    stdout, stderr = raw_out.decode(), raw_err.decode()
    assert proc.returncode == 0, stderr
    assert "1. laptop (telegram:123456789)" in stdout
    assert '{"ok":true}' in stdout
    assert stdout.count('"I live in Paris"') >= 3, stdout  # saved, listed, recalled
    assert '"outcome":"saved"' in stdout and '"current":[{' in stdout


async def tools_work(client: Client) -> None:
    saved = await client.call_tool("add_memory", {"text": "I keep my passport in the blue drawer"})
    assert not saved.is_error, saved.content
    found = await client.call_tool("search_memories", {"query": "where is my passport?"})
    assert not found.is_error and isinstance(found.structured_content, dict)
    assert [m["text"] for m in found.structured_content["current"]] == ["I keep my passport in the blue drawer"]


def stdio_from(config: dict[str, Any], database_url: str, tmp_path: Path) -> StdioServerParameters:
    """The client's stdio launch as configured, with this test's database; the test adds only
    EMBEDDING_MODEL=none (speed) and PYTHONPATH (this checkout, wherever it is)."""
    command = config["command"].replace(f"{CHECKOUT}/.venv/bin/python", sys.executable)
    env = {k: v.replace("sqlite:////path/to/memory-assistant/data/bot.db", database_url)
           for k, v in config.get("env", {}).items()}
    assert env["DATABASE_URL"] == database_url
    env |= {"EMBEDDING_MODEL": "none", "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(command=command, args=list(config["args"]), env=env, cwd=str(tmp_path))


def claude_code_stdio(line: str) -> dict[str, Any]:
    """`claude mcp add NAME [--env K=V]... -- COMMAND ARGS...` as a server configuration."""
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"] and "--" in words
    options, command = words[3:words.index("--")], words[words.index("--") + 1:]
    env = {}
    for i, word in enumerate(options):
        if word == "--env":
            key, _, value = options[i + 1].partition("=")
            env[key] = value
    return {"command": command[0], "args": command[1:], "env": env}


def claude_code_http(line: str) -> tuple[str, dict[str, str]]:
    """`claude mcp add --transport http NAME URL --header "K: V"` as (url, headers)."""
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"] and words[words.index("--transport") + 1] == "http"
    headers = {}
    for i, word in enumerate(words):
        if word == "--header":
            key, _, value = words[i + 1].partition(": ")
            headers[key] = value
    url = next(w for w in words if w.startswith("https://"))
    return url, headers


async def test_the_mcp_configurations_for_claude_desktop_and_claude_code(kit: WebKit, db_backend, tmp_path: Path) -> None:  # noqa: F811
    found = blocks()
    desktop = json.loads(found[2][1])["mcpServers"]["memory"]
    code_stdio = claude_code_stdio(found[3][1].strip())
    code_http_url, code_http_headers = claude_code_http(found[4][1].strip())
    mcp_json = json.loads(found[5][1])["mcpServers"]["memory"]
    assert desktop["args"][-2:] == ["--owner", ":".join(PERSON)] and code_stdio["args"] == desktop["args"]
    assert mcp_json["type"] == "http"

    database_url = bot_url(kit, db_backend)
    for config in (desktop, code_stdio):
        async with Client(stdio_from(config, database_url, tmp_path)) as client:
            await tools_work(client)

    person = await kit.person(PERSON[1], platform=PERSON[0])
    for url, headers in ((code_http_url, code_http_headers), (mcp_json["url"], mcp_json["headers"])):
        url = url.replace("https://memory.example.com", kit.url)
        headers = {k: v.replace("$TOKEN", person.token).replace("${MEMORY_TOKEN}", person.token) for k, v in headers.items()}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await tools_work(client)  # the same fact again: the memory says it is known already
    texts = [m.text for m in await kit.app.memory.list(person.owner_id)]
    assert texts == ["I keep my passport in the blue drawer"]  # one person, one memory, both transports

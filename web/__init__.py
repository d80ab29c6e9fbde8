"""The web side: one HTTP server in the bot's process, for programs rather than people.

- `server.py`  uvicorn inside the running event loop (started and stopped with the process)
- `app.py`     the FastAPI application: routes, error shapes, body limits, the MCP mount
- `api.py`     the REST API under /api (thin: request in, door call, JSON out)
- `mcp.py`     the MCP server (official SDK): the same verbs as tools, over streamable HTTP at
               /mcp and over stdio (`python -m bot mcp`)
- `door.py`    what both of them do, once, on the memory's verbs
- `gate.py`    bearer tokens -> the person, and the per-token rate limit
- `errors.py`  the one error shape: {"error": {"code", "message"}}
- `hooks.py`   webhooks of chat platforms served here (Telegram's), so a deployment needs one
               port behind one TLS proxy

It reaches memory only through its face (`bot.memory`); tests/test_architecture.py checks that.
See docs/ARCHITECTURE.md section 10.
"""

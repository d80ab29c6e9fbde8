"""The REST API end to end: an HTTP client against the running server (a real socket), on SQLite
and PostgreSQL, through the same memory verbs as the chat: the conflict rules, the question and
its answers, history, versions, undo window, recall blocks, backups, reminders, health."""

from __future__ import annotations

from tests.support.web_kit import WebKit, kit  # noqa: F401

M_FIELDS = {"id", "text", "status", "category", "slot", "valid_from", "valid_until", "replaced_by", "created_at",
            "updated_at", "version", "archived", "deleted"}


async def test_health_needs_no_token(kit: WebKit) -> None:  # noqa: F811
    r = await kit.http().get("/api/health")
    assert r.status_code == 200 and r.json() == {"ok": True}


async def test_a_save_goes_through_the_rules_and_its_question_is_answered(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("1001")
    api = kit.http(alice)

    r = await api.post("/api/memories", json={"text": "I live in London"})
    assert r.status_code == 201, r.text
    london = r.json()
    assert london["outcome"] == "saved" and london["question"] is None
    assert set(london["memory"]) >= M_FIELDS and london["memory"]["status"] == "current"

    r = await api.post("/api/memories", json={"text": "I moved to Paris"})
    assert r.status_code == 201
    paris = r.json()
    assert paris["outcome"] == "asked"
    q = paris["question"]
    assert q["id"] == paris["memory"]["id"] and q["new"]["text"] == "I moved to Paris"
    assert [o["text"] for o in q["old"]] == ["I live in London"] and q["old"][0]["status"] == "unsure"
    assert q["choices"] == ["keep_both", "mark_older_past", "replace_older", "discard_newer"]
    assert q["recommended"] == "mark_older_past"

    r = await api.get("/api/questions")
    assert [x["id"] for x in r.json()["questions"]] == [q["id"]]

    r = await api.post(f"/api/questions/{q['id']}/answer", json={"choice": "mark_older_past"})
    assert r.status_code == 200, r.text
    assert r.json()["question"]["status"] == "settled" and r.json()["question"]["answer"] == "mark_older_past"
    assert (await api.get("/api/questions")).json() == {"questions": []}
    r = await api.post(f"/api/questions/{q['id']}/answer", json={"choice": "keep_both"})
    assert r.status_code == 409 and "already settled" in r.json()["error"]["message"]

    old = (await api.get(f"/api/memories/{london['memory']['id']}")).json()
    assert old["status"] == "historical" and old["replaced_by"] == paris["memory"]["id"]
    kinds = [(h["memory"], h["kind"]) for h in old["history"]]
    assert (london["memory"]["id"], "created") in kinds and (london["memory"]["id"], "marked_past") in kinds
    assert [v["id"] for v in old["versions"]] == [london["memory"]["id"], paris["memory"]["id"]]
    assert all("#" not in (h["note"] or "") or h["note"].count("#") == 0 for h in old["history"])

    # the same fact again adds nothing
    r = await api.post("/api/memories", json={"text": "I moved to Paris"})
    assert r.status_code == 200 and r.json()["outcome"] == "duplicate"
    assert r.json()["memory"]["id"] == paris["memory"]["id"]


async def test_lists_page_by_cursor_filter_by_status_and_search(kit: WebKit) -> None:  # noqa: F811
    bob = await kit.person("1002")
    api = kit.http(bob)
    texts = [f"My favourite number {i} is written as {'x' * i}" for i in range(1, 8)]
    ids = [(await api.post("/api/memories", json={"text": t})).json()["memory"]["id"] for t in texts]

    seen, cursor = [], None
    while True:
        params = {"limit": 3} | ({"cursor": cursor} if cursor else {})
        page = (await api.get("/api/memories", params=params)).json()
        seen += [m["id"] for m in page["memories"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(ids))  # newest first, each once

    await api.post(f"/api/memories/{ids[0]}/past")
    current = [m["id"] for m in (await api.get("/api/memories")).json()["memories"]]
    historical = [m["id"] for m in (await api.get("/api/memories", params={"status": "historical"})).json()["memories"]]
    everything = [m["id"] for m in (await api.get("/api/memories", params={"status": "all"})).json()["memories"]]
    assert ids[0] not in current and historical == [ids[0]] and len(everything) == 7

    found = (await api.get("/api/memories", params={"q": "favourite number", "status": "all", "limit": 2})).json()
    assert len(found["memories"]) == 2 and found["next_cursor"]
    more = (await api.get("/api/memories", params={"q": "favourite number", "status": "all", "limit": 2,
                                                  "cursor": found["next_cursor"]})).json()
    assert not {m["id"] for m in more["memories"]} & {m["id"] for m in found["memories"]}
    # a search cursor is bound to its query
    r = await api.get("/api/memories", params={"q": "other words", "cursor": found["next_cursor"]})
    assert r.status_code == 422 and "cursor" in r.json()["error"]["message"]


async def test_edit_update_past_restore_delete_and_the_undo_window(kit: WebKit) -> None:  # noqa: F811
    carol = await kit.person("1003")
    api = kit.http(carol)
    m = (await api.post("/api/memories", json={"text": "I work as a nurse"})).json()["memory"]

    r = await api.patch(f"/api/memories/{m['id']}", json={"text": "I work as a nurse at St Mary's", "version": m["version"]})
    assert r.status_code == 200 and r.json()["memory"]["id"] == m["id"]
    edited = r.json()["memory"]
    assert edited["text"] == "I work as a nurse at St Mary's" and edited["version"] > m["version"]

    r = await api.post(f"/api/memories/{m['id']}/update", json={"text": "I work as a midwife"})
    assert r.status_code == 200
    new, previous = r.json()["memory"], r.json()["previous"]
    assert new["id"] != m["id"] and new["status"] == "current"
    assert previous["id"] == m["id"] and previous["status"] == "historical" and previous["replaced_by"] == new["id"]

    r = await api.post(f"/api/memories/{new['id']}/past")
    assert r.status_code == 200 and r.json()["memory"]["status"] == "historical" and r.json()["changed"] is True
    r = await api.post(f"/api/memories/{new['id']}/past")
    assert r.json()["changed"] is False  # already past: nothing to do, and said so
    r = await api.post(f"/api/memories/{new['id']}/restore", json={})
    assert r.json()["memory"]["status"] == "current"

    r = await api.delete(f"/api/memories/{new['id']}")
    assert r.status_code == 200 and r.json()["memory"]["deleted"] is True
    assert r.json()["restorable_until"] > r.json()["memory"]["updated_at"]
    assert (await api.get(f"/api/memories/{new['id']}")).status_code == 404
    r = await api.post(f"/api/memories/{new['id']}/restore")
    assert r.status_code == 200 and r.json()["memory"]["deleted"] is False

    await api.delete(f"/api/memories/{new['id']}")
    kit.app.settings.undo_window_seconds = 0  # the window ends: the purge takes the text
    await kit.app.memory.purge_due()
    r = await api.post(f"/api/memories/{new['id']}/restore")
    assert r.status_code == 404
    assert "I work as a midwife" not in str(kit.state(carol))


async def test_a_change_with_an_old_version_is_refused_and_changes_nothing(kit: WebKit) -> None:  # noqa: F811
    dan = await kit.person("1004")
    api = kit.http(dan)
    m = (await api.post("/api/memories", json={"text": "My bike is blue"})).json()["memory"]
    await api.patch(f"/api/memories/{m['id']}", json={"text": "My bike is dark blue"})
    before = kit.state(dan)
    for call in (
        api.patch(f"/api/memories/{m['id']}", json={"text": "My bike is red", "version": m["version"]}),
        api.post(f"/api/memories/{m['id']}/update", json={"text": "My bike is green", "version": m["version"]}),
        api.post(f"/api/memories/{m['id']}/past", json={"version": m["version"]}),
        api.delete(f"/api/memories/{m['id']}", params={"version": m["version"]}),
    ):
        r = await call
        assert r.status_code == 409, r.text
        assert "changed since" in r.json()["error"]["message"]
    assert kit.state(dan) == before


async def test_recall_gives_the_chats_blocks(kit: WebKit) -> None:  # noqa: F811
    eve = await kit.person("1005")
    api = kit.http(eve)
    await api.post("/api/memories", json={"text": "I drive a Honda Civic"})
    asked = (await api.post("/api/memories", json={"text": "I drive a Tesla Model 3 now"})).json()
    await api.post(f"/api/questions/{asked['question']['id']}/answer", json={"choice": "mark_older_past"})

    now = (await api.get("/api/recall", params={"q": "what car do I drive?"})).json()
    assert set(now) == {"current", "possibly_outdated", "historical", "context"}
    assert [m["text"] for m in now["current"]] == ["I drive a Tesla Model 3 now"] and now["historical"] == []
    assert asked["memory"]["id"] in now["context"] and "Tesla" in now["context"]

    before = (await api.get("/api/recall", params={"q": "what car did I drive before?"})).json()
    assert "I drive a Honda Civic" in [m["text"] for m in before["historical"]]

    # the same pipeline as the chat's: the same memories in the same blocks
    chat = await kit.app.memory.recall(eve.owner_id, "what car did I drive before?", record_use=False)
    assert chat.text.count("\n") == before["context"].count("\n")
    r = await api.get("/api/recall", params={"q": "car", "limit": 1})
    assert len(r.json()["current"] + r.json()["historical"] + r.json()["possibly_outdated"]) == 1


async def test_export_and_import_round_trip(kit: WebKit) -> None:  # noqa: F811
    fay, gus = await kit.person("1006"), await kit.person("1007")
    await kit.http(fay).post("/api/memories", json={"text": "I keep bees"})
    backup = await kit.http(fay).get("/api/export")
    assert backup.status_code == 200 and backup.json()["memories"][0]["text"] == "I keep bees"

    r = await kit.http(gus).post("/api/import", content=backup.content, headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json()["added"] == 1, r.text
    again = await kit.http(gus).post("/api/import", content=backup.content)
    assert again.json()["added"] == 0 and again.json()["unchanged"] == 1  # idempotent
    bad = await kit.http(gus).post("/api/import", content=b'{"format": "something else"}')
    assert bad.status_code == 422 and "Nothing was imported" in bad.json()["error"]["message"]


async def test_reminders_set_list_cancel(kit: WebKit) -> None:  # noqa: F811
    hal = await kit.person("1008")
    api = kit.http(hal)
    r = await api.post("/api/reminders", json={"when": "tomorrow at 9", "text": "call mom"})
    assert r.status_code == 201, r.text
    rem = r.json()["reminder"]
    assert rem["text"] == "call mom" and rem["due_local"].endswith("at 09:00 (UTC)")
    assert [x["id"] for x in (await api.get("/api/reminders")).json()["reminders"]] == [rem["id"]]
    # addressed to the person's own private chat on the token's platform
    row = await kit.app.reminders.by_uid(hal.owner_id, rem["id"])
    assert row is not None and (row.platform, row.chat_id, row.user_id) == ("telegram", "1008", "1008")

    r = await api.post("/api/reminders", json={"when": "yesterday", "text": "too late"})
    assert r.status_code == 422
    r = await api.delete(f"/api/reminders/{rem['id']}")
    assert r.status_code == 200 and r.json()["reminder"]["state"] == "cancelled"
    assert (await api.delete(f"/api/reminders/{rem['id']}")).status_code == 409
    assert (await api.get("/api/reminders")).json() == {"reminders": []}


async def test_storage_that_cannot_be_read_is_503_and_health_says_so(kit: WebKit, db_backend, tmp_path) -> None:  # noqa: F811
    ivy = await kit.person("1009")
    api = kit.http(ivy)
    assert (await api.get("/api/memories")).status_code == 200
    url, schema = db_backend
    moved = tmp_path.with_name(tmp_path.name + "-gone")
    if schema is None:  # SQLite: the file's folder goes away, and with it every new connection
        kit.app.db.engine.dispose()
        tmp_path.rename(moved)
    else:  # PostgreSQL: the bot's schema is dropped under it
        from sqlalchemy import text as sql

        with kit.app.db.engine.begin() as conn:
            conn.execute(sql(f'DROP SCHEMA "{schema}" CASCADE'))
    try:
        r = await kit.http().get("/api/health")
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_unavailable", r.text
        # without storage no token can be checked either: refused, never let through
        r = await api.get("/api/memories")
        assert r.status_code == 503, r.text
        r = await api.post("/api/memories", json={"text": "I like tea"})
        assert r.status_code == 503
    finally:
        if schema is None:
            kit.app.db.engine.dispose()
            moved.rename(tmp_path)
    assert (await kit.http().get("/api/health")).status_code == (200 if schema is None else 503)

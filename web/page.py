"""The memory page: a person reviews, settles and tidies their memory in a browser, logged in
through a one-time link from the chat (/web). Server-rendered HTML with plain forms (it works
without JavaScript); web/static/page.js only adds small comforts.

Why every action goes through the door (web/door.py) like the API: the page must save, change,
settle and undo through the same memory verbs as the chat, so a change made here shows in the
chat and the other way round, with the same history and undo. Nothing here reads storage.

Safety, each for a reason:
- The owner comes only from the session cookie (web/session.py); every id in a path is a uid the
  door looks up within that owner, so another person's id is "not found" (404), never shown.
- Every POST carries the session's CSRF token, checked before anything is read or changed.
- Jinja escapes every value (autoescape on), so a memory "<script>..." shows as text; the
  Content-Security-Policy allows scripts only from this server, and none inline.
- Login codes: the GET of a link only shows a Continue button (link previews and scanners fetch
  links; a fetch must not use the code up); the POST uses it up, once. Failed posts are rate
  limited per client address.
- Redirects after an action carry a notice code from a fixed table, never text, and only go
  back to this site's own paths.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from bot.core.access import AccessTokens
from bot.core.web_login import CodeRefused, WebLogins
from bot.features.memory_commands import SETTING_LABELS
from bot.core.access import clean_name
from web.door import FORGET_WORDS, Door, Refusal
from web.gate import RateLimiter
from web.miniapp import check_init_data
from web.session import Visitor, clear_cookie, cookie_secret, csrf_ok, set_cookie, visitor_of
from web.timeline import spans_of, timeline_svg
from web import words

STATIC = Path(__file__).parent / "static"
PAGE_SIZE = 30
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "base-uri 'none'; connect-src 'self'; frame-ancestors 'self' https://web.telegram.org"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    # the login path holds a code: never sent to another site; same-origin (not no-referrer) so that
    # the browser names this site as the Origin of its own form posts (the login CSRF check)
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",  # a person's memory stays out of shared caches and the back button
}
CODE_MESSAGES = {
    CodeRefused.UNKNOWN: "This login link is not valid (mistyped or cut short). Send /web to the assistant in a "
                         "private chat for a new one.",
    CodeRefused.USED: "This login link was already used; each link works once. Send /web to the assistant in a "
                      "private chat for a new one.",
    CodeRefused.EXPIRED: "This login link has expired (they work for 10 minutes). Send /web to the assistant in a "
                         "private chat for a new one.",
}
LOGGED_OUT = "You are not logged in (or your session ended). Send /web to the assistant in a private chat for a login link."
BAD_CSRF = ("This form was not sent from your memory page (its security token is missing or old), so nothing was "
            "changed. Reload the page and try again.")

router = APIRouter(include_in_schema=False)
env = Environment(loader=PackageLoader("web", "templates"), autoescape=select_autoescape(default=True),
                  trim_blocks=True, lstrip_blocks=True)
env.globals["FILTERS"] = words.FILTERS
env.filters["dates"] = words.dates_of
env.filters["source"] = words.source_words
env.filters["event"] = lambda e: words.event_words(e["kind"], e["by"] or "")


def _parts(request: Request) -> tuple[Door, WebLogins, Any]:
    state = request.app.state
    return state.door, state.logins, state.settings


def html(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(env.get_template(template).render(**context), status_code=status, headers=HEADERS)


def message(title: str, text: str, status: int, visitor: Visitor | None = None) -> HTMLResponse:
    return html("message.html", status, title=title, text=text, visitor=visitor)


async def visitor(request: Request) -> Visitor | None:
    secret = cookie_secret(request)
    if not secret:
        return None
    found = await request.app.state.logins.session(secret)
    return visitor_of(secret, found) if found is not None else None


def back_to(target: str | None, **extra: str) -> str:
    """Only this site's own paths; the notice travels as a code."""
    path = target if target and target.startswith("/") and not target.startswith("//") and "\\" not in target else "/"
    if extra:
        path += ("&" if "?" in path else "?") + urlencode(extra)
    return path


def same_site(request: Request) -> bool:
    """A login form posted from this site (or by a client that sends no Origin). Why: a login
    has no session yet, so no CSRF token; without this check another site could post its own
    code and log a visitor in to someone else's memory page (login CSRF)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    public = request.app.state.settings.web_public_url  # behind a proxy the Host may be rewritten
    return origin == public or origin.split("://", 1)[-1] == request.headers.get("host", "")


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303, headers=HEADERS)


def refused(exc: Refusal, v: Visitor) -> HTMLResponse:
    status = {"not_found": 404, "gone": 404, "invalid": 400, "conflict": 409}.get(exc.kind, 400)
    title = "Not found" if status == 404 else "Nothing was changed"
    return message(title, exc.message, status, v)


# --- logging in and out ---------------------------------------------------------------------------
@router.get("/login/{code}")
async def login_form(code: str) -> HTMLResponse:
    return html("login.html", code=code[:100])


@router.post("/login")
async def login(request: Request) -> Response:
    limiter: RateLimiter = request.app.state.login_limiter
    client = request.client.host if request.client else "?"
    wait = limiter.take(client)
    if wait > 0:
        return message("Too many tries", f"Too many login attempts from here; try again in {int(wait) + 1} s.", 429)
    if not same_site(request):
        return message("This link does not work", "That login form came from another site; nothing was opened.", 403)
    form = await request.form()
    code = str(form.get("code", ""))
    _, logins, settings = _parts(request)
    got = await logins.redeem(code)
    if isinstance(got, CodeRefused):
        return message("This link does not work", CODE_MESSAGES[got], 400)
    secret, session = got
    response = redirect("/")
    set_cookie(response, settings, secret, settings.web_session_days * 86400)
    return response


@router.get("/app")
async def miniapp_page() -> HTMLResponse:
    """The Telegram Mini App's address: page.js posts the initData Telegram put in the address's
    fragment (never sent to any server by itself) to /app/login."""
    return html("miniapp.html")


@router.post("/app/login")
async def miniapp_login(request: Request) -> Response:
    limiter: RateLimiter = request.app.state.login_limiter
    client = request.client.host if request.client else "?"
    if limiter.take(client) > 0:
        return message("Too many tries", "Too many sign-in attempts from here; try again in a minute.", 429)
    if not same_site(request):
        return message("Telegram sign-in refused", "That sign-in came from another site; nothing was opened.", 403)
    form = await request.form()
    door, logins, settings = _parts(request)
    got = check_init_data(str(form.get("init_data", "")), settings.telegram_bot_token, time.time())
    if isinstance(got, str):
        return message("Telegram sign-in refused", got + " Nothing was opened.", 403)
    allowed = logins.allowed("telegram", got.user_id)
    owner = await door.person("telegram", got.user_id, got.name) if allowed else None
    started = await logins.start("telegram", got.user_id) if owner is not None else None
    if started is None:
        return message("Telegram sign-in refused", "This Telegram account may not use this assistant.", 403)
    secret, _ = started
    response = redirect("/")
    set_cookie(response, settings, secret, settings.web_session_days * 86400)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    v = await visitor(request)
    _, logins, settings = _parts(request)
    if v is not None:
        form = await request.form()
        if not csrf_ok(v, str(form.get("csrf", ""))):
            return message("Nothing was changed", BAD_CSRF, 403, v)
        await logins.end(v.secret)
    response = message("Logged out", "You are logged out. Send /web to the assistant for a new link.", 200)
    clear_cookie(response, settings)
    return response


# --- the page -------------------------------------------------------------------------------------
@router.get("/")
async def page(request: Request, show: str = "current", q: str = "", cursor: str | None = None,
               notice: str = "", undo: str = "") -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    door = request.app.state.door
    if show not in words.LISTING_OF:
        show = "current"
    q = q.strip()[:500]
    try:
        listed = await door.list(v.caller, words.LISTING_OF[show], q, PAGE_SIZE, cursor)
    except Refusal:
        listed = await door.list(v.caller, words.LISTING_OF[show], q, PAGE_SIZE, None)
    questions = (await door.questions(v.caller))["questions"]
    for question in questions:
        olds = [o["text"] for o in question["old"]]
        question["options"] = [
            {"choice": ch, "label": words.choice_label(ch, question["recommended"]),
             "explained": words.choice_explained(ch, question["new"]["text"], olds),
             "recommended": ch == question["recommended"]}
            for ch in question["choices"]
        ]
    here = back_to("/", **({"show": show} | ({"q": q} if q else {})))
    next_url = back_to("/", show=show, **({"q": q} if q else {}), cursor=listed["next_cursor"]) if listed["next_cursor"] else None
    return html(
        "page.html", visitor=v, memories=listed["memories"], questions=questions, show=show, q=q,
        next_url=next_url, first_url=here if cursor else None, here=here,
        notice=words.NOTICES.get(notice, ""), undo=undo if notice == "deleted" else "",
        undo_for=words.undo_window(request.app.state.settings.undo_window_seconds),
    )


@router.get("/memories/{uid}")
async def history(request: Request, uid: str) -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    try:
        got = await request.app.state.door.get(v.caller, uid)
    except Refusal as exc:
        return refused(exc, v)
    texts = {version["id"]: version["text"] for version in got["versions"]}
    for entry in got["history"]:
        entry["note"] = words.note_words(entry["note"] or "", texts)
    return html("history.html", visitor=v, m=got, versions=list(reversed(got["versions"])))


@router.get("/timeline")
async def timeline(request: Request) -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    today = datetime.now(timezone.utc).date()
    topics = spans_of(await request.app.state.door.timeline(v.caller), today)
    return html("timeline.html", visitor=v, svg=Markup(timeline_svg(topics, today)), topics=topics)


@router.get("/backup")
async def backup(request: Request) -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    return html("backup.html", visitor=v)


@router.get("/export")
async def export(request: Request) -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    data = await request.app.state.door.export(v.caller)
    body = json.dumps(data, ensure_ascii=False, indent=1).encode()
    return Response(body, media_type="application/json", headers=HEADERS | {
        "Content-Disposition": 'attachment; filename="memory-backup.json"'})


async def _form(request: Request) -> tuple[Visitor | None, Any, Response | None]:
    """The visitor and the form of a POST, or the response refusing it (not logged in, no token)."""
    v = await visitor(request)
    if v is None:
        return None, None, message("Your memory", LOGGED_OUT, 401)
    form = await request.form()
    if not csrf_ok(v, str(form.get("csrf", ""))):
        return v, form, message("Nothing was changed", BAD_CSRF, 403, v)
    return v, form, None


@router.post("/memories")
async def add(request: Request) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    try:
        out = await request.app.state.door.add(v.caller, str(form.get("text", "")))
    except Refusal as exc:
        return refused(exc, v)
    return redirect(back_to(str(form.get("back", "/")), notice=out["outcome"]))


VERBS = {"edit": "edited", "update": "updated", "past": "past", "restore": "restored", "delete": "deleted"}


@router.post("/memories/{uid}/{verb}")
async def change(request: Request, uid: str, verb: str) -> Response:
    if verb not in VERBS:
        return message("Not found", "There is no such action.", 404)
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    door: Door = request.app.state.door
    raw_version = str(form.get("version", "")).strip()
    version = int(raw_version) if raw_version.isdigit() else None
    text = str(form.get("text", ""))
    try:
        if verb == "edit":
            await door.edit(v.caller, uid, text, version)
        elif verb == "update":
            await door.update(v.caller, uid, text, version)
        elif verb == "past":
            await door.past(v.caller, uid, version)
        elif verb == "restore":
            await door.restore(v.caller, uid, version)
        else:
            await door.delete(v.caller, uid, version)
    except Refusal as exc:
        return refused(exc, v)
    extra = {"undo": uid} if verb == "delete" else {}
    return redirect(back_to(str(form.get("back", "/")), notice=VERBS[verb], **extra))


@router.post("/questions/{uid}/answer")
async def answer(request: Request, uid: str) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    try:
        await request.app.state.door.answer(v.caller, uid, str(form.get("choice", "")))
    except Refusal as exc:
        return refused(exc, v)
    return redirect(back_to(str(form.get("back", "/")), notice="answered"))


@router.post("/import")
async def import_backup(request: Request) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    upload = form.get("backup")
    raw = await upload.read() if upload is not None and hasattr(upload, "read") else b""
    if not raw.strip():
        return message("Nothing was imported", "Choose the backup file (the JSON of Export) first.", 400, v)
    try:
        report = await request.app.state.door.import_(v.caller, raw)
    except Refusal as exc:
        return refused(exc, v)
    return message("Backup imported", report["summary"], 200, v)


# --- settings, reminders, accounts, tokens, forgetting ----------------------------------------------
SNOOZES = {"60": "1 hour", "1440": "1 day"}


async def _settings_page(request: Request, v: Visitor, *, notice: str = "", secret: str = "", status: int = 200) -> Response:
    door: Door = request.app.state.door
    access: AccessTokens = request.app.state.access
    current = await door.settings(v.caller)
    prefs = [{"name": n, "label": label.split(" — ")[0].capitalize(), "what": label.split(" — ", 1)[1],
              "off": off.removeprefix("off: "), "on": current[n]} for n, (label, off) in SETTING_LABELS.items()]
    return html("settings.html", status, visitor=v, prefs=prefs, timezone=current["timezone"],
                reminders=(await door.reminders_list(v.caller))["reminders"], snoozes=SNOOZES,
                accounts=(await door.accounts(v.caller))["accounts"], tokens=await access.active(v.caller.owner_id),
                notice=notice, secret=secret, forget_words=FORGET_WORDS)


@router.get("/settings")
async def settings_page(request: Request, notice: str = "") -> Response:
    v = await visitor(request)
    if v is None:
        return message("Your memory", LOGGED_OUT, 401)
    return await _settings_page(request, v, notice=words.NOTICES.get(notice, ""))


@router.post("/settings")
async def change_settings(request: Request) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    wanted = {name: form.get(name) == "on" for name in SETTING_LABELS}
    try:
        await request.app.state.door.change_settings(v.caller, wanted, str(form.get("timezone", "")))
    except Refusal as exc:
        return refused(exc, v)
    return redirect("/settings?notice=settings")


@router.post("/reminders/{uid}/{verb}")
async def reminder(request: Request, uid: str, verb: str) -> Response:
    if verb not in ("cancel", "snooze"):
        return message("Not found", "There is no such action.", 404)
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    door: Door = request.app.state.door
    try:
        if verb == "cancel":
            await door.cancel_reminder(v.caller, uid)
        else:
            minutes = str(form.get("minutes", ""))
            if minutes not in SNOOZES:
                return message("Nothing was changed", "Snooze for 1 hour or 1 day.", 400, v)
            await door.snooze_reminder(v.caller, uid, int(minutes))
    except Refusal as exc:
        return refused(exc, v)
    return redirect(f"/settings?notice=reminder_{'cancelled' if verb == 'cancel' else 'snoozed'}")


@router.post("/tokens/new")
async def new_token(request: Request) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    access: AccessTokens = request.app.state.access
    issued = await access.create(v.caller.platform, v.caller.user_id, clean_name(str(form.get("name", ""))))
    return await _settings_page(request, v, secret=issued.secret)


@router.post("/tokens/{token_id}/revoke")
async def revoke_token(request: Request, token_id: str) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    access: AccessTokens = request.app.state.access
    revoked = await access.revoke_id(v.caller.owner_id, int(token_id)) if token_id.isdigit() else None
    if revoked is None:
        return message("Not found", "You have no active token with that id.", 404, v)
    return redirect("/settings?notice=token_revoked")


@router.post("/forget")
async def forget(request: Request) -> Response:
    v, form, no = await _form(request)
    if no is not None:
        return no
    assert v is not None
    try:
        out = await request.app.state.door.forget_everything(v.caller, str(form.get("confirm", "")))
    except Refusal as exc:
        return refused(exc, v)
    request.app.state.access.forget(v.caller.owner_id)
    n = out["memories_deleted"]
    response = message("Everything is deleted",
                       f"I deleted everything I held about you: {n} memor{'y' if n == 1 else 'ies'}, their history, your "
                       "reminders, settings and our conversation log. There is no undo. You are logged out.", 200)
    clear_cookie(response, request.app.state.settings)
    return response

"""The one error shape of the HTTP API: `{"error": {"code", "message"}}` with the status that
fits, and a message a person can act on. Every refusal changed nothing.

Why rewrite the framework's own errors: FastAPI's validation errors are lists of internal
locations and Starlette's 404 is plain text; a program (and the person reading its log) should
get one shape and one sentence whatever went wrong.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from bot.memory import ConcurrentUpdate, StorageError
from web.door import Refusal

log = logging.getLogger(__name__)

STORAGE_DOWN = "The memory's storage cannot be read right now, so nothing was read or changed. Try again in a moment."
STATUS_OF_REFUSAL = {"not_found": 404, "gone": 404, "invalid": 422, "conflict": 409}
CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "rate_limited",
    500: "internal",
    503: "storage_unavailable",
}


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, code: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.headers = headers or {}


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_response(status: int, message: str, *, code: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code or CODES.get(status, "error"), message), status_code=status, headers=headers)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "the body"


def describe_validation(errors: list[dict[str, Any]]) -> tuple[int, str]:
    """(status, one sentence) for FastAPI's validation errors: a body that is not JSON at all is a
    400, anything else (wrong types, unknown or missing fields, values out of range) a 422."""
    if not errors:
        return 422, "The request is not valid."
    first = errors[0]
    kind, loc = first.get("type", ""), tuple(first.get("loc", ()))
    if kind == "json_invalid":
        return 400, "The body is not valid JSON; nothing was changed."
    name = _field(loc)
    where = "query parameter" if loc[:1] == ("query",) else "field"
    if kind == "extra_forbidden":
        return 422, f"Unknown {where} {json.dumps(name)}; nothing was changed."
    if kind == "missing":
        if loc == ("body",):
            return 422, "A JSON body is required; nothing was changed."
        return 422, f"The {where} {json.dumps(name)} is required; nothing was changed."
    if kind in ("model_attributes_type", "dict_type", "model_type"):
        return 422, "The body must be a JSON object; nothing was changed."
    msg = str(first.get("msg", "is not valid"))
    return 422, f"The {where} {json.dumps(name)} is not valid: {msg[0].lower() + msg[1:] if msg else msg}; nothing was changed."


def install(app: FastAPI) -> None:
    """Exception handlers that give every failure the one shape."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.message, code=exc.code, headers=exc.headers)

    @app.exception_handler(Refusal)
    async def _refusal(request: Request, exc: Refusal) -> JSONResponse:
        return error_response(STATUS_OF_REFUSAL.get(exc.kind, 422), exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        kind = request.headers.get("content-type", "")
        if request.method in ("POST", "PATCH", "PUT") and "json" not in kind.lower() and await request.body():
            return error_response(400, "Send the body as JSON, with the header Content-Type: application/json; "
                                       "nothing was changed.")
        status, message = describe_validation(list(exc.errors()))
        return error_response(status, message)

    @app.exception_handler(ConcurrentUpdate)
    async def _raced(request: Request, exc: ConcurrentUpdate) -> JSONResponse:
        return error_response(409, "That changed at the same moment somewhere else (the chat, another program); "
                                   "nothing was changed. Read it again and retry.")

    @app.exception_handler(StorageError)
    async def _storage(request: Request, exc: StorageError) -> JSONResponse:
        return error_response(503, STORAGE_DOWN, headers={"Retry-After": "5"})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            message = f"There is nothing at {request.url.path}; the API lives under /api (see /docs)."
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}."
        else:
            message = str(exc.detail)
        return error_response(exc.status_code, message, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("the API failed on %s %s", request.method, request.scope.get("route").path
                      if request.scope.get("route") is not None else "(no route)")
        return error_response(500, "Something went wrong on the server's side. Please try again.")

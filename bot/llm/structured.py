"""Structured answers from the model: a forced tool call, validated with pydantic.

Why a forced tool and never free text: a reply such as "Sure! Here are the facts: ..." cannot be
trusted to parse, and a half-parsed answer is worse than none. The model must call one tool whose
input schema is the pydantic model; its input is then validated again here, because a model (or a
proxy in between) can still return an empty, partial or wrongly typed object. Any doubt is None:
the caller has a rule-based fallback for every structured job.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.llm.client import LLM, ModelUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# Values of these keywords are literal JSON, not schemas: copied as they are.
_LITERAL_KEYWORDS = frozenset({"default", "enum", "const", "examples", "required"})


def tool_input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as a tool input_schema: `$ref`s inlined, `title` noise dropped.

    Why inline: the schema is shown to the model, which follows a flat schema more reliably than
    one that jumps through `$defs`. A property that is itself called "title" is kept.
    """
    raw = model.model_json_schema()
    defs = raw.get("$defs", {})

    def clean(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [clean(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            if name in seen:
                raise ValueError(f"recursive schema through {name!r} cannot be inlined")
            merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return clean(merged, (*seen, name))
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("title", "$defs"):
                continue
            if key == "properties":
                out[key] = {prop: clean(schema, seen) for prop, schema in value.items()}
            elif key in _LITERAL_KEYWORDS:
                out[key] = copy.deepcopy(value)
            else:
                out[key] = clean(value, seen)
        return out

    schema = clean(raw, ())
    schema.setdefault("type", "object")
    return schema


async def call_structured(
    llm: LLM,
    *,
    owner_id: int | None,
    job: str,
    system: str,
    messages: list[dict],
    name: str,
    description: str,
    schema: type[T],
    timeout: float | None,
    max_tokens: int = 1024,
) -> T | None:
    """Ask for one call of tool `name` and return its input as a validated `schema` instance.

    None (with one log line saying why) when the model is unavailable, calls no tool, was cut off
    by max_tokens, or returns input that does not validate.
    """
    tool = {"name": name, "description": description, "input_schema": tool_input_schema(schema)}
    try:
        response = await llm.create(
            owner_id=owner_id,
            job=job,
            system=system,
            messages=messages,
            tools=[tool],
            tool_choice={"type": "tool", "name": name},
            max_tokens=max_tokens,
            timeout=timeout,
        )
    except ModelUnavailable as exc:
        log.info("structured %s/%s: no answer (%s)", job, name, exc.reason)
        return None
    block = next(
        (b for b in response.content if getattr(b, "type", None) == "tool_use" and getattr(b, "name", None) == name),
        None,
    )
    if block is None:
        log.info("structured %s/%s: the model did not call the tool", job, name)
        return None
    if response.stop_reason == "max_tokens":
        log.info("structured %s/%s: output cut off at max_tokens, not trusted", job, name)
        return None
    data = block.input
    if not isinstance(data, dict) or not data:
        log.info("structured %s/%s: empty or non-object tool input", job, name)
        return None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "(root)"
        log.info(
            "structured %s/%s: invalid tool input (%d errors; first at %s: %s)",
            job, name, exc.error_count(), where, first.get("type"),
        )
        return None

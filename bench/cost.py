"""`python -m bot bench cost [--json]`: what a conversation costs in model calls and tokens.

A scripted 50-turn conversation runs through the real core (commands parser, chat turn, tool
loop, background extraction, the AI judge, episodes) on a temporary SQLite database, against the
Anthropic stand-in server (bot/testing/anthropic_api.py) started in this process on 127.0.0.1.
The stand-in is given a responder that behaves like a plausible model: it answers in a few
sentences, calls manage_memory / reminders when asked to, extracts first-person facts from the
person's last message, classifies facts for the judge and summarises conversations. The person in
the script starts with 30 memories, has the AI judge on, and answers every conflict question with
"Mark older as past"; the conversation goes quiet after turn 25 and at the end, and the quiet
pass turns it into episodes.

Figures (per turn, measured, nothing assumed):
- model calls by job (chat, extract, judge, summary), and calls outside tool loops
  (target: at most 2 per turn on average);
- input/output tokens as the stand-in reports them in `usage` (about 4 characters a token);
- the share of turns where extraction was skipped, and whether it was skipped on every turn the
  script marks as not self-disclosing (target: all of them);
- memory-context tokens per turn (memories + episodes + procedures, by bot.tokens; target: at
  most 1,500 on every turn).
Exit status 0 whether or not the targets are met; with --json stdout carries only the JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.config import Settings

JOBS = ("chat", "extract", "judge", "summary")
PLATFORM = "console"
USER = "bench-person"

SEED_MEMORIES = [
    "My name is Sam",
    "I live in London",
    "I work as a data analyst at a bank",
    "I drive a VW Golf",
    "My daughter is called Mia",
    "My husband is called Tom",
    "I like jazz",
    "I play tennis on Saturdays",
    "I'm learning to bake sourdough",
    "My favourite film is Spirited Away",
    "I have a sister called Ana in Porto",
    "My birthday is on 12 March",
    "I support Arsenal",
    "I drink green tea every morning",
    "I'm afraid of flying",
    "My dentist is Dr. Patel",
    "I studied economics in Manchester",
    "I read mostly science fiction",
    "I keep a vegetable garden",
    "My mother lives in York",
    "I volunteer at a food bank on Sundays",
    "I use a Pixel phone",
    "I speak French and a little Spanish",
    "My best friend is called Jo",
    "I prefer window seats on trains",
    "I go to bed around 11 pm",
    "I'm saving for a house",
    "I had knee surgery in 2021",
    "My favourite cuisine is Japanese",
    "I write a small newsletter about urban cycling",
]

# (message, does it disclose something durable about the person?) — labelled by hand, not by
# the extraction pre-check, so the figure below measures the pre-check.
SCRIPT: list[tuple[str, bool]] = [
    ("hi! how are you today?", False),
    ("can you suggest something quick for dinner?", False),
    ("by the way I started learning Portuguese this spring", True),
    ("what are good apps for practising vocabulary?", False),
    ("thanks, that helps", False),
    ("we finally moved to Lisbon last month, loving it", True),
    ("which neighbourhoods are nice for a Sunday walk?", False),
    ("could you keep in mind that I'm allergic to peanuts", True),
    ("what should I order at a Portuguese bakery then?", False),
    ("my daughter Mia turned 7 last week", True),
    ("any birthday party ideas for a 7 year old?", False),
    ("set a reminder for Friday at 9 to call the bank", False),
    ("how do I politely decline a meeting?", False),
    ("I work as a data engineer at a logistics company now", True),
    ("what's a good way to structure a weekly status report?", False),
    ("For the weekly report always put the totals first", False),
    ("ok and keep it under one page, always", False),
    ("what do you remember about me?", False),
    ("I prefer oat milk in my coffee", True),
    ("recommend a coffee place near the river?", False),
    ("tell me a fun fact about octopuses", False),
    ("haha nice", False),
    ("I've been running three times a week since January", True),
    ("how should I train for a 10k?", False),
    ("what's the difference between tempo runs and intervals?", False),
    ("good morning!", False),
    ("what did we say about my weekly report?", False),
    ("we adopted a cat called Miso", True),
    ("what do cats need in the first week at home?", False),
    ("is it ok to feed her tuna?", False),
    ("my husband Tom is a nurse", True),
    ("any tips for night-shift schedules?", False),
    ("I sold my VW Golf, I cycle everywhere now", True),
    ("what bike lights do you recommend?", False),
    ("how do I fix a squeaky brake?", False),
    ("thanks a lot", False),
    ("I'm vegetarian, by the way", True),
    ("give me three dinner ideas for this week", False),
    ("what was that bakery you mentioned?", False),
    ("can you translate 'good evening' into Portuguese?", False),
    ("I'm originally from Leeds", True),
    ("what's the weather usually like in Lisbon in November?", False),
    ("should I bring an umbrella tomorrow?", False),
    ("I hate crowded places", True),
    ("suggest a quiet museum in Lisbon", False),
    ("what time do museums usually open on Sundays?", False),
    ("ok, I'll go there on Sunday", False),
    ("I'm training for the Lisbon half marathon in March", True),
    ("how long should my longest run be?", False),
    ("thanks, talk later!", False),
]
QUIET_AFTER = (25, 50)  # the conversation goes quiet after these turns


# ---------------------------------------------------------------------------------------------
# The stand-in's "model"

_FILLER = re.compile(r"^(?:by the way|btw|oh|so|well|also|actually|ok|okay|and)[\s,]+", re.I)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|we|we're|my|our)\b", re.I)


def _unescape_last_user(content: str) -> str:
    found = re.findall(r'<message role="user">\n(.*?)\n</message>', content, re.S)
    return html.unescape(found[-1]) if found else ""


def first_person_facts(text: str, limit: int = 2) -> list[str]:
    """What a careful extractor would note from one message: its first-person clauses."""
    facts = []
    for clause in re.split(r"[.;!?]|,\s*(?=\w)", text):
        clause = _FILLER.sub("", clause.strip()).strip(" ,")
        clause = re.sub(r",?\s*by the way$", "", clause, flags=re.I)
        if len(clause.split()) >= 2 and _FIRST_PERSON.match(clause) and "?" not in clause:
            facts.append(clause[0].upper() + clause[1:])
    return facts[:limit]


_TIME = re.compile(r"\bfor (?P<when>.+?) to (?P<what>.+)$", re.I)


def plausible_model(body: dict[str, Any]) -> dict[str, Any]:
    """Answer one Messages API request the way a reasonable model would (see module doc)."""
    from bot.testing.anthropic_api import text_message, tool_use_message

    forced = (body.get("tool_choice") or {}).get("name")
    last = body["messages"][-1]["content"]
    if forced == "save_facts":
        return tool_use_message("save_facts", {"facts": first_person_facts(_unescape_last_user(last))})
    if forced == "record_verdicts":
        new = html.unescape(re.search(r"<new_fact>\n(.*?)\n</new_fact>", last, re.S).group(1))  # type: ignore[union-attr]
        change = re.search(r"\b(moved|sold|now|no longer|quit|switched)\b", new, re.I) is not None
        verdicts = [
            {"old_id": int(i), "relation": "replaces" if change else "compatible", "probability": 0.9 if change else 0.7}
            for i in re.findall(r'<fact id="(\d+)">', last)
        ]
        return tool_use_message("record_verdicts", {"verdicts": verdicts})
    if forced == "save_episode":
        said = re.findall(r'<message role="user">\n(.*?)\n</message>', last, re.S)
        topics = "; ".join(html.unescape(s)[:60] for s in said[:6])
        return tool_use_message(
            "save_episode",
            {"title": "Chat with the person", "summary": f"They talked about: {topics}.", "decisions": [], "changes": []},
        )
    if forced == "save_procedure":
        said = [html.unescape(s) for s in re.findall(r'<message role="user">\n(.*?)\n</message>', last, re.S)]
        steps = [s for s in said if re.search(r"\balways\b", s, re.I)]
        if len(steps) >= 2:
            return tool_use_message("save_procedure", {"found": True, "trigger": "when writing the weekly report", "steps": steps})
        return tool_use_message("save_procedure", {"found": False})
    if isinstance(last, list):  # tool results came back: say what happened
        errors = [b for b in last if b.get("is_error")]
        if errors:
            return text_message("I tried, but that didn't work: " + str(errors[0].get("content", ""))[:120])
        return text_message("Done — I've taken care of that for you. Anything else you'd like me to do?")
    text = last if isinstance(last, str) else ""
    lowered = text.lower()
    if "keep in mind that" in lowered:
        fact = text[lowered.index("keep in mind that") + len("keep in mind that"):].strip()
        return tool_use_message("manage_memory", {"action": "add", "text": fact[0].upper() + fact[1:]})
    if "set a reminder" in lowered and (m := _TIME.search(text)):
        return tool_use_message("reminders", {"action": "set", "when": m.group("when"), "text": m.group("what")})
    if "what do you remember about me" in lowered:
        return tool_use_message("manage_memory", {"action": "list"})
    remembered = re.findall(r'\] "([^"]+)"', html.unescape(str(body.get("system", ""))))
    hint = f" Since you told me “{remembered[0]}”, I kept that in mind." if remembered else ""
    return text_message(
        f"Good question. Here is a short, practical answer to “{text[:60]}”: start small, keep it "
        f"simple, and check back with me if you want more detail.{hint}"
    )


# ---------------------------------------------------------------------------------------------
# Figures


@dataclass
class TurnRecord:
    discloses: bool
    calls: dict[str, int]
    input_tokens: int
    output_tokens: int
    tool_loop_calls: int  # chat calls after the first one of the turn
    memory_tokens: int
    fallback: str | None = None


@dataclass
class Extra:
    """Model work between turns (the quiet pass), counted into the per-turn averages."""

    calls: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0


def summarise(turns: list[TurnRecord], between: Extra, *, context_limit: int = 1500) -> dict[str, Any]:
    """The benchmark's figures from per-turn records. Pure, so its arithmetic is tested."""
    n = len(turns)
    if n == 0:
        raise ValueError("no turns")
    by_job = {job: sum(t.calls.get(job, 0) for t in turns) + between.calls.get(job, 0) for job in JOBS}
    total_calls = sum(by_job.values())
    tool_loop = sum(t.tool_loop_calls for t in turns)
    outside = total_calls - tool_loop
    skipped = [t.calls.get("extract", 0) == 0 for t in turns]
    quiet = [s for s, t in zip(skipped, turns) if not t.discloses]
    disclosing = [not s for s, t in zip(skipped, turns) if t.discloses]
    context = [t.memory_tokens for t in turns]
    input_total = sum(t.input_tokens for t in turns) + between.input_tokens
    output_total = sum(t.output_tokens for t in turns) + between.output_tokens
    skipped_quiet_share = (sum(quiet) / len(quiet)) if quiet else 1.0
    return {
        "turns": n,
        "model_calls": {
            "total": total_calls,
            "per_turn_mean": round(total_calls / n, 3),
            "by_job_per_turn": {job: round(by_job[job] / n, 3) for job in JOBS},
            "by_job_total": by_job,
            "tool_loop_calls": tool_loop,
            "outside_tool_loops_per_turn": round(outside / n, 3),
            "max_in_one_turn": max(sum(t.calls.values()) for t in turns),
        },
        "tokens": {
            "input_total": input_total,
            "output_total": output_total,
            "input_per_turn_mean": round(input_total / n, 1),
            "output_per_turn_mean": round(output_total / n, 1),
            "input_per_turn_max": max(t.input_tokens for t in turns),
        },
        "extraction": {
            "skipped_share": round(sum(skipped) / n, 3),
            "skipped_share_on_non_disclosing_turns": round(skipped_quiet_share, 3),
            "reached_model_share_on_disclosing_turns": round(sum(disclosing) / len(disclosing), 3) if disclosing else None,
            "non_disclosing_turns": len(quiet),
            "disclosing_turns": len(disclosing),
        },
        "memory_context_tokens": {"max": max(context), "mean": round(sum(context) / n, 1)},
        "fallback_turns": sum(1 for t in turns if t.fallback),
        "targets": {
            "calls_outside_tool_loops_per_turn_at_most_2": outside / n <= 2,
            f"memory_context_at_most_{context_limit}_every_turn": max(context) <= context_limit,
            "extraction_skipped_on_every_non_disclosing_turn": skipped_quiet_share == 1.0,
        },
    }


def format_text(result: dict[str, Any]) -> str:
    calls, tokens, ext, ctx = result["model_calls"], result["tokens"], result["extraction"], result["memory_context_tokens"]
    lines = [
        f"Cost of a scripted {result['turns']}-turn conversation (stand-in model, temporary SQLite)",
        f"  model calls per turn: {calls['per_turn_mean']} "
        + "(" + ", ".join(f"{job} {v}" for job, v in calls["by_job_per_turn"].items()) + ")",
        f"  outside tool loops: {calls['outside_tool_loops_per_turn']} per turn; tool-loop calls {calls['tool_loop_calls']}; "
        f"most in one turn {calls['max_in_one_turn']}",
        f"  tokens per turn: input {tokens['input_per_turn_mean']}, output {tokens['output_per_turn_mean']} "
        f"(max input {tokens['input_per_turn_max']}; as the stand-in reports usage, ~4 chars a token)",
        f"  extraction skipped: {ext['skipped_share']:.0%} of turns; on non-disclosing turns "
        f"{ext['skipped_share_on_non_disclosing_turns']:.0%}; disclosing turns that reached the model "
        f"{(ext['reached_model_share_on_disclosing_turns'] or 0):.0%}",
        f"  memory context tokens: max {ctx['max']}, mean {ctx['mean']}",
        f"  turns answered without the model: {result['fallback_turns']}",
        "Targets:",
    ]
    lines += [f"  {'met ' if ok else 'MISSED'} {name}" for name, ok in result["targets"].items()]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The run


class _Person:
    """The Sender for pushes: keeps conflict questions so the person can answer them."""

    def __init__(self) -> None:
        self.questions: list[Any] = []
        self.pushes = 0

    async def send(self, chat: Any, message: Any) -> str | None:
        self.pushes += 1
        if len(message.all_buttons) == 4:
            self.questions.append(message)
        return f"push-{self.pushes}"

    async def typing(self, chat: Any) -> None:
        return None


def _snapshot(llm: Any) -> tuple[dict[str, int], int, int]:
    calls = {job: llm.stats[job].calls for job in JOBS}
    return calls, sum(s.input_tokens for s in llm.stats.values()), sum(s.output_tokens for s in llm.stats.values())


async def run(settings: Settings, turns: int = len(SCRIPT)) -> dict[str, Any]:
    from bot.app import build_app
    from bot.features.episodes import close_quiet_conversations
    from bot.testing.anthropic_api import AnthropicStandIn
    from bot.events import ButtonPress, Incoming
    from bot.storage.models import utcnow

    server = AnthropicStandIn()
    await server.start()
    server.set_responder(plausible_model)
    tmp = tempfile.TemporaryDirectory()
    app = None
    try:
        bench_settings = settings.model_copy(
            update={
                "database_url": f"sqlite:///{Path(tmp.name) / 'bench.db'}",
                "anthropic_api_key": "bench-standin-key",  # never a real key: the stand-in only
                "anthropic_base_url": server.url,
                "llm_max_retries": 0,
                "daily_token_budget": 0,
                "rate_limit_per_minute": 0,
                "embedding_model": "none",
                "telegram_bot_token": "",
                "discord_bot_token": "",
                "allowed_users": "",
            }
        )
        app = build_app(bench_settings, embedder=None)
        core = app.core
        person = _Person()
        core.outbox.register(PLATFORM, person)
        owner = await core.memory.owner_for(PLATFORM, USER)
        assert owner is not None
        await core.memory.remember_many(owner, [(text, None) for text in SEED_MEMORIES], source="command")
        await core.memory.set_pref(owner, "ai_judge", True)
        conversation = app.conversation
        llm = app.llm
        assert conversation is not None and llm is not None
        records: list[TurnRecord] = []
        between = Extra()
        script = (SCRIPT * (turns // len(SCRIPT) + 1))[:turns]
        offset = timedelta(0)
        for i, (text, discloses) in enumerate(script, 1):
            before, in0, out0 = _snapshot(llm)
            seen = len(conversation.metrics)
            message = Incoming(platform=PLATFORM, chat_id=USER, user_id=USER, text=text, display_name="Sam", message_id=f"b{i}")
            await core.handle_message(message)
            await core.drain(timeout=60)
            after, in1, out1 = _snapshot(llm)
            metrics = list(conversation.metrics)[seen:]
            calls = {job: after[job] - before[job] for job in JOBS}
            records.append(
                TurnRecord(
                    discloses=discloses,
                    calls=calls,
                    input_tokens=in1 - in0,
                    output_tokens=out1 - out0,
                    tool_loop_calls=sum(max(0, m.chat_calls - 1) for m in metrics),
                    memory_tokens=max((m.memory_tokens for m in metrics), default=0),
                    fallback=next((m.fallback for m in metrics if m.fallback), None),
                )
            )
            while person.questions:  # the person answers: the old fact is past
                question = person.questions.pop(0)
                token = next(b.token for b in question.all_buttons if b.label.startswith("Mark older"))
                await core.handle_press(ButtonPress(PLATFORM, USER, USER, token, message_id="q"))
            if i in QUIET_AFTER or i == len(script):
                offset += timedelta(minutes=bench_settings.episode_quiet_minutes + 1, hours=1)
                before, in0, out0 = _snapshot(llm)
                await close_quiet_conversations(core, llm, utcnow() + offset)
                after, in1, out1 = _snapshot(llm)
                for job in JOBS:
                    between.calls[job] = between.calls.get(job, 0) + after[job] - before[job]
                between.input_tokens += in1 - in0
                between.output_tokens += out1 - out0
        result = summarise(records, between, context_limit=min(bench_settings.recall_max_tokens, int(bench_settings.model_context_tokens * 0.2)))
        ext = conversation.extractor.stats
        result["extraction"]["saved"] = ext.saved
        result["extraction"]["duplicates"] = ext.duplicates
        result["extraction"]["conflicts"] = ext.conflicts
        result["extraction"]["failures"] = ext.failures
        result["judge_fallbacks"] = conversation.judge_fallbacks
        result["memories_at_end"] = await core.memory.count(owner)
        return result
    finally:
        if app is not None:
            await app.close()
        await server.stop()
        tmp.cleanup()


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench cost", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    parser.add_argument("--turns", type=int, default=len(SCRIPT), help="number of turns (the script repeats)")
    args = parser.parse_args(argv)
    if args.turns < 1:
        print("error: --turns must be at least 1", file=sys.stderr)
        return 2
    result = asyncio.run(run(settings, args.turns))
    print(json.dumps(result) if args.json else format_text(result))
    return 0

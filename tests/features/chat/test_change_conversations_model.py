"""The conversations of test_change_conversations.py with a model (the real anthropic SDK against
the stand-in server), where what matters is the model's context: after a settled change, the
memory block of a question about now holds the new value as current and not the old one at all;
the block of a question about the past holds the old value, in its historical block.
"""

from __future__ import annotations

import pytest

from tests.support.chat_kit import ChatKit, anthropic_standin, kit, memory_context  # noqa: F401  (fixtures)
from tests.support.stories import STORIES, Story
from tests.support.talk import Talk

pytestmark = pytest.mark.timeout(60)

CURRENT = "Memories (current):"
HISTORICAL = "Memories (historical, not current: true in the past only):"


async def context_for(kit: ChatKit, talk: Talk, question: str) -> str:
    before = len(kit.chats())
    out = await talk.say(question)
    assert out.text == "Happy to help with that."  # the model answered
    chats = kit.chats()
    assert len(chats) == before + 1
    return memory_context(chats[-1]["system"])


def blocks(context: str) -> dict[str, str]:
    """The text of each labelled block of a memory context."""
    out, name = {}, None
    for line in context.splitlines():
        if line.startswith("Memories ("):
            name = line
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


@pytest.mark.parametrize("story", STORIES, ids=[s.id for s in STORIES])
async def test_the_models_context_after_a_change(kit: ChatKit, story: Story) -> None:
    talk = Talk(kit.core)
    await talk.say("remember: I love jazz")
    # more than recall gives a person with few memories whole, so only what matches is recalled
    owner = await kit.core.memory.owner_for("console", "u1")
    await kit.core.memory.remember_many(owner, [(f"I read a book about gardening, volume {n}", None) for n in range(20)])
    # time passes between the old fact and the change: other things are said in between, so the
    # new fact is not found as the old one's neighbour in the timeline, only as its successor
    await talk.change(story.old, story.new, between=("I play tennis on Sundays", "My sister is called Ingrid",
                                                     "I was born in Cork"))
    now = blocks(await context_for(kit, talk, story.now))
    assert story.new_marker in now.get(CURRENT, ""), now
    assert all(story.old_marker not in text for text in now.values()), now
    before = blocks(await context_for(kit, talk, story.before))
    assert story.old_marker in before.get(HISTORICAL, ""), before
    assert story.old_marker not in before.get(CURRENT, "") and story.new_marker in before.get(CURRENT, ""), before

"""The fact-carrying words of other languages, put into English before the slot rules read them
(bot.memory.rules.foreign): what changes, and what an English sentence keeps."""

from __future__ import annotations

import pytest

from bot.memory.rules.foreign import in_english
from bot.memory.rules.text import normalise


@pytest.mark.parametrize(("text", "english"), [
    ("Soy viudo", "i am widowed"),
    ("sou aposentada", "i am retired"),
    ("je suis mariée", "i am married"),
    ("ich bin verheiratet", "i am married"),
    ("estoy casada", "i am married"),
    ("Jubilado desde 2017.", "i am retired since 2017."),
    ("Divorcée depuis cinq ans", "i am divorced since cinq ans"),
    ("tell it I'm aposentada", "tell it i am retired"),
    ("vivo en Bariloche", "i live in bariloche"),
    ("eu moro em Salvador", "i live in salvador"),
    ("j'habite à Curepipe", "i live in curepipe"),
    ("abito a Cagliari", "i live in cagliari"),
    ("wir wohnen in Linz", "we live in linz"),
    ("tengo 31, recién cumplidos", "i am 31, recien cumplidos"),
    ("J'ai 41 ans et toutes mes dents", "i am 41 and toutes mes dents"),
    ("no tengo auto", "i have no car"),
    ("Mon mari says hi", "my husband says hi"),
    ("mi esposa is a nurse", "my wife is a nurse"),
    ("quinze ans de mariage", "quinze years married"),
    ("sono violinista", "i am a violinist"),
    ("sou projecionista", "i am a projectionist"),
    ("umur saya 42 tahun", "i am 42"),
    ("tinggal di Medan", "i live in medan"),
    ("udah nikah, istri saya orang Padang", "i am married, my wife orang padang"),
    ("saya tidak punya mobil", "i have no car"),
    ("Note: замужем.", "note: i am married."),
    ("я не замужем", "i am single"),
    ("мне 45 лет", "i am 45"),
    ("I'm a медсестра at the clinic", "i am a nurse at the clinic"),
    ("у меня нет машины", "i have no car"),
    ("моя дружина is Oksana", "my wife is oksana"),
])
def test_put_into_english(text: str, english: str) -> None:
    assert in_english(normalise(text)) == english


@pytest.mark.parametrize("text", [
    "Hi, I am Marie",  # a name, not "married"
    "I am a medico-legal expert",
    "ho ho ho, merry christmas",
    "I have 2 AI projects at work",
    "the divorce was hard",
    "I am fiance to Tom",  # English already: the rules read it
    "my maestro at the conservatory",
    "I live in Lyon",
    "dah, I saw a soy latte and a sono scan",  # no Malay, no "-ista" after them
    "my sister said замужем is the word",  # a word after someone else, mid-sentence
])
def test_english_is_left_alone(text: str) -> None:
    assert in_english(normalise(text)) == normalise(text)


def test_the_gate_never_skips_a_rewrite() -> None:
    """The word gate only saves time: every sentence of the persona sets reads the same with it
    as without it."""
    import json
    from pathlib import Path

    from bot.memory.rules import foreign

    def ungated(norm: str) -> str:
        for pattern, replacement in (foreign._MALAY_REWRITES + foreign._REWRITES
                                     + foreign._PARTNER_REWRITES):
            norm = pattern.sub(replacement, norm)
        return norm

    data = Path(__file__).resolve().parents[3] / "bench" / "data"
    texts = [json.loads(line)["text"] for path in sorted(data.glob("invented_facts*.jsonl"))
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(texts) > 5000
    changed = 0
    for text in texts:
        norm = normalise(text)
        assert in_english(norm) == ungated(norm), text
        changed += in_english(norm) != norm
    assert changed > 5  # the sets do mix in other languages

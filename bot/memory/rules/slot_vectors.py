"""The second signal for single-value topics: which topic a fact's embedding vector says it is
about, when the rules' patterns name none.

Why: the slot patterns (bot/memory/rules/slots.py) read the phrasings they were written for; a
job or a home said in other words ("I write code for a bank") would be missed, and then a later
change of job finds nothing to ask about. MiniLM's sentence vectors put such sentences near
others of the same topic, so a linear classifier over them (weights trained and
cross-validated across personas by `python -m bench.slot_vectors`, stored beside this file) can
name the topic. It is used only when the rules name none, and only when it is at least
`threshold` sure; it names the topic, never a value (a question it raises compares the value the
words imply, slots.implied_value, else the facts' own words; see conflict.py). Pure: a vector (and the fact's text) in, a topic or None out. Without
embeddings it is simply not asked.

A home told through local life ("Phoenix heat doesn't bother me", "wicked cold in bahstan
today") is the commonest fact the vectors alone are unsure of. Two signals together name it: the
sentence names a known city (places.py) about the speaker's own present (no one else's home, no
trip, no past, no wish), and the classifier ranks residence first of the topics with p >=
PLACE_THRESHOLD. Out of fold over the training sentences (`python -m bench.slot_vectors`),
that read 94 more of the 239 homes the classifier alone missed and called 3 other sentences a
home, at 0.50 (cities whose name is also a word or a first name count here: the classifier has
to agree). A job told only through the working day ("hanging IV bags and passing meds til 7am")
is the next: a phrase of a profession's work (bot/memory/rules/deeds.json) and the classifier
ranking job first (is_job_by_deed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from bot.memory.rules.conflict import own_present
from bot.memory.rules.places import place_in
from bot.memory.rules.slots import deed_professions

__all__ = ["CLASSES", "DEED_THRESHOLD", "LIKELY_THRESHOLD", "LIKELY_TOPICS", "likely_rows", "OTHER", "PLACE_THRESHOLD", "WEIGHTS_FILE",
           "is_home_by_place", "is_job_by_deed", "likely_slot", "vector_slot"]

OTHER = "other"
CLASSES: tuple[str, ...] = ("job", "residence", "relationship", "car", "age", "diet", OTHER)
WEIGHTS_FILE = Path(__file__).with_name("slot_vectors.json")
PLACE_THRESHOLD = 0.5
# a job told by its work (is_job_by_deed): out of fold over the training sentences (`python -m
# bench.slot_vectors`), see the figures beside DEED_THRESHOLD in the README
DEED_THRESHOLD = 0.3
# A topic the classifier finds likely but not sure (cross-validated, `python -m bench.slot_vectors`):
# it is compared only with stored facts of that very topic (conflict.assess), never stored. Only
# for the topics where, out of fold, it reads more sentences of the topic than it mistakes others
# for it by a clear margin (job +143 / -103, residence +114 / -78, relationship +66 / -36 at 0.5);
# not for car, age and diet (+34 / -43, +34 / -31, +23 / -31: "I eat gelato every day" is likely a
# diet to it)
LIKELY_THRESHOLD = 0.5
LIKELY_TOPICS = frozenset({"job", "residence", "relationship"})
# a city named about someone else, a trip, the past or a wish is not the speaker's home now
_NOT_OWN_HOME = re.compile(
    r"\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:sons?|daughters?|sisters?|brothers?|mom|mum|mother|dad|"
    r"father|friends?|mates?|cousins?|aunt|uncle|parents|kids|family|grandma|grandpa|grandmother|"
    r"grandfather|grandparents|niece|nephew|in laws|folks|colleague|coworker|boss|bf|gf)\b|"
    r"\b(?:he|she|they)\b|\b(?:visit|visited|visiting|trip|vacation|holiday|conference|back from|"
    r"week in|weekend in|flew|flying|fly|layover|landed|honeymoon|eloped|tour|stayed|someday|dream|"
    r"wish|would love|hope to|plan to|planning|thinking of|favou?rite|used to|grew up|went to|going to|"
    r"lived|was born|miss|years ago|drove|driving up|ran)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, tuple[str, ...], float] | None:
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        weights = np.asarray(data["weights"], dtype=np.float32)
        bias = np.asarray(data["bias"], dtype=np.float32)
        classes = tuple(str(c) for c in data["classes"])
        threshold = float(data["threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if weights.shape != (len(classes), weights.shape[1]) or bias.shape != (len(classes),):
        return None
    return weights, bias, classes, threshold


def _probs(vector: np.ndarray | None) -> tuple[np.ndarray, tuple[str, ...], float] | None:
    found = _weights()
    if vector is None or found is None:
        return None
    weights, bias, classes, threshold = found
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if v.shape[0] != weights.shape[1]:
        return None
    return _softmax(weights @ v + bias), classes, threshold


def _softmax(z: np.ndarray) -> np.ndarray:
    """Class probabilities along the last axis (one vector, or one row per vector)."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def likely_slot(vector: np.ndarray | None) -> str | None:
    """The single-value topic the classifier finds likely (p >= LIKELY_THRESHOLD, below its
    threshold), or None. Not a topic of the fact: the rules compare the fact with stored facts of
    this topic only (a half-sure job beside a stored job is likely the same topic; alone, it may
    be a friend's job or a wish)."""
    found = _probs(vector)
    if found is None:
        return None
    probs, classes, _ = found
    best = int(probs.argmax())
    if classes[best] in LIKELY_TOPICS and float(probs[best]) >= LIKELY_THRESHOLD:
        return classes[best]
    return None


def likely_rows(project: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], topic: str) -> list[int]:
    """The ids, newest first, of the vectors the classifier finds likely of `topic` (as
    likely_slot reads one vector). `project(weights)` gives every id with its vector times the
    weights: one product over a person's whole matrix, so that a new job finds "2nd semester of
    computer science at AU" (likely a job, stored with no topic) however unlike the two read."""
    found = _weights()
    if found is None or topic not in LIKELY_TOPICS:
        return []
    weights, bias, classes, _ = found
    ids, z = project(weights)
    if not len(ids):
        return []
    probs = _softmax(z + bias)
    best = probs.argmax(axis=1)
    want = classes.index(topic)
    hit = (best == want) & (probs[np.arange(len(ids)), want] >= LIKELY_THRESHOLD)
    return sorted((int(i) for i in ids[hit]), reverse=True)


def vector_slot(vector: np.ndarray | None, text: str | None = None) -> str | None:
    """The single-value topic the vector is about, or None (no vector, no weights, a vector of
    another model's size, "other", or not sure enough). With the fact's `text`, a home named by
    its city about the speaker's own present needs less certainty (PLACE_THRESHOLD)."""
    found = _probs(vector)
    if found is None:
        return None
    probs, classes, threshold = found
    best = int(probs.argmax())
    if classes[best] != OTHER and float(probs[best]) >= threshold:
        # someone else's job or home, or a wish, is no topic of the speaker's, however sure the
        # classifier is ("My sister keeps sending me job listings" was a job at p 0.81)
        return classes[best] if text is None or own_present(text, classes[best]) else None
    if text is not None and is_home_by_place(probs, classes, text):
        return "residence"
    if text is not None and is_job_by_deed(probs, classes, text):
        return "job"
    return None


def is_job_by_deed(probs: np.ndarray, classes: tuple[str, ...], text: str, threshold: float = DEED_THRESHOLD) -> bool:
    """Whether a text the classifier is unsure of tells the speaker's job by its work: job ranked
    first of the topics with p >= DEED_THRESHOLD, a phrase of a profession's everyday work named
    (slots.deed_professions: "hanging IV bags and passing meds til 7am"), about the speaker's own
    present (conflict.own_present: not "my sister passes meds all night")."""
    if "job" not in classes:
        return False
    job = classes.index("job")
    topics = [i for i, name in enumerate(classes) if name != OTHER]
    return (max(topics, key=lambda i: float(probs[i])) == job and float(probs[job]) >= threshold
            and bool(deed_professions(text)) and own_present(text, "job"))


def is_home_by_place(probs: np.ndarray, classes: tuple[str, ...], text: str, threshold: float = PLACE_THRESHOLD) -> bool:
    """Whether a text the classifier is unsure of tells the speaker's home by naming its city:
    residence ranked first of the topics with p >= PLACE_THRESHOLD, a known city named, and
    nothing saying it is someone else's home, a trip, the past or a wish."""
    if "residence" not in classes:
        return False
    home = classes.index("residence")
    topics = [i for i, name in enumerate(classes) if name != OTHER]
    return (max(topics, key=lambda i: float(probs[i])) == home and float(probs[home]) >= threshold
            and place_in(text, ambiguous=True) is not None and not _NOT_OWN_HOME.search(text))

"""Conflict-detection benchmark: how often the rules nominate, by kind of pair.

Why here and pure: the same pairs must be measurable through two paths that have to agree,
the pure rules (`rules_nominate`, used by the tests) and the real memory service (wired by
`python -m bot bench conflicts --data FILE [--json]`: store `old` for a fresh person, save
`new`). This module holds the loading, the scoring and the table; the CLI only supplies the
`nominates` callable and prints.

Data: JSON lines with at least `old`, `new`, `label` ("nominate" | "keep") and `kind`
(bench/data/README.md describes the conflict-pairs file).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.invented_pairs import single_valued
from bot.memory.rules.conflict import Fact, assess, detect_slot, is_candidate

__all__ = [
    "RIGHT_ANSWERS",
    "TARGETS",
    "evaluate",
    "evaluate_outcomes",
    "format_table",
    "load_pairs",
    "meets_targets",
    "rules_nominate",
]

REQUIRED_FIELDS = ("old", "new", "label", "kind")
LABELS = ("nominate", "keep")

# kind -> (comparison, threshold) on the kind's nomination rate, for the rules alone.
TARGETS: dict[str, tuple[str, float]] = {
    "slot_change": (">=", 0.90),
    "duplicate": (">=", 0.80),
    "unrelated": ("<=", 0.02),
    "unrelated_overlap": ("<=", 0.05),
    "multi_value": ("<=", 0.05),
}


# The recommended answer that is right for a nominated pair of each kind: a different value is
# Mark older as past; the same fact again is Keep both or Discard newer ("discard" also stands
# for a near duplicate that was not stored twice); a pair that should not have been asked about
# at all is best kept.
RIGHT_ANSWERS: dict[str, frozenset[str]] = {
    "slot_change": frozenset({"past"}),
    "duplicate": frozenset({"keep", "discard"}),
}
RIGHT_FOR_KEEP_LABEL = frozenset({"keep"})
RECOMMENDED_TARGET = 0.90  # share of nominated pairs whose recommended answer is right


class PairsError(ValueError):
    """A pairs file that cannot be read; the message names the line."""


def load_pairs(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSON-lines pairs file. Blank lines are skipped.

    Raises PairsError naming the (1-based) line of the first malformed line: not JSON, not an
    object, a required field missing or not a string, or an unknown label. A benchmark that
    silently skipped bad lines would report figures over a different set than the reader thinks.
    """
    pairs: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise PairsError(f"{path}: line {number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise PairsError(f"{path}: line {number}: expected a JSON object")
            for field in REQUIRED_FIELDS:
                if not isinstance(row.get(field), str):
                    raise PairsError(
                        f"{path}: line {number}: field {field!r} missing or not a string"
                    )
            if row["label"] not in LABELS:
                raise PairsError(
                    f"{path}: line {number}: label {row['label']!r} is not one of {LABELS}"
                )
            pairs.append(row)
    return pairs


def _rate(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def evaluate(
    pairs: Iterable[Mapping[str, Any]], nominates: Callable[[str, str], bool]
) -> dict[str, Any]:
    """Run `nominates(old, new)` over every pair and count.

    Returns exactly {"pairs", "by_kind": {kind: {"n", "nominated", "rate"}},
    "nomination_recall", "false_nomination_rate", "duplicate_by_topic"}: recall over label ==
    "nominate" pairs, false rate over label == "keep" pairs. Every pair counts whatever its slot.

    "duplicate_by_topic" splits the duplicate pairs by their topic ("single_value": a job, a
    home, a status, a favourite; "multi_value": a pet, a child, a drink one likes), each
    {"n", "nominated", "rate"}. Why: two facts of one person about a dog may be one dog or two
    ("my dog Rex", "the new pup Bella"), so asking about them is a judgement call, while "I'm a
    nurse" and "I work on a ward as an RN" are plainly one fact; one rate over both hides which
    of the two the rules miss.
    """
    by_kind: dict[str, dict[str, Any]] = {}
    by_topic: dict[str, dict[str, Any]] = {
        name: {"n": 0, "nominated": 0, "rate": 0.0} for name in ("single_value", "multi_value")
    }
    total = positives = negatives = true_pos = false_pos = 0
    for pair in pairs:
        nominated = bool(nominates(pair["old"], pair["new"]))
        total += 1
        kind = by_kind.setdefault(pair["kind"], {"n": 0, "nominated": 0, "rate": 0.0})
        kind["n"] += 1
        kind["nominated"] += int(nominated)
        if pair["label"] == "nominate":
            positives += 1
            true_pos += int(nominated)
        else:
            negatives += 1
            false_pos += int(nominated)
        if pair["kind"] == "duplicate":
            topic = by_topic["single_value" if single_valued(pair.get("slot") or "") else "multi_value"]
            topic["n"] += 1
            topic["nominated"] += int(nominated)
    for stats in (*by_kind.values(), *by_topic.values()):
        stats["rate"] = _rate(stats["nominated"], stats["n"])
    return {
        "pairs": total,
        "by_kind": dict(sorted(by_kind.items())),
        "nomination_recall": _rate(true_pos, positives),
        "false_nomination_rate": _rate(false_pos, negatives),
        "duplicate_by_topic": by_topic,
    }


def right_answers(pair: Mapping[str, Any]) -> frozenset[str]:
    """The recommended answers that are right for this pair: by its kind, and for a kind without
    an entry in RIGHT_ANSWERS, Keep both (a pair labelled keep should not have been asked)."""
    return RIGHT_ANSWERS.get(pair["kind"], RIGHT_FOR_KEEP_LABEL)


def evaluate_outcomes(
    pairs: Sequence[Mapping[str, Any]], outcomes: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """`evaluate` over what the service did with each pair, plus what the product adds:

    - "judge_candidate_recall": of the nominate pairs, the share whose old fact reached the AI
      judge's candidate list (`outcome["judge_candidate"]`);
    - "recommended_right": of the nominated pairs, the share whose recommended answer
      (`outcome["recommended"]`: "past", "keep", "discard" or None) is right for the pair's
      kind (RIGHT_ANSWERS); "recommended_by_kind" gives n / right / rate per kind, and
      "recommended_none" how many nominated pairs had no recommendation.
    """
    if len(pairs) != len(outcomes):
        raise ValueError("one outcome per pair")
    # evaluate() calls back once per pair, in order (identical pairs may repeat)
    it = iter(outcomes)
    result = evaluate(pairs, lambda old, new: bool(next(it)["nominated"]))
    positives = reached = nominated = right = none = 0
    rec_by_kind: dict[str, dict[str, Any]] = {}
    for pair, outcome in zip(pairs, outcomes):
        if pair["label"] == "nominate":
            positives += 1
            reached += int(bool(outcome.get("judge_candidate")))
        if not outcome["nominated"]:
            continue
        nominated += 1
        ok = outcome.get("recommended") in right_answers(pair)
        right += int(ok)
        none += int(outcome.get("recommended") is None)
        kind = rec_by_kind.setdefault(pair["kind"], {"n": 0, "right": 0, "rate": 0.0})
        kind["n"] += 1
        kind["right"] += int(ok)
    for kind in rec_by_kind.values():
        kind["rate"] = _rate(kind["right"], kind["n"])
    result["judge_candidate_recall"] = _rate(reached, positives)
    result["recommended_right"] = _rate(right, nominated)
    result["recommended_none"] = none
    result["recommended_by_kind"] = dict(sorted(rec_by_kind.items()))
    return result


def _passes(rate: float, target: tuple[str, float]) -> bool:
    op, threshold = target
    return rate >= threshold if op == ">=" else rate <= threshold


def meets_targets(result: Mapping[str, Any]) -> dict[str, bool]:
    """kind -> whether its rate meets TARGETS (only kinds present in the result and with a
    target)."""
    return {
        kind: _passes(stats["rate"], TARGETS[kind])
        for kind, stats in result["by_kind"].items()
        if kind in TARGETS
    }


def format_table(result: Mapping[str, Any]) -> str:
    """A plain-text table by kind: pairs, nominated, rate, target and a pass/fail mark."""
    header = f"{'kind':<20} {'n':>5} {'nominated':>10} {'rate':>7}  {'target':<8} ok"
    lines = [header, "-" * len(header)]
    passed = meets_targets(result)
    for kind, stats in result["by_kind"].items():
        target = TARGETS.get(kind)
        target_text = f"{target[0]} {target[1]:.2f}" if target else "-"
        mark = ("PASS" if passed[kind] else "FAIL") if target else ""
        lines.append(
            f"{kind:<20} {stats['n']:>5} {stats['nominated']:>10} {stats['rate']:>7.3f}  "
            f"{target_text:<8} {mark}".rstrip()
        )
    lines.append("-" * len(header))
    lines.append(
        f"pairs {result['pairs']}; nomination recall {result['nomination_recall']:.3f}; "
        f"false nomination rate {result['false_nomination_rate']:.3f}"
    )
    topics = result.get("duplicate_by_topic", {})
    if any(stats["n"] for stats in topics.values()):
        lines.append("duplicates by topic: " + "; ".join(
            f"{name.replace('_', '-')} {stats['nominated']} of {stats['n']} ({stats['rate']:.3f})"
            for name, stats in topics.items()))
    if "recommended_right" in result:
        right = result["recommended_right"]
        mark = "PASS" if right >= RECOMMENDED_TARGET else "FAIL"
        kinds = ", ".join(f"{kind} {stats['rate']:.3f} of {stats['n']}"
                          for kind, stats in result["recommended_by_kind"].items())
        lines.append(f"recommended button right {right:.3f} of nominated pairs (target >= "
                     f"{RECOMMENDED_TARGET:.2f}) {mark}; no recommendation {result['recommended_none']}; "
                     f"by kind: {kinds}")
        lines.append(f"judge-candidate recall {result['judge_candidate_recall']:.3f} "
                     f"(nominate pairs whose old fact reaches the AI judge's candidates)")
    return "\n".join(lines)


def rules_nominate(old: str, new: str) -> bool:
    """The pure path: store `old` as a fact (slot from detect_slot), keep it as a candidate only
    if the service would (is_candidate), then assess. A near duplicate counts as nominated,
    since the pair is then handled (not stored twice) rather than missed."""
    fact = Fact(id=1, text=old, slot=detect_slot(old))
    if not is_candidate(new, fact):
        return False
    verdict = assess(new, [fact])
    return verdict.duplicate_of is not None or bool(verdict.nominations)


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.conflicts FILE [--json]`: the rules-only figures (the CLI's
    `bot bench conflicts` runs the service path)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("data", help="JSON lines of old/new pairs")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    try:
        pairs = load_pairs(args.data)
    except (OSError, PairsError) as exc:
        parser.exit(2, f"error: {exc}\n")
    result = evaluate(pairs, rules_nominate)
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0 if all(meets_targets(result).values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

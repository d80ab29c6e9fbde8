"""The trainer of the vectors' "same fact" signal (bench/pair_vectors.py): its fit learns, its
weights apply to the raw features the product computes, and its report scores a pair through
the same rules and guards as the product."""

from __future__ import annotations

import numpy as np

from bench import pair_vectors


def test_the_fit_separates_and_its_weights_apply_to_raw_features() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 5)) * np.array([1.0, 10.0, 0.1, 1.0, 1.0]) + np.array([0, 50, 0, 0, 0])
    y = (x[:, 0] + x[:, 2] * 10 > 0).astype(np.float64)
    w, b = pair_vectors.fit(x, y)
    accuracy = float(((pair_vectors.probabilities(w, b, x) >= 0.5) == (y == 1)).mean())
    assert accuracy > 0.95


def test_the_report_scores_a_pair_as_the_product_would() -> None:
    # a neighbour the vectors are sure of is asked about; the same pair out of reach is not
    # ("I need coffee to wake up" was the pair until the twelfth pass, when the rules learnt that
    # coffee one needs is coffee one likes and nominate it themselves)
    assert pair_vectors.nominates("Espresso gets me through the morning.", "Caffeine is how I wake up.",
                                  0.7, 0.99, 0.8)
    assert not pair_vectors.nominates("Espresso gets me through the morning.", "Caffeine is how I wake up.",
                                      0.5, 0.99, 0.8)
    # and the product's guards hold: a move in German is not "the same"
    assert not pair_vectors.nominates("Ich wohne in München", "Ich wohne jetzt in Berlin", 0.9, 0.99, 0.8)

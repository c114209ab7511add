"""
Choosing the cardinality: 20 newsgroups
=======================================

The handbook's 90% rule chosen automatically, with the bounds behind it.
For each of the first three components (Schur deflation): the smallest cardinality whose
sparse component explains 90% of the dense leading component's variance on the deflated
covariance, the variance reached and the upper bound for the last few cardinalities, whether
the bounds prove the choice minimal (else the interval the minimum lies in), and the words.
The handbook (DSPCA penalty path) reports 30, 26 and 10 words.

    PYTHONPATH=src python examples/auto_cardinality_20news.py [OUT_DIR]
"""
import sys
from pathlib import Path

import numpy as np

import eigensparse as es
from eigensparse.datasets import load_20news
from eigensparse.selection import resolve_auto_cardinalities


def main(out=None):
    b = load_20news()
    op = es.as_operator(b.data)  # binary occurrences, centered implicitly
    auto = resolve_auto_cardinalities(op, 3, deflation="schur", fraction=0.9, random_state=0)
    print("chosen cardinalities:", auto.cardinalities)
    for t, c in enumerate(auto.choices):
        s = c.cardinality
        print(f"\nsparse PC {t + 1}: s = {s}  (proven minimal: {c.proven}; minimum in "
              f"[{c.s_lower}, {s}]); dense λmax = {c.dense_variance:.5g}")
        print(f"  {'k':>4s} {'v(k)/λmax reached':>18s} {'upper bound/λmax':>17s}")
        for k in range(max(1, c.s_lower - 1), s + 1):
            print(f"  {k:4d} {c.variances[k - 1] / c.dense_variance:18.4f} "
                  f"{c.upper_bounds[k - 1] / c.dense_variance:17.4f}")
        r = c.result
        top = r.support[np.argsort(-np.abs(r.loadings[r.support]))]
        print("  words:", ", ".join(b.feature_names[i] for i in top))
        print("  why:", c.reason)
        if out is not None:
            import matplotlib

            matplotlib.use("Agg")
            Path(out).mkdir(parents=True, exist_ok=True)
            c.plot(path=Path(out) / f"20news_cardinality_pc{t + 1}.png")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

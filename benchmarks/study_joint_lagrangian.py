#!/usr/bin/env python
"""How tight could a Lagrangian bound on the total of k disjoint components be? (issue 31)

A study, not a bound: it estimates what the Lagrangian relaxation of disjointness would
certify on KOS (``topics --dataset kos -k 8 -s 15 --method bipartite --scaling count
--min-df 1 --max-df 1.0``), to decide whether a certified inner solver is worth building.

For prices c_j >= 0 (one per word) and τ >= 0 (one per slot), any k disjoint supports
with |S_c| <= s satisfy

    Σ_c f(S_c) <= Σ_j c_j + k·s·τ + k·max(0, max_{|S|<=s} f(S) − Σ_{j∈S}(c_j + τ)),

f(S) = λmax(Σ_SS) (write each f(S_c) as [f(S_c) − (c + τ)(S_c)] + c(S_c) + τ|S_c|; the
supports are disjoint, so Σ_c c(S_c) <= Σ_j c_j, and Σ_c |S_c| <= k·s). The best prices
are the duals of the linear relaxation of the set-packing problem over supports,
max Σ_S z_S f(S) s.t. Σ_S z_S <= k, Σ_S |S| z_S <= k·s, Σ_{S∋j} z_S <= 1, z >= 0.

The script generates columns (supports) by a local search (add / drop one word) for the
penalized problem max f(S) − (c + τ)(S) from the current duals, and prints per round:
the restricted linear program's value (on the columns found: a lower estimate of the
relaxation), the Lagrangian value with the local search's inner value (not a bound: the
local search may miss a better support), and the words that an optimal inner support
could still contain (v_j > c_j + τ: a word of variance v_j adds at most v_j to f). Then, at the
prices of the round of least Lagrangian value, the local search from ``--check-starts``
random starts (a check of the inner values the rounds found). The last line is the one
bound it does prove at those prices: the inner problem bounded by the trace
(f(S) <= Σ_{j∈S} v_j), which shows how much a certified inner solver (a branch and bound
of the penalized problem) has to win, and the same with the bound at the root of such a
branch and bound (:func:`_root_bound`: a share θ of the prices as p_j·x_j², the rest by
Cauchy–Schwarz, and ``exact``'s soft-threshold row shift). Only a block of the working set is used
(``--block`` words of largest variance and the supports found), so every number is
relative to that block.

Usage::

    python benchmarks/study_joint_lagrangian.py                  # ~3 min, 800-word block
    python benchmarks/study_joint_lagrangian.py --block 400 --rounds 20
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import set_thread_env  # noqa: E402

N_THREADS = set_thread_env(default=2)

import numpy as np  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

from eigensparse.datasets import load_kos  # noqa: E402
from eigensparse.text import extract_topics  # noqa: E402

K, S_CARD = 8, 15


def _lmax(S, idx):
    return float(np.linalg.eigvalsh(S[np.ix_(idx, idx)])[-1]) if len(idx) else 0.0


def _local(S, price, start, s, rounds=60):
    """Local search for max f(I) − price(I), |I| <= s: best single drop or add per step."""
    I, p = list(start), S.shape[0]
    cur = _lmax(S, I) - price[I].sum()
    for _ in range(rounds):
        best, move = cur, None
        for j in I:
            J = [i for i in I if i != j]
            v = _lmax(S, J) - price[J].sum()
            if v > best + 1e-12:
                best, move = v, J
        if len(I) < s:
            cand = np.setdiff1d(np.arange(p), I)
            II = np.asarray(I, dtype=np.intp)
            idx = np.concatenate([np.broadcast_to(II, (cand.size, II.size)), cand[:, None]], axis=1)
            vals = (np.linalg.eigvalsh(S[idx[:, :, None], idx[:, None, :]])[:, -1]
                    - price[II].sum() - price[cand])
            t = int(np.argmax(vals))
            if vals[t] > best + 1e-12:
                best, move = float(vals[t]), I + [int(cand[t])]
        if move is None:
            return cur, I
        I, cur = move, best
    return cur, I


#: the soft-threshold levels of :func:`_root_bound`, as fractions of the largest |Σ_ij|
RHO_FRACTIONS = np.array([0.0, 0.01, 0.05, 0.2, 0.5])
#: the shares θ of the prices taken as p_j·x_j² (the rest by Cauchy–Schwarz)
THETAS = (0.0, 0.5, 1.0)


def _root_bound(S, price, rho, theta):
    """A bound on max_{|S|<=s} f(S) − price(S): λmax(Σ − diag(price) − Y + diag r) with
    q = (1 − θ)·price, Y_ij = sign(Σ_ij)·min(|Σ_ij|, max(ρ, √(q_iq_j))) (Y_ii = 0) and r_i the
    sum of the s − 1 largest (|Y_ij| − √(q_iq_j))₊ over j ≠ i.

    For a unit x on a support T, |T| <= s: price(T) >= θ Σ_j price_j x_j² (x_j² <= 1) plus
    (1 − θ)·price(T) >= (Σ_{j∈T} √q_j |x_j|)² (Cauchy–Schwarz) >= x'(V + diag q)x for V the
    part of Y within ±√(q_iq_j); the rest W = Y − V gives x'Wx <= Σ_i r_i x_i²
    (2|x_ix_l| <= x_i² + x_l²), as in ``exact``'s soft-threshold row shift (θ = 1 is that
    bound with the prices on the diagonal)."""
    A = np.abs(S)
    np.fill_diagonal(A, 0.0)
    q = (1.0 - theta) * price
    T = np.sqrt(np.outer(q, q))
    Y = np.sign(S) * np.minimum(A, np.maximum(rho, T))
    X = np.maximum(np.abs(Y) - T, 0.0)
    np.fill_diagonal(X, 0.0)
    r = -np.partition(-X, S_CARD - 2, axis=1)[:, :S_CARD - 1].sum(axis=1)
    M = S - Y
    M[np.diag_indices_from(M)] = np.diag(S) - price + r
    return float(np.linalg.eigvalsh(M)[-1])


def _duals(S, cols, vals, k, s):
    """The restricted relaxation's dual: min k t + k s τ + Σ c s.t. t + τ|S| + c(S) >= f(S)."""
    p, m = S.shape[0], len(cols)
    A = np.zeros((m, p + 2))
    A[:, 0] = 1.0
    for r, idx in enumerate(cols):
        A[r, 1] = len(idx)
        A[r, 2 + np.asarray(idx)] = 1.0
    res = linprog(np.r_[k, k * s, np.ones(p)], A_ub=-A, b_ub=-np.asarray(vals),
                  bounds=[(0, None)] * (p + 2), method="highs")
    return float(res.fun), float(res.x[0]), float(res.x[1]), res.x[2:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--block", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--check-starts", type=int, default=200,
                    help="random starts of the local search at the best round's prices")
    ap.add_argument("--threads", type=int, default=N_THREADS)
    args = ap.parse_args(argv)
    kos = load_kos()
    res = extract_topics(kos.data, kos.feature_names, progress=False, random_state=0,
                         n_topics=K, cardinality=S_CARD, method="bipartite", scaling="count",
                         min_df=1, max_df=1.0)
    Sw = np.asarray(res.covariance)
    pos = {w: i for i, w in enumerate(res.working_set)}
    sups = [[pos[j] for j in np.flatnonzero(c)] for c in np.asarray(res.components)]
    keep = np.union1d(np.argsort(-np.diag(Sw))[:args.block], np.concatenate(sups))
    S = Sw[np.ix_(keep, keep)]
    at = {g: i for i, g in enumerate(keep)}
    sups = [[at[g] for g in idx] for idx in sups]
    found = float(res.total_found)
    print(f"KOS bipartite k={K} s={S_CARD}: total found {found:.4f}, total_upper_bound "
          f"{res.total_upper_bound:.4f}; block of {keep.size} of {Sw.shape[0]} working-set words")
    cols = [list(x) for x in sups] + [[j] for j in range(S.shape[0])]
    vals = [_lmax(S, x) for x in cols]
    v = np.diag(S)
    best, best_prices = np.inf, None
    for it in range(args.rounds):
        t0 = time.perf_counter()
        lp, t, tau, c = _duals(S, cols, vals, K, S_CARD)
        price = c + tau
        starts = [list(x) for x in sups] + [[int(j)] for j in np.argsort(-(v - price))[:15]]
        g, new = 0.0, []
        for st in starts + cols[-20:]:
            val, idx = _local(S, price, st, S_CARD)
            g = max(g, val)
            if val > t + 1e-6 and sorted(idx) not in [sorted(x) for x in new]:
                new.append(idx)
        lag = c.sum() + K * S_CARD * tau + K * g
        if lag < best:
            best, best_prices = lag, (c, tau)
        print(f"round {it:2d}: restricted LP {lp:.4f} (t {t:.3f}, τ {tau:.4f}), Lagrangian with "
              f"the local search's inner {lag:.4f}, words v_j > c_j + τ: {(v > price).sum()}, "
              f"new columns {len(new)} ({time.perf_counter() - t0:.1f} s)", flush=True)
        if not new:
            break
        cols += new
        vals += [_lmax(S, x) for x in new]
    trace = c.sum() + K * S_CARD * tau + K * np.sort(np.maximum(v - price, 0))[::-1][:S_CARD].sum()
    print(f"least Lagrangian value with the local search's inner: {best:.4f} "
          f"({100 * (best - found) / found:.2f}% above the total found; not a bound)")
    c, tau = best_prices
    price = c + tau
    rng = np.random.default_rng(0)
    w = np.maximum(v - price, 1e-12)
    g = max(_local(S, price, list(rng.choice(v.size, size=3, replace=False, p=w / w.sum())),
                   S_CARD)[0] for _ in range(args.check_starts))
    print(f"at the best round's prices, {args.check_starts} random starts of the local search: "
          f"inner {g:.4f}, Lagrangian {c.sum() + K * S_CARD * tau + K * max(g, 0.0):.4f} "
          f"(best inner of the rounds: {(best - c.sum() - K * S_CARD * tau) / K:.4f})")
    print(f"valid at those prices with the trace as inner bound: {trace:.4f}")
    top = np.abs(S - np.diag(v)).max()
    for theta in THETAS:
        root = min(_root_bound(S, price, rho, theta) for rho in RHO_FRACTIONS * top)
        print(f"valid at those prices with the root of a penalized branch and bound as inner "
              f"bound (θ = {theta:g}): inner {root:.4f}, total "
              f"{c.sum() + K * S_CARD * tau + K * max(root, 0.0):.4f}")


if __name__ == "__main__":
    main()

"""Local improvement of the bipartite method (beyond the paper; every step is monotone):
polish, re-match on the full operator, and variable swaps ranked by a Rayleigh–Ritz bound."""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from ...operators import Operator
from .matching import match_matrix
from .search import _Gram


class _State:
    """k disjoint supports with polished loadings and their exact variances."""

    def __init__(self, supports, gram: _Gram):
        self.gram = gram
        self.supports = [np.sort(np.asarray(I, dtype=np.intp)) for I in supports]
        self.x = [None] * len(self.supports)
        self.lam = np.zeros(len(self.supports))
        for j in range(len(self.supports)):
            self._polish(j)

    def _polish(self, j):
        I = self.supports[j]
        ok = self.gram.ensure(I)
        B = self.gram.sub(I) if ok else self.gram.op.block(I)
        if I.size == 1:
            self.lam[j], self.x[j] = float(B[0, 0]), np.ones(1)
            return
        w, v = sla.eigh(B, subset_by_index=[I.size - 1, I.size - 1], driver="evr")
        self.lam[j], self.x[j] = float(w[0]), v[:, 0]

    @property
    def value(self) -> float:
        return float(self.lam.sum())

    def dense(self, p: int) -> np.ndarray:
        X = np.zeros((p, len(self.supports)))
        for j, I in enumerate(self.supports):
            X[I, j] = self.x[j]
        return X


def _rematch(state: _State, op: Operator, caps, matcher, SX: np.ndarray):
    """One re-matching step with w_j = Σx_j/√λ_j; returns a better _State or None."""
    lam = np.maximum(state.lam, 1e-300)
    new = match_matrix(SX / np.sqrt(lam), caps, matcher)
    if all(np.array_equal(a, b) for a, b in zip(new, state.supports)):
        return None
    cand = _State(new, state.gram)
    return cand if cand.value > state.value * (1 + 1e-12) + 1e-300 else None


def _swap_round(state: _State, op: Operator, SX: np.ndarray, n_replace: int = 16,
                n_swap: int = 8, n_exact: int = 96):
    """Try variable exchanges between supports and with unused variables.

    Returns the number of moves applied (0 when none improves).

    Long (about 100 lines) on purpose: the Rayleigh–Ritz bounds of every move, their
    ranking, the exact evaluation of the best ones and the application of the
    non-conflicting improving moves share the per-round arrays (owner, Σ[:, used],
    the per-component bounds); split, each piece would take and return most of them."""
    k = len(state.supports)
    p = op.n_features
    lam = state.lam
    used = np.concatenate(state.supports)
    owner = np.full(p, -1, dtype=np.intp)
    for j, I in enumerate(state.supports):
        owner[I] = j
    Cols = op.columns(used)  # p × S : Σ[:, used]
    colpos = np.full(p, -1, dtype=np.intp)
    colpos[used] = np.arange(used.size)
    dg = op.diag()
    moves = []  # (lower-bound gain, kind, a, q, b, q2_or_u)
    LB = []  # per component: (s_a, p) lower bounds on λmax(Σ[I_a − i_q + v])
    for a, I in enumerate(state.supports):
        x = state.x[a]
        sx = SX[:, a]  # Σ x_a on all variables
        Ci = Cols[:, colpos[I]]  # p × s_a: Σ[:, i_q]
        nu2 = np.clip(1.0 - x**2, 0.0, None)  # ‖x − x_q e_q‖²
        # uᵀΣu for u = x − x_q e_q
        aa = lam[a] * (1 - 2 * x**2) + x**2 * dg[I]
        bb = sx[:, None] - Ci * x[None, :]  # uᵀΣe_v, (p, s_a)
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = np.sqrt(nu2)
            an = np.where(nu2 > 1e-12, aa / np.where(nu2 > 1e-12, nu2, 1), 0.0)
            bn = np.where(nu2[None, :] > 1e-12, bb / np.where(nu > 1e-6, nu, 1)[None, :], 0.0)
        c = dg[:, None]
        half = 0.5 * (an[None, :] - c)
        lb = 0.5 * (an[None, :] + c) + np.sqrt(half**2 + bn**2)  # (p, s_a)
        lb[I, :] = -np.inf
        LB.append(lb.T)
    # replacements by unused variables
    unused = owner < 0
    for a, I in enumerate(state.supports):
        g = LB[a][:, unused] - lam[a]  # (s_a, n_unused)
        uid = np.flatnonzero(unused)
        m = min(g.size, n_replace)
        flat = np.argpartition(-g.ravel(), m - 1)[:m] if g.size > m else np.arange(g.size)
        for f in flat:
            q, t = divmod(int(f), g.shape[1])
            moves.append((float(g[q, t]), 0, a, q, -1, int(uid[t])))
    # exchanges between components
    for a in range(k):
        for b in range(a + 1, k):
            Ia, Ib = state.supports[a], state.supports[b]
            g = LB[a][:, Ib] + LB[b][:, Ia].T - lam[a] - lam[b]  # (s_a, s_b)
            m = min(g.size, n_swap)
            flat = np.argpartition(-g.ravel(), m - 1)[:m] if g.size > m else np.arange(g.size)
            for f in flat:
                q, q2 = divmod(int(f), g.shape[1])
                moves.append((float(g[q, q2]), 1, a, q, b, q2))
    if not moves:
        return 0
    moves.sort(key=lambda m: -m[0])
    moves = moves[:n_exact]
    # exact evaluation
    new_sets = []
    for _, kind, a, q, b, v in moves:
        Ia = state.supports[a].copy()
        if kind == 0:
            Ia[q] = v
            new_sets.append((Ia,))
        else:
            Ib = state.supports[b].copy()
            ia, ib = Ia[q], Ib[v]
            Ia[q], Ib[v] = ib, ia
            new_sets.append((Ia, Ib))
    allidx = np.concatenate([np.concatenate(t) for t in new_sets])
    gram = state.gram
    inpool = gram.ensure(allidx)

    def lmax(I):
        B = gram.sub(I) if inpool else op.block(I)
        return float(np.linalg.eigvalsh(B)[-1]) if I.size > 1 else float(B[0, 0])

    gains = []
    for (_, kind, a, q, b, v), sets in zip(moves, new_sets):
        if kind == 0:
            gain = lmax(sets[0]) - lam[a]
        else:
            gain = lmax(sets[0]) + lmax(sets[1]) - lam[a] - lam[b]
        gains.append(gain)
    order = np.argsort(gains)[::-1]
    touched, used_new = set(), set()
    applied = 0
    tol = 1e-10 * max(state.value, 1e-300)
    for t in order:
        gain = gains[t]
        if gain <= tol:
            break
        _, kind, a, q, b, v = moves[t]
        comps = {a} if kind == 0 else {a, b}
        if comps & touched or (kind == 0 and v in used_new):
            continue
        sets = new_sets[t]
        state.supports[a] = np.sort(sets[0])
        if kind == 1:
            state.supports[b] = np.sort(sets[1])
        else:
            used_new.add(v)
        for j in comps:
            state._polish(j)
        touched |= comps
        applied += 1
    return applied


def _refine(state: _State, op: Operator, caps, matcher, deadline, max_rounds=500):
    stats = {"rematches": 0, "swaps": 0, "rounds": 0, "before": state.value}
    p = op.n_features
    for _ in range(max_rounds):
        stats["rounds"] += 1
        SX = op.matmat(state.dense(p))
        nxt = _rematch(state, op, caps, matcher, SX)
        if nxt is not None:
            state = nxt
            stats["rematches"] += 1
            if deadline.passed():
                break
            continue
        if deadline.passed():
            break
        n = _swap_round(state, op, SX)
        stats["swaps"] += n
        if n == 0:
            stats["converged"] = True
            break
        if deadline.passed():
            break
    stats.setdefault("converged", False)
    stats["after"] = state.value
    return state, stats


def _refine_solutions(search, op: Operator, caps, matcher, gram, deadline):
    """Refine each kept solution (best first) until the deadline; (best state, stats)."""
    state, stats_all = None, []
    for _, supp_list in search.distinct():
        st, stats = _refine(_State(supp_list, gram), op, caps, matcher, deadline)
        stats_all.append(stats)
        if state is None or st.value > state.value:
            state = st
        if deadline.passed():
            break
    return state, stats_all

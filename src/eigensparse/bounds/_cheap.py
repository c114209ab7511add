"""Cheap bounds on v(s): trace, Gershgorin partner sums, λmax, the working-set split,
and their monotone envelope over s."""
from __future__ import annotations

import numpy as np
from scipy.sparse import linalg as spla

from .._linalg import lambda_max_op
from .._validation import (IntInterval, InvalidParameterError, check_indices,
                           check_square_matrix, validate_params)
from ..operators import Operator
from ._common import _POSITIVE_INT, _as_op, _check_card, _check_vector, _matrix
from ._dual import penalized_scaling_bound

__all__ = ["cardinality_upper_bounds", "full_problem_bound", "lambda_max_upper_bound",
           "partner_sums", "gershgorin_bounds", "monotone_upper_bounds"]


# --------------------------------------------------------------------------------------
# bounds on v(s)
# --------------------------------------------------------------------------------------

@validate_params({"max_cardinality": [_POSITIVE_INT], "return_partners": ["boolean"]})
def partner_sums(S: np.ndarray, max_cardinality: int, *, return_partners: bool = False):
    """Each feature's variance and the prefix sums of its strongest partners.

    Returns ``(d, P)``: ``d[i] = Σ_ii`` and ``P[i, t-1]`` = the sum of the t largest
    |Σ_ij|, j ≠ i, for t = 1..K−1 (shape (p, K−1)). The partner score of feature i at
    cardinality k is ``d[i] + P[i, k-2]``: by Gershgorin's theorem every support T of
    size k has λmax(Σ[T, T]) <= max_{i ∈ T} (Σ_ii + Σ_{j ∈ T∖i} |Σ_ij|) <= max_{i ∈ T}
    of the partner score, so a feature of small score can only sit in weak supports, and
    the largest score bounds the whole problem (:func:`gershgorin_bounds`). With
    ``return_partners``, also the partners themselves: ``(d, P, J)``, ``J[i]`` the
    indices of those t largest |Σ_ij|, strongest first (shape (p, min(K, p) − 1)).
    Costs O(p²) (a partial selection per row), memory O(p²).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.bounds import partner_sums
    >>> d, P = partner_sums(np.array([[2.0, -1, 0.5], [-1, 1, 0], [0.5, 0, 3]]), 3)
    >>> d.tolist(), P.tolist()
    ([2.0, 1.0, 3.0], [[1.0, 1.5], [1.0, 1.0], [0.5, 0.5]])
    """
    S = _matrix(S, "S")
    return _partner_sums(S, max_cardinality, return_partners=return_partners)


def _partner_sums(S: np.ndarray, max_cardinality: int, *, return_partners: bool = False):
    """:func:`partner_sums` without its checks (for callers that pass checked input)."""
    S = np.asarray(S, dtype=float)
    p = S.shape[0]
    d = np.diag(S).copy()
    K1 = max(int(max_cardinality) - 1, 0)
    t = min(K1, p - 1)
    if t <= 0:
        P, J = np.zeros((p, K1)), np.zeros((p, 0), dtype=np.intp)
        return (d, P, J) if return_partners else (d, P)
    A = np.abs(S)
    np.fill_diagonal(A, -1.0)  # below every |Σ_ij|: the diagonal is never a partner
    J = np.argpartition(-A, t - 1, axis=1)[:, :t] if t < p - 1 else np.argsort(-A, axis=1)[:, :t]
    V = np.take_along_axis(A, J, axis=1)
    order = np.argsort(-V, axis=1, kind="stable")
    J, V = np.take_along_axis(J, order, axis=1), np.maximum(np.take_along_axis(V, order, axis=1), 0.0)
    P = np.cumsum(V, axis=1)
    if P.shape[1] < K1:  # cardinalities beyond p add nothing
        P = np.hstack([P, np.repeat(P[:, -1:], K1 - P.shape[1], axis=1)])
    return (d, P, J) if return_partners else (d, P)


@validate_params({"max_cardinality": [_POSITIVE_INT]})
def gershgorin_bounds(op: Operator, max_cardinality: int) -> np.ndarray:
    """Gershgorin bounds on v(k), k = 1..K: max_i Σ_ii + the k−1 largest |Σ_ij|, j ≠ i.

    Forms the dense p × p matrix |Σ| (O(p²) memory); shape (K,). See
    :func:`partner_sums`.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import gershgorin_bounds
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> gershgorin_bounds(S, 3).round(3).tolist()  # bounds on v(1), v(2), v(3)
    [1.0, 1.954, 2.602]
    """
    S = _matrix(op, "op")
    _check_card(max_cardinality, S.shape[0], "max_cardinality")
    return _gershgorin_bounds(S, max_cardinality)


def _gershgorin_bounds(op: Operator, max_cardinality: int) -> np.ndarray:
    """:func:`gershgorin_bounds` without its checks (for callers that pass checked input)."""
    S = op.to_dense() if isinstance(op, Operator) else np.asarray(op, dtype=float)
    d, P = _partner_sums(S, max_cardinality)
    return np.asarray([float(d.max())] + [float((d + P[:, k - 2]).max())
                                          for k in range(2, int(max_cardinality) + 1)])


#: the names :func:`full_problem_bound` reports
BOUND_DENSE = "min(sum of the s largest variances, Gershgorin partner bound)"
BOUND_GERSHGORIN = "Gershgorin partner bound (largest variance plus the s−1 largest |Σij| of a row)"
BOUND_SPLIT = ("working-set split: max over r of [Gershgorin/trace bound at s−r on the working "
               "set + the r largest variances outside it]")


def _small_bounds(d: np.ndarray, P: np.ndarray, K: int, psd: bool = True) -> np.ndarray:
    """min(trace, Gershgorin) bounds on v(0..K) of the matrix with diagonal d and
    partner prefix sums P (v(0) = 0); nondecreasing. The trace bound only when the
    matrix is positive semidefinite (``psd``)."""
    ds = np.sort(d)[::-1]
    out = np.zeros(K + 1)
    m = d.size
    for k in range(1, K + 1):
        if k > m:
            out[k] = out[k - 1]
            continue
        g = float(d.max()) if k == 1 else float((d + P[:, k - 2]).max())
        out[k] = min(float(ds[:k].sum()), g) if psd else g
    return np.maximum.accumulate(out)


@validate_params({"exact_below": [IntInterval(0, None, closed="left")]})
def lambda_max_upper_bound(S: np.ndarray, *, exact_below: int = 128) -> float | None:
    """A proven upper bound on λmax(S) of a symmetric matrix: the exact value (one dense
    ``eigvalsh``) up to ``exact_below`` features; above, a Lanczos estimate t raised
    until t·I − S has a Cholesky factor (then t >= λmax exactly, at a third of the cost
    of a dense eigenvalue solve); None if no factor was found.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.bounds import lambda_max_upper_bound
    >>> A = np.random.default_rng(0).standard_normal((300, 200))
    >>> S = A.T @ A
    >>> ub = lambda_max_upper_bound(S)
    >>> top = np.linalg.eigvalsh(S)[-1]
    >>> bool(top <= ub <= top * (1 + 1e-6))
    True
    """
    S = _matrix(S, "S")
    return _lambda_max_upper_bound(S, exact_below=exact_below)


def _lambda_max_upper_bound(S: np.ndarray, *, exact_below: int = 128) -> float | None:
    """:func:`lambda_max_upper_bound` without its checks (for callers that pass checked input)."""
    import scipy.linalg as sla

    S = np.asarray(S, dtype=float)
    m = S.shape[0]
    if m <= exact_below:  # the top eigenvalue alone (LAPACK evr) beyond a few rows
        if m <= 16:
            return float(np.linalg.eigvalsh(S)[-1])
        return float(sla.eigh(S, eigvals_only=True, subset_by_index=[m - 1, m - 1],
                              driver="evr", check_finite=False)[0])
    v0 = np.ones(m) / np.sqrt(m)  # deterministic
    theta, v = spla.eigsh(S, k=1, which="LA", v0=v0, tol=1e-10)
    theta = float(theta[0])
    res = float(np.linalg.norm(S @ v[:, 0] - theta * v[:, 0]))
    scale = max(abs(theta), float(np.abs(np.diag(S)).max()), 1e-300)
    t = theta + res + 1e-9 * scale
    for _ in range(4):
        try:
            sla.cholesky(t * np.eye(m) - S, lower=True, check_finite=False)
            return float(t)
        except np.linalg.LinAlgError:
            t += 1e-3 * scale
    return None


@validate_params({"cardinality": [_POSITIVE_INT], "psd": ["boolean"]})
def full_problem_bound(S_or_op, cardinality: int, *, working_set=None, block=None,
                       diag=None, psd: bool = True, partners=None) -> tuple[float, str]:
    """A cheap valid upper bound on v(s) = max{xᵀΣx : ‖x‖ = 1, ‖x‖₀ <= s} of the whole
    problem, and the name of the bound.

    - When the whole matrix is at hand (``S_or_op`` an array, a :class:`Covariance`, or
      ``working_set`` None or every feature): the smaller of the sum of the s largest
      variances (trace bound: λmax(Σ_T) <= tr Σ_T for PSD Σ) and the Gershgorin partner
      bound of :func:`gershgorin_bounds`.
    - When only the block ``block = Σ[W, W]`` of a working set W is formed (the other
      features known by their variances ``diag``): for PSD Σ and any support T,
      λmax(Σ_T) <= λmax(Σ_{T∩W}) + λmax(Σ_{T∖W}) (for a unit x = (x₁, x₂),
      xᵀΣx <= (√(x₁ᵀΣx₁) + √(x₂ᵀΣx₂))² <= (a‖x₁‖ + c‖x₂‖)² <= a² + c² by Cauchy–Schwarz,
      with a², c² the two blocks' λmax),
      hence v(s) <= max_r [u_W(s − r) + (sum of the r largest variances outside W)],
      with u_W the bound above computed on the block.

    Valid for positive semidefinite Σ (every covariance, and every deflation of this
    library except ``hotelling`` of a non-eigenvector). With ``psd=False`` only the
    Gershgorin bound is used (valid for every symmetric Σ), and the working-set split,
    which needs PSD, is not available (``(inf, ...)``).

    Parameters
    ----------
    S_or_op : ndarray (p, p) or Operator
    cardinality : int
    working_set : array of int, optional
        W (sorted feature indices) when only Σ[W, W] is formed.
    block : ndarray (|W|, |W|), optional
        Σ[W, W]; read from the operator when omitted.
    diag : ndarray (p,), optional
        The variances Σ_ii (read from the operator when omitted).
    psd : bool, default=True
        Whether Σ is known to be positive semidefinite.
    partners : ndarray, optional
        The block's partner prefix sums ``P`` of :func:`partner_sums` (at least s − 1
        columns), when already computed.

    Returns
    -------
    (float, str)

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import full_problem_bound
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> ub, name = full_problem_bound(S, 5)   # v(5) = 3.406
    >>> round(ub, 3), name.startswith("min(")
    (3.674, True)
    >>> ub2, _ = full_problem_bound(S, 5, working_set=[0, 1, 2, 3, 6, 7, 8, 9])
    >>> bool(ub2 >= 3.406)
    True
    """
    S_or_op = S_or_op if isinstance(S_or_op, Operator) else _matrix(S_or_op, "S_or_op")
    p = S_or_op.n_features if isinstance(S_or_op, Operator) else S_or_op.shape[0]
    _check_card(cardinality, p)
    if diag is not None:
        diag = _check_vector(diag, "diag", p)
    if working_set is not None:
        working_set = check_indices(working_set, p, "working_set", allow_empty=True)
    m = p if working_set is None else working_set.size
    if block is not None:
        block = check_square_matrix(block, "block", size=m, allow_empty=True)
    if partners is not None:
        partners = np.asarray(partners, dtype=float)
        if partners.ndim != 2 or partners.shape[0] != m or partners.shape[1] < cardinality - 1:
            raise InvalidParameterError(
                f"parameter 'partners' must be the prefix sums of partner_sums(block, "
                f"{cardinality}): shape ({m}, >= {cardinality - 1}); got shape {partners.shape}.")
    return _full_problem_bound(S_or_op, cardinality, working_set=working_set, block=block,
                               diag=diag, psd=psd, partners=partners)


def _full_problem_bound(S_or_op, cardinality: int, *, working_set=None, block=None,
                        diag=None, psd: bool = True, partners=None) -> tuple[float, str]:
    """:func:`full_problem_bound` without its checks (for callers that pass checked input)."""
    s = int(cardinality)
    if isinstance(S_or_op, Operator):
        op = S_or_op
        p = op.n_features
        d = np.asarray(op.diag() if diag is None else diag, dtype=float)
    else:
        M = np.asarray(S_or_op, dtype=float)
        p = M.shape[0]
        d = np.diag(M).copy() if diag is None else np.asarray(diag, dtype=float)
        op = None
    if working_set is None or len(working_set) >= p:
        if block is None:
            block = op.to_dense() if op is not None else M
        _, P = _partner_sums(block, s)
        return float(_small_bounds(d, P, s, psd)[s]), (BOUND_DENSE if psd else BOUND_GERSHGORIN)
    if not psd:
        return float("inf"), BOUND_GERSHGORIN
    W = np.asarray(working_set, dtype=np.intp)
    if block is None:
        block = op.block(W) if op is not None else M[np.ix_(W, W)]
    block = np.asarray(block, dtype=float)
    dW = np.diag(block).copy()
    P = _partner_sums(block, s)[1] if partners is None else np.asarray(partners)
    uW = _small_bounds(dW, P, s)
    out = np.ones(p, dtype=bool)
    out[W] = False
    o = np.sort(np.maximum(d[out], 0.0))[::-1][:s]
    csum = np.concatenate([[0.0], np.cumsum(o)])
    best = max(float(uW[s - r] + csum[r]) for r in range(0, min(s, o.size) + 1))
    return best, BOUND_SPLIT


@validate_params({"cardinality": [_POSITIVE_INT], "penalized": ["boolean"],
                  "gershgorin": [None, "boolean"], "center": ["boolean"], "scale": ["boolean"]})
def cardinality_upper_bounds(op, cardinality, *, penalized=True, gershgorin=None,
                             center=True, scale=False) -> dict:
    """Valid upper bounds on v(s) = max{xᵀΣx : ‖x‖=1, ‖x‖₀ <= s}.

    Returns a dict with
    ``"lambda_max"`` (λmax(Σ)), ``"sum_top_variances"`` (sum of the s largest Σ_ii),
    ``"s_max_variance"`` (s·max Σ_ii), ``"gershgorin"`` (max_i Σ_ii + the s−1 largest
    |Σ_ij|, j ≠ i; computed when p <= 3000 or ``gershgorin=True``), ``"penalized"``
    (min_ρ λmax(C_ρ^½ΣC_ρ^½) + ρs, see :func:`penalized_scaling_bound`) and ``"best"``
    (the smallest).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import cardinality_upper_bounds
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> b = cardinality_upper_bounds(S, 3)
    >>> round(b["lambda_max"], 3), round(b["gershgorin"], 3), round(b["best"], 3)
    (4.219, 2.602, 2.602)
    >>> from eigensparse.solvers import get_solver
    >>> bool(get_solver("exhaustive").func(S, 3).variance <= b["best"])  # v(3) = 2.475
    True
    """
    op = _as_op(op, center=center, scale=scale)
    p = op.n_features
    s = _check_card(cardinality, p)
    d = np.asarray(op.diag(), dtype=float)
    ds = np.sort(d)[::-1]
    out = {"lambda_max": lambda_max_op(op), "sum_top_variances": float(ds[:s].sum()),
           "s_max_variance": float(s * ds[0])}
    if gershgorin is None:
        gershgorin = p <= 3000
    if gershgorin:
        out["gershgorin"] = float(_gershgorin_bounds(op, s)[s - 1])
    if penalized:
        r, h = penalized_scaling_bound(op)
        if r.size:
            out["penalized"] = float(np.nanmin(h + r * s))
    out["best"] = float(min(v for k, v in out.items()))
    return out


# --------------------------------------------------------------------------------------
# variance vs cardinality (handbook Fig. 7)
# --------------------------------------------------------------------------------------
def monotone_upper_bounds(bounds) -> np.ndarray:
    """Upper bounds on v(1), ..., v(K) tightened by monotonicity of the optimum.

    v(k) = max{xᵀΣx : ‖x‖=1, ‖x‖₀ <= k} is nondecreasing in k, so any bound on v(k')
    with k' >= k also bounds v(k): the result is the suffix minimum
    ``min_{k' >= k} bounds[k']`` (shape (K,), nondecreasing). A NaN entry is "no bound"
    (the bounds of larger k apply); an entry stays NaN only when no k' >= k has a bound.

    Examples
    --------
    >>> from eigensparse.bounds import monotone_upper_bounds
    >>> monotone_upper_bounds([3.0, 2.0, 4.0, 3.5]).tolist()  # a bound on v(2) bounds v(1)
    [2.0, 2.0, 3.5, 3.5]
    >>> monotone_upper_bounds([3.0, float("nan"), 4.0]).tolist()  # no bound on v(2): v(3)'s
    [3.0, 4.0, 4.0]
    """
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        b = None
    if b is None or b.ndim != 1:
        raise InvalidParameterError(
            "parameter 'bounds' must be a 1-D sequence of upper bounds on v(1), ..., v(K); "
            f"got {'shape ' + str(b.shape) if b is not None else repr(bounds)}.")
    return np.fmin.accumulate(b[::-1])[::-1]

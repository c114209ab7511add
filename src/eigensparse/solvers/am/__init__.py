"""Alternating maximization for the 8 sparse PCA formulations of 24am
(Richtárik, Takáč & Ahipasaoglu), and the truncated power method (Yuan & Zhang).

The 8 formulations (``Σ = AᵀA``, ``s`` a target cardinality, ``γ >= 0`` a penalty):

=============  ========  ========  ============  ==============================  ==========
name           variance  sparsity  usage         feasible set                    objective
=============  ========  ========  ============  ==============================  ==========
``l2_l0_con``  L2        L0        constraint    ‖x‖₂ <= 1, ‖x‖₀ <= s            ‖Ax‖₂
``l1_l0_con``  L1        L0        constraint    ‖x‖₂ <= 1, ‖x‖₀ <= s            ‖Ax‖₁
``l2_l1_con``  L2        L1        constraint    ‖x‖₂ <= 1, ‖x‖₁ <= √s           ‖Ax‖₂
``l1_l1_con``  L1        L1        constraint    ‖x‖₂ <= 1, ‖x‖₁ <= √s           ‖Ax‖₁
``l2_l0_pen``  L2        L0        penalty       ‖x‖₂ <= 1                       ‖Ax‖₂² − γ‖x‖₀
``l1_l0_pen``  L1        L0        penalty       ‖x‖₂ <= 1                       ‖Ax‖₁² − γ‖x‖₀
``l2_l1_pen``  L2        L1        penalty       ‖x‖₂ <= 1                       ‖Ax‖₂ − γ‖x‖₁
``l1_l1_pen``  L1        L1        penalty       ‖x‖₂ <= 1                       ‖Ax‖₁ − γ‖x‖₁
=============  ========  ========  ============  ==============================  ==========

Each is ``max_x max_y F(x, y)`` with ``F = yᵀAx`` (or ``(yᵀAx)²`` for the L0 penalties,
minus the penalty), and one iteration of alternating maximization is

- y-step (the *variance piece*): ``u = Ax``; ``y = u/‖u‖₂`` (L2) or ``sign(u)`` (L1);
  then ``v = Aᵀy``. For L2 only Σ is needed: ``v = Σx/√(xᵀΣx)``; L1 needs ``A`` itself
  (``op.dot`` / ``op.rdot``), so those formulations refuse a precomputed covariance.
- x-step (the *sparsity piece*): ``x = T(v)/‖T(v)‖₂`` with ``T`` the hard threshold
  ``T_s`` (keep the s largest |v_i|), the soft threshold ``V_λ`` with λ the smallest
  value making ``‖x‖₁ <= √s`` (exactly: ``λ = argmin_λ λ√s + ‖V_λ(v)‖₂``), ``U_γ``
  (keep ``v_i`` with ``v_i² > γ``) or ``V_γ`` (``sign(v_i)(|v_i| − γ)₊``).

Both steps are exact maximizations, so the objective never decreases. The code is one
loop over a declarative table (:data:`FORMULATIONS`) of these pieces.

Many starting points are advanced together: the iterates are the columns of a p×b
matrix, and each half-step is one product for the whole block. Columns are tracked
separately (each stops when its objective stalls and its support is stable) and
leave the block when they converge; the ``strategy`` option chooses how starts are
scheduled (24am's sequential / batch / all-at-once / on-the-fly).

Working sets (``screen``). With a few hundred starts the full products dominate:
on sparse text data ``Σ·X`` for 256 columns costs over 100 times one ``Σ·x``. For the
L2 formulations each start therefore runs on a *working set*, the ``m`` features of
largest variance (m = max(256, 4s)), through the dense block ``Σ[C, C]`` (one
``op.block`` call shared by all starts): that is alternating maximization restricted to
supports inside C, still monotone. When a start stalls there it is *certified* for the
full problem: every coordinate of ``v = Aᵀy`` (‖y‖₂ = 1) obeys ``|v_i| <= ‖a_i‖₂ =
√Σ_ii``, so if the x-step's threshold (the s-th largest |v_i|, √γ, γ or λ) is at least
√Σ_ii of the first feature left out, no feature outside C could enter; otherwise one
full product ``op.matmat`` decides: the full x-step either keeps the support (certified)
or the start continues from that full step on a working set holding its new support
(doubled, or full products past a size limit). Every returned point is thus a fixed
point of the unrestricted iteration, though its path may differ from the unrestricted
path (``screen=False`` gives that path exactly). Each start's working set depends only
on its own iterates, so the schedule (``strategy``) never changes the answer. On the
KOS corpus 256 starts cost about 3 times one start.

Devices. When the operator keeps its data on a device (an operator with an ``xp``
namespace other than NumPy, e.g. :class:`~eigensparse.operators.ArrayAPIData` over a
CuPy or PyTorch array), the same loop runs with the iterate blocks on that device:
the products, the x-steps and the y-steps are computed there through the array API
(array-api-compat), float32 included; only per-start scalars (objectives, thresholds,
norms) come back to the host each iteration. Device runs use full products (no
working sets), and in float32 the convergence tolerance is at least 1e-6.
"""
from __future__ import annotations

from numbers import Integral, Real

from ..._validation import Interval, InvalidParameterError, StrOptions
from ...operators import Operator
from ...registry import BoundedSolve
from .. import register
from .engine import AM_DEFAULT_STARTS, _greedy_and_coordinate_starts, _run_am
from .formulations import FORMULATIONS, INITS, STRATEGIES, Formulation, SparsityPiece, VariancePiece
from .steps import (hard_threshold, l0_penalty_threshold, l1_penalty_threshold,
                    soft_threshold_l1_ball)

__all__ = ["am", "tpower", "FORMULATIONS", "Formulation", "VariancePiece", "SparsityPiece",
           "hard_threshold", "soft_threshold_l1_ball", "l0_penalty_threshold",
           "l1_penalty_threshold"]


def _formulation_needs_data(options: dict) -> bool:
    """The registry's data requirement of ``am``: its L1-variance formulations measure
    variance by ‖Ax‖₁, which needs the data matrix A, not only Σ."""
    form = FORMULATIONS.get(options.get("formulation", "l2_l0_con"))
    return form is not None and form.variance.needs_data


#: the options ``am`` and ``tpower`` share (one iteration engine), declared once
_ITERATION_CONSTRAINTS = {
    "n_starts": [None, Interval(Integral, 1, None, closed="left")],
    "strategy": [StrOptions(set(STRATEGIES))],
    "batch_size": [None, Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "polish": [bool],
    "screen": [bool, StrOptions({"auto"})],
    "record_path": [bool],
    "init": [StrOptions(set(INITS)), "array-like"],
}


@register("am", penalized=True, needs_data=_formulation_needs_data,
          cost="O(p·b) per iteration for b starts (one Σ·V block product)",
          summary="Alternating maximization (24am), 8 formulations, many starts at once.",
          constraints={**_ITERATION_CONSTRAINTS,
                       "formulation": [StrOptions(set(FORMULATIONS))],
                       "penalty": [None, Interval(Real, 0, None, closed="left")]})
def am(op: Operator, cardinality=None, *, formulation: str = "l2_l0_con", penalty=None,
       n_starts=None, strategy: str = "otf", batch_size=None, max_iter: int = 200,
       tol: float = 1e-7, init="auto", polish: bool = True, screen="auto",
       record_path: bool = False, random_state=None):
    """Sparse PCA by alternating maximization (24am, Richtárik–Takáč–Ahipasaoglu).

    Parameters
    ----------
    op : Operator
        Represents Σ (p×p). The L1-variance formulations need the data (``op.has_data``).
    cardinality : int or None
        Target support size s (1 <= s <= p). Required by the constrained formulations.
        The result always has exactly s selected features when it is given (see Notes).
        May be None for a penalized formulation when ``penalty`` is given.
    formulation : str, default="l2_l0_con"
        ``"<variance>_<sparsity>_<con|pen>"``: variance norm ``l2`` (‖Ax‖₂) or ``l1``
        (‖Ax‖₁, robust; needs data), sparsity ``l0`` or ``l1``, as a constraint
        (‖x‖₀ <= s, resp. ‖x‖₁ <= √s) or a penalty (− γ‖x‖₀ on ‖Ax‖², resp. − γ‖x‖₁
        on ‖Ax‖). One of ``l2_l0_con``, ``l2_l1_con``, ``l2_l0_pen``, ``l2_l1_pen``,
        ``l1_l0_con``, ``l1_l1_con``, ``l1_l0_pen``, ``l1_l1_pen``. ``l2_l0_con`` is the
        truncated power method.
    penalty : float >= 0 or None
        γ of the penalized formulations, in the units of their objective (a variance
        for ``l2_l0_pen``: features with Σ_ii <= γ never enter; a standard deviation
        for ``l2_l1_pen``). With ``cardinality`` and no penalty, γ is searched (see Notes).
    n_starts : int >= 1 or None
        Number of starting points; default 16 (the number of columns of ``init`` when
        it is an array).
    strategy : {"otf", "all", "batch", "sequential"}, default="otf"
        How starts are scheduled: ``"sequential"`` one at a time; ``"batch"`` groups of
        ``batch_size`` each run to completion; ``"all"`` every start in one block;
        ``"otf"`` (on-the-fly) a block of ``batch_size`` whose converged columns are
        replaced by fresh starts until all have run. Every strategy runs every start
        to its own convergence, so all give the same best answer (up to round-off).
    batch_size : int >= 1 or None, default=None
        Block width of ``"batch"`` and ``"otf"``; None: min(256, max(8, 4·10⁶/p)) (a
        block of at most about 32 MB when full products are used).
    max_iter : int >= 1, default=200
        Iterations per start.
    tol : float >= 0, default=1e-7
        A start has converged when its support did not change and its objective rose
        by at most ``tol × |objective|`` in the last iteration.
    init : {"auto", "coordinates", "variance", "random"} or array, default="auto"
        Starting points, deterministic given ``random_state`` (features ranked by
        decreasing variance Σ_ii, ties to the lower index):
        ``"coordinates"``: e_i for the N largest-variance features; ``"variance"``:
        the indicator of the s largest-variance features (the classic truncated power
        start), then random starts if N > 1; ``"random"``:
        Gaussian vectors on the max(4s, 64) largest-variance features; ``"auto"``: the
        first ⌈N/2⌉ coordinate starts, the rest random. An array of shape (p,) or
        (p, N) gives the starts. Every start is first mapped into the feasible set by
        the x-step (e.g. hard-thresholded to s entries).
    polish : bool, default=True
        Replace the loadings on the final support by the leading eigenvector of Σ[I, I]
        (never lowers the variance); the reported variance is then λmax(Σ[I, I]).
    screen : {"auto", True, False}, default="auto"
        Working sets for the L2 formulations (module docstring): restricted iterations
        on the leading-variance features, each stalled start certified (or moved on) by
        the bound √Σ_ii or one full product. ``"auto"``: working sets of at most
        min(4096, max(256, 64·N), p/2) features, full products beyond; ``True``: no
        limit (up to Σ itself); ``False``: full products throughout (the plain
        iteration; L1 formulations always use it).
    record_path : bool, default=False
        Store every start's objective at every iteration in ``info["paths"]`` (a list
        of N lists; debugging; the objective never decreases along a path).
    random_state : None, int or Generator
        Seeds the random starts.

    Returns
    -------
    ComponentResult
        ``variance`` is xᵀΣx of the returned loadings (after polishing). ``n_iter`` the
        total number of iterations over all starts (and all AM runs of a penalty
        search); ``converged`` whether the best start
        converged. ``info``: ``formulation``, ``objective`` (best AM objective, before
        truncation and polishing), ``objectives``/``iterations``/``converged`` (per
        start, shape (N,)), ``best_start``, ``n_starts``, ``strategy``, ``batch_size``,
        ``penalty`` (γ used, or None), ``am_cardinality`` (nonzeros of the AM solution
        before it was resized to s), ``am_loadings`` (that solution, shape (p,), before
        resizing and polishing), ``truncated`` (it was resized), ``products`` (operator
        calls: matmat/dot/rdot/block), ``working_set`` (features of the final screened
        working set, p for full products); with a penalty search ``penalty_search``
        (list of (γ, nonzeros) tried) and ``penalty_exact`` (a γ giving exactly s
        nonzeros was found).

    Notes
    -----
    *Cardinality.* ``l2_l0_con``/``l1_l0_con`` return s nonzeros. The L1 constraint
    ‖x‖₁ <= √s does not fix the count: the AM solution may have more (or fewer)
    nonzeros; its s largest |x_i| are then taken as the support (completed, if needed,
    by the largest |(Σx)_i|) and polished; ``info["am_cardinality"]`` reports the
    count before. Penalized formulations with ``cardinality`` and no ``penalty``: γ is
    bisected (geometrically, up to 40 AM runs on the same starts, until γ is known to
    a relative 1e-4) for a best solution
    with exactly s nonzeros; if none is found, the solution of the γ whose count is
    closest above s is truncated to its s largest entries and polished. With both
    ``cardinality`` and ``penalty``, AM runs at that γ and the support is resized to s
    the same way. Polishing can leave a loading at exactly zero when Σ[I, I] is
    reducible (e.g. a zero-variance feature), so the loadings' support can then be
    smaller than s.

    *Best start.* The start with the largest AM objective is kept (ties: the lower
    start index); for the L2 formulations this is the largest variance before polishing.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("am").func(S, 3, random_state=0)  # formulation "l2_l0_con"
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    >>> res = get_solver("am").func(S, formulation="l2_l1_pen", penalty=0.2, random_state=0)
    >>> int(res.support.size), round(res.variance, 3)
    (9, 4.116)
    """
    return _run_am(op, cardinality, formulation=formulation, penalty=penalty, n_starts=n_starts,
               strategy=strategy, batch_size=batch_size, max_iter=max_iter, tol=tol,
               init=init, polish=polish, screen=screen, record_path=record_path,
               random_state=random_state, method="am", default_starts=AM_DEFAULT_STARTS)


@register("tpower", cost="O(p·b) per iteration for b starts (one Σ·V block product)",
          summary="Truncated power method (Yuan & Zhang): AM for l2_l0_con.",
          constraints=_ITERATION_CONSTRAINTS, bounded=BoundedSolve(starts=True))
def tpower(op: Operator, cardinality, *, n_starts=None, init="auto", strategy: str = "otf",
           batch_size=None, max_iter: int = 200, tol: float = 1e-7, polish: bool = True,
           screen="auto", record_path: bool = False, random_state=None):
    """Truncated power method (Yuan & Zhang 2013): ``x ← T_s(Σx)/‖T_s(Σx)‖``.

    The same code as :func:`am` with ``formulation="l2_l0_con"``; options as there.
    Default (``init="auto"``, ``n_starts=None``): two starts, ``e_i`` at the feature of
    largest variance and the approximate-greedy solution at cardinality s; the better
    fixed point is kept. From a single word the iteration grows the group of features
    that co-vary with it; the greedy start secures at least approximate greedy's
    variance (what each start explains on KOS: the methods page of the user guide).
    With ``n_starts`` given, ``"auto"`` means
    coordinate and random starts as in :func:`am`.
    ``init="variance"`` gives that classic start; ``n_starts > 1`` adds starts (see
    :func:`am`).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("tpower").func(S, 3, random_state=0)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    if cardinality is None:
        raise InvalidParameterError("tpower: parameter 'cardinality' is required (an int in "
                                    f"[1, n_features={op.n_features}]); got None.")
    if isinstance(init, str) and init == "auto" and n_starts is None:
        init = _greedy_and_coordinate_starts(op, cardinality)
    return _run_am(op, cardinality, formulation="l2_l0_con", penalty=None, n_starts=n_starts,
               strategy=strategy, batch_size=batch_size, max_iter=max_iter, tol=tol,
               init=init, polish=polish, screen=screen, record_path=record_path,
               random_state=random_state, method="tpower", default_starts=1)

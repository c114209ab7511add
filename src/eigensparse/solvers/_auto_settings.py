"""The tuned constants of the default method ``auto`` (:mod:`eigensparse.solvers._auto`),
in one frozen dataclass.

:data:`SETTINGS` is the one instance the method reads, once per call; a test may replace
it (``monkeypatch.setattr(_auto_settings, "SETTINGS", dataclasses.replace(SETTINGS,
...))``). The measurements behind each value are in ``docs/developer/auto.rst``.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AutoSettings", "SETTINGS", "BOUND_CERTIFIED", "BOUND_TREE", "BOUND_LAMBDA_MAX"]

#: ``info["bound"]`` of a result proven optimal by the node-limited branch and bound
BOUND_CERTIFIED = "certified by branch and bound"
#: ... and of a bound tightened by it without closing
BOUND_TREE = "branch and bound (node-limited)"
#: ... and of λmax(Σ) when it is the smallest bound
BOUND_LAMBDA_MAX = "largest eigenvalue of Σ"


@dataclass(frozen=True)
class AutoSettings:
    """Every tuned constant of ``auto``, by stage (m: working-set size, s: cardinality).

    Examples
    --------
    >>> import dataclasses
    >>> from eigensparse.solvers._auto_settings import SETTINGS
    >>> SETTINGS.dense_features, dataclasses.replace(SETTINGS, dense_features=64).dense_features
    (256, 64)
    """

    # --- working set (:mod:`~eigensparse.solvers._auto_working_set`)
    #: the warm start: the approximate greedy path (handbook Alg. 3; "greedy" for Alg. 2)
    warm_start: str = "approx"
    #: the whole problem is the working set up to this many features
    dense_features: int = 256
    #: working-set size beyond ``dense_features``: max(working_set_min, working_set_per_card·s)
    working_set_min: int = 256
    working_set_per_card: int = 8
    #: beyond ``dense_features`` the whole matrix is searched when it is held or costs at
    #: most ``global_form_flops`` multiply-adds to form, up to ``global_features`` features
    global_features: int = 4096
    global_form_flops: float = 2e10
    #: leading eigenvectors whose weights key the working set when Σ is not formed
    spectral_vectors: int = 8
    #: the partner key: Σ streamed in row blocks of at most ``partner_key_bytes`` when that
    #: costs at most ``partner_key_flops`` multiply-adds
    partner_key_flops: float = 2e10
    partner_key_bytes: int = 4 * 2**20

    # --- starts (:mod:`~eigensparse.solvers._auto_starts`)
    #: N = clip(start_flops / m², min_starts, max_starts) random and coordinate starts
    start_flops: int = 160_000
    min_starts: int = 16
    max_starts: int = 256
    #: at least this many beyond ``dense_features``
    global_min_starts: int = 16
    #: at most this many when ``init`` is given (and ``n_starts`` is not): a warm re-solve
    warm_starts: int = 16
    #: the best neighbourhoods added as starts
    neighbourhood_starts: int = 32
    #: batched power steps that rank the neighbourhoods
    hood_power_steps: int = 2
    #: beyond ``hood_probe`` partners, only the hood_rows_per_start × neighbourhood_starts
    #: neighbourhoods whose cores (``hood_probe`` strongest partners) rank best take the steps
    hood_probe: int = 10
    hood_rows_per_start: int = 4
    #: above this working-set size the products B·x run on a single-precision copy of B
    single_product_features: int = 256

    # --- multistart and swap search (:mod:`~eigensparse.solvers._auto`)
    #: distinct multistart supports compared (with the warm start's) before the swap search
    n_refine: int = 4
    #: the swap search runs from this many best distinct candidates (one up to
    #: ``swap_small`` features), fewer as s·m grows: at most swap_start_flops / (s·m)
    swap_starts: int = 8
    swap_small: int = 32
    swap_start_flops: int = 5_000
    #: ... and up to ``global_swap_starts`` under ``global_swap_start_flops`` beyond
    #: ``dense_features``
    global_swap_starts: int = 16
    global_swap_start_flops: int = 60_000
    #: exchanges evaluated exactly per swap round: swap_exact, at most swap_flops / s³, at least 4
    swap_exact: int = 32
    swap_flops: int = 50_000
    #: at most this many swap rounds
    swap_rounds: int = 64

    # --- bound and certificate (:mod:`~eigensparse.solvers._auto_bound`)
    #: λmax(Σ) joins the cheap bound: exact up to ``eig_bound_features`` (one dense
    #: eigenvalue solve), a Lanczos estimate proven by a Cholesky factor up to
    #: ``cholesky_bound_features``
    eig_bound_features: int = 128
    cholesky_bound_features: int = 640
    #: while the gap is above ``row_shift_gap`` (relative), from ``row_shift_min_features``
    #: to ``row_shift_features`` features, the row-shift dual bound: U optimized by
    #: ``row_shift_steps`` subgradient
    #: steps (Lanczos estimates of ``row_shift_lanczos`` steps) on a core of
    #: ``row_shift_core`` features
    row_shift_gap: float = 0.01
    row_shift_min_features: int = 256
    row_shift_features: int = 2048
    row_shift_core: int = 560
    row_shift_steps: int = 40
    row_shift_lanczos: int = 20
    #: up to ``certify_features`` features (whole matrix searched, no ``init``) the answer
    #: goes to the branch and bound of ``method="exact"`` for at most ``certify_nodes`` nodes
    certify_features: int = 48
    certify_nodes: int = 64
    certify_tol: float = 1e-9
    #: relative margin on a reported upper bound: rounding never puts it below a value
    bound_margin: float = 1e-10


#: the settings ``auto`` runs with
SETTINGS = AutoSettings()

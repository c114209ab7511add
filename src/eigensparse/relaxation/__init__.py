"""The DSPCA semidefinite relaxation of sparse PCA and its two engines.

Below both :mod:`eigensparse.bounds` (which bounds by its dual) and
:mod:`eigensparse.solvers` (whose ``dspca`` and ``bca`` methods search a penalty over
it): this package imports only operators, screening and the small helpers.

- :mod:`.problem`: :class:`RelaxationSolution`, the primal and dual objectives;
- :mod:`.first_order`: Nesterov's smoothed first-order method (handbook §3.1);
- :mod:`.bca`: block coordinate ascent (Zhang & El Ghaoui 2011);
- :mod:`.working_set`: variance-ordered principal blocks, warm starts, the component.
"""
from .bca import bca_relaxation
from .first_order import first_order_relaxation
from .problem import RelaxationSolution, dual_value, primal_value, threshold_point
from .working_set import PrefixBlocks, embed_warm_start, leading_support

__all__ = ["RelaxationSolution", "primal_value", "dual_value", "threshold_point", "first_order_relaxation",
           "bca_relaxation", "PrefixBlocks", "embed_warm_start", "leading_support"]

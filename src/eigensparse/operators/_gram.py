"""One policy for every data operator: form the p×p Gram matrix Σ = AᵀA once, or not.

Solvers never decide this themselves. A data operator (dense or scipy.sparse) knows
what one implicit product ``Σv = Aᵀ(Av)`` costs; a product with the formed p×p matrix
costs p² multiply-adds. :func:`gram_is_cheap` forms Σ, lazily at the first product,
when

    p <= GRAM_MAX_FEATURES   and   p² <= cost of one implicit product,

i.e. when every later product (of every start, iteration, component and bound) is at
least as cheap through Σ, and Σ fits in at most 128 MiB. Examples: dense tall data
(n >= p/2) of up to 4096 features; 20 newsgroups (16,242 × 100 sparse, 65,451
nonzeros): 10⁴ < 1.6·10⁵, so Σ is formed and each product is about 15 times cheaper;
KOS (3430 × 6906, 353,160 nonzeros): p² = 4.8·10⁷ ≫ 7·10⁵, so products stay implicit
(solvers still form the dense Gram block of their working set through ``op.block``).
Forming Σ costs about n·p² (dense) or Σ_rows nnz_r² (sparse) flops: a few implicit
products on such shapes. ``Operator.block``/``columns`` of the formed matrix are slices.
"""
from __future__ import annotations

import numpy as np

from ._base import principal_block

__all__ = ["GRAM_MAX_FEATURES", "gram_is_cheap", "GramCache"]

#: never form a Gram matrix with more features than this (4096² doubles = 128 MiB)
GRAM_MAX_FEATURES = 4096


def gram_is_cheap(n_features: int, product_cost: float) -> bool:
    """True when the p×p Gram matrix should be formed and reused.

    Parameters
    ----------
    n_features : int
        p.
    product_cost : float
        Multiply-adds of one implicit product Σ·v (e.g. 2·n·p for dense data,
        2·nnz + 2·(n + p) for sparse data with implicit centering).
    """
    p = int(n_features)
    return p <= GRAM_MAX_FEATURES and float(p) * p <= float(product_cost)


class GramCache:
    """Mixin for data operators: ``self.gram()`` is Σ (p×p, formed once) or None.

    Subclasses implement ``_product_cost()`` (multiply-adds of one implicit Σ·v) and
    ``_form_gram()`` (the dense symmetric Σ). The decision is made once per operator
    by :func:`gram_is_cheap`; restricted copies (``restrict``) slice a formed Σ.
    """

    def _product_cost(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _form_gram(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def gram(self) -> np.ndarray | None:
        """The formed Σ when the policy says it pays (formed on first use), else None."""
        if "_gram_S" not in self.__dict__:
            S = None
            if gram_is_cheap(self.n_features, self._product_cost()):
                S = self._form_gram()
                S = 0.5 * (S + S.T)
            self._gram_S = S
        return self._gram_S

    def _slice_gram(self, new, idx) -> None:
        """Give the restricted copy ``new`` the slice of a formed Σ (or let it decide)."""
        S = self.__dict__.get("_gram_S")
        if S is not None:
            new._gram_S = principal_block(S, idx)
        else:
            new.__dict__.pop("_gram_S", None)

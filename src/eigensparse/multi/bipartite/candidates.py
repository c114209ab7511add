"""Step 2 of the bipartite method: candidate matrices C (r × k, unit columns): PCA-derived
ones, an ε/2-net of the product of hemispheres, or random samples."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..._validation import InvalidParameterError

__all__ = ["epsilon_net", "build_net", "net_batches", "pca_candidates", "principal_directions",
           "random_candidates", "MAX_NET_CANDIDATES", "MAX_NET_POINTS"]

#: largest number of candidate matrices an ε-net may have, and of points on one sphere
MAX_NET_CANDIDATES = 50_000_000
MAX_NET_POINTS = 2_000_000


def epsilon_net(r: int, epsilon: float) -> np.ndarray:
    """An ε/2-net of the unit hemisphere of R^r (up to sign), shape (N, r).

    Grid of spacing h = ε/√(r−1) on each face of the cube [−1, 1]^r, projected
    radially: a point c of the sphere lies on the face through c/‖c‖_∞ within
    (h/2)√(r−1) = ε/2 of a grid point, and radial projection onto the sphere is
    1-Lipschitz outside the unit ball. Antipodal duplicates are removed (the matching
    only sees W_ij²).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite import epsilon_net
    >>> net = epsilon_net(2, 0.5)  # unit vectors of R² covering the half circle within 0.25
    >>> net.shape, bool(np.allclose(np.linalg.norm(net, axis=1), 1.0))
    ((8, 2), True)
    """
    if r == 1:
        return np.ones((1, 1))
    h = epsilon / math.sqrt(r - 1)
    m = int(math.ceil(2.0 / h)) + 1
    grid1 = np.linspace(-1.0, 1.0, m)
    faces = []
    free = np.stack(np.meshgrid(*([grid1] * (r - 1)), indexing="ij"), axis=-1).reshape(-1, r - 1)
    for axis in range(r):
        pts = np.insert(free, axis, 1.0, axis=1)  # face x_axis = +1 (−1 is its antipode)
        faces.append(pts)
    P = np.concatenate(faces)
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    # canonical sign: first nonzero coordinate positive
    first = np.argmax(np.abs(P) > 1e-12, axis=1)
    P *= np.sign(P[np.arange(P.shape[0]), first])[:, None]
    P = np.unique(np.round(P, 12), axis=0)
    return P


def _net_points_upper(r: int, epsilon: float) -> int:
    """Number of grid points :func:`epsilon_net` starts from (before removing duplicates)."""
    if r == 1:
        return 1
    m = int(math.ceil(2.0 / (epsilon / math.sqrt(r - 1)))) + 1
    return r * m ** (r - 1)


def _net_size(N: int, k: int, interchangeable: bool) -> int:
    return math.comb(N + k - 1, k) if interchangeable else N**k


def net_batches(net: np.ndarray, k: int, interchangeable: bool, batch: int):
    """Every candidate matrix of the net, ``batch`` at a time, shape (b, r, k): all k-tuples
    of net points (multisets when the components are ``interchangeable``).

    Examples
    --------
    >>> from eigensparse.multi.bipartite.candidates import epsilon_net, net_batches
    >>> net = epsilon_net(2, 0.5)
    >>> [C.shape for C in net_batches(net, 2, True, 20)]  # the 36 pairs, 20 at a time
    [(20, 2, 2), (16, 2, 2)]
    """
    it = (itertools.combinations_with_replacement(range(net.shape[0]), k) if interchangeable
          else itertools.product(range(net.shape[0]), repeat=k))
    while True:
        chunk = list(itertools.islice(it, batch))
        if not chunk:
            return
        idx = np.asarray(chunk, dtype=np.intp)  # (b, k)
        yield np.transpose(net[idx], (0, 2, 1))  # (b, r, k)


def principal_directions(r: int) -> np.ndarray:
    """Eigen-directions e_a and their ±45° mixtures (e_a ± e_b)/√2, as columns (r, m).

    Examples
    --------
    >>> from eigensparse.multi.bipartite.candidates import principal_directions
    >>> principal_directions(2).round(4).tolist()  # e_1, e_2, (e_1 ± e_2)/√2 as columns
    [[1.0, 0.0, 0.7071, 0.7071], [0.0, 1.0, 0.7071, -0.7071]]
    """
    E = np.eye(r)
    mix = [(E[:, a] + sg * E[:, b]) / math.sqrt(2)
           for a in range(r) for b in range(a + 1, r) for sg in (1.0, -1.0)]
    return np.column_stack([E] + mix)


def pca_candidates(r: int, k: int) -> np.ndarray:
    """Deterministic candidates built from the principal directions, shape (m, r, k).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite.candidates import pca_candidates
    >>> C = pca_candidates(2, 2)  # rank-2 sketch, 2 components
    >>> C.shape, bool(np.allclose(np.linalg.norm(C, axis=1), 1.0))  # unit columns
    ((4, 2, 2), True)
    """
    I = np.eye(r)
    dirs = principal_directions(r)
    n = dirs.shape[1]
    half = (k + 1) // 2
    cands = [
        I[:, np.arange(k) % r],  # component j along eigenvector j (cyclic)
        np.repeat(I[:, :1], k, axis=1),  # every component along the first eigenvector
        dirs[:, np.arange(k) % n],  # eigenvectors, then their mixtures
        # the first eigenvector for half the components, mixtures for the rest
        np.column_stack([np.repeat(I[:, :1], half, axis=1),
                         dirs[:, r + np.arange(k - half) % max(n - r, 1)] if n > r
                         else np.repeat(I[:, :1], k - half, axis=1)]),
    ]
    return np.stack(cands)


def random_candidates(rng, b: int, r: int, k: int, dirs: np.ndarray | None) -> np.ndarray:
    """Uniform samples from the product of unit spheres; a few columns are principal
    directions or their mixtures (``dirs``) to mix PCA structure into the search.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite.candidates import principal_directions, random_candidates
    >>> C = random_candidates(np.random.default_rng(0), 16, 3, 2, principal_directions(3))
    >>> C.shape, bool(np.allclose(np.linalg.norm(C, axis=1), 1.0))
    ((16, 3, 2), True)
    """
    C = rng.standard_normal((b, r, k))
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    if dirs is not None and b >= 8:
        m = b // 8  # one eighth of the batch: columns drawn from the principal directions
        pick = rng.integers(0, dirs.shape[1], size=(m, k))
        C[:m] = np.transpose(dirs[:, pick], (1, 0, 2))
    return C


def build_net(rank: int, epsilon: float, k: int, interchangeable: bool):
    """(the ε-net on one sphere, the number of candidate matrices it gives), or a clear
    error when that number exceeds ``MAX_NET_CANDIDATES``.

    Examples
    --------
    >>> from eigensparse.multi.bipartite.candidates import build_net
    >>> net, n_candidates = build_net(rank=2, epsilon=0.5, k=2, interchangeable=True)
    >>> net.shape, n_candidates  # 8 points; 8·9/2 unordered pairs of them
    ((8, 2), 36)
    """
    n_pts = _net_points_upper(rank, float(epsilon))
    n_net = _net_size(n_pts, k, interchangeable)
    net = None
    if n_pts <= MAX_NET_POINTS and n_net <= 4 * MAX_NET_CANDIDATES:  # estimates; now exact
        net = epsilon_net(rank, float(epsilon))
        n_net = _net_size(net.shape[0], k, interchangeable)
    if net is None or n_net > MAX_NET_CANDIDATES:
        raise InvalidParameterError(
            f"bipartite: parameter 'epsilon'={epsilon} gives an ε-net of {n_net:.3g} "
            f"candidate matrices for rank={rank} and {k} components (more than "
            f"{MAX_NET_CANDIDATES:.0e}); use a larger epsilon, a smaller rank, or random "
            "sampling with n_candidates=.")
    return net, n_net

"""Operators over Dask arrays: the data stay on the cluster, solvers run unchanged.

- :mod:`.client`: connecting to a scheduler, choosing the client, scattering rows;
- :mod:`.kernels`: the per-block functions that run on the workers;
- :mod:`.operator`: :class:`DaskData`, the operator that builds and reduces them;
- :mod:`.blocks`: :class:`~.blocks.RowBlocks`, row blocks read by the workers themselves
  (e.g. each its documents of a file) and sums over them added on the workers (the
  topic engine's passes on a cluster, :mod:`eigensparse.text._cluster`).

Reading a UCI bag-of-words file straight into Dask blocks is an input concern and
lives in :func:`eigensparse.io.dask_chunks.from_uci_chunks`.
"""
from .client import DaskComputeError, connect, is_dask_array, resolve_client, scatter_rows
from .operator import DaskData

__all__ = ["DaskData", "DaskComputeError", "connect", "is_dask_array", "scatter_rows",
           "resolve_client"]

"""The layer order of the package, in one place (checked by ``tests/test_layers.py``).

A module may import modules of its own layer or of layers listed before it, never one
listed after it, and the imports between modules form no circle. Each entry names a
module or a package (a package covers every module under it); the most specific entry
wins. A new module must be placed here.
"""
from __future__ import annotations

#: lowest first
LAYERS: tuple[tuple[str, ...], ...] = (
    ("eigensparse._validation", "eigensparse._constraints", "eigensparse._linalg", "eigensparse._util", "eigensparse._result",
     "eigensparse._summary",
     "eigensparse._layers", "eigensparse._printable", "eigensparse.io._atomic", "eigensparse.io._vocab",
     "eigensparse.registry", "eigensparse._budget"),
    ("eigensparse.operators",),
    ("eigensparse.io", "eigensparse.datasets"),
    ("eigensparse.screening",),
    ("eigensparse.relaxation",),
    ("eigensparse.bounds",),
    ("eigensparse.solvers",),
    ("eigensparse.diagnostics",),
    ("eigensparse.multi",),
    ("eigensparse.selection", "eigensparse._cardinality_rules", "eigensparse.plotting"),
    ("eigensparse._dispatch",),
    ("eigensparse.stability",),
    ("eigensparse.text",),
    ("eigensparse._api",),
    ("eigensparse.estimator",),
    ("eigensparse.cli", "eigensparse.__main__", "eigensparse"),
)


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module`` (dotted name), None when undeclared."""
    best, best_len = None, -1
    for i, entries in enumerate(LAYERS):
        for entry in entries:
            if (module == entry or module.startswith(entry + ".")) and len(entry) > best_len:
                best, best_len = i, len(entry)
    return best

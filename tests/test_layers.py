"""The import graph of src/eigensparse has no circle and no upward arrow.

Every ``import`` / ``from … import`` of an eigensparse module is read with :mod:`ast`
(including imports inside functions: a lazy import is still an arrow), and checked
against the layer order declared once in :mod:`eigensparse._layers`.
"""
from __future__ import annotations

import ast
from pathlib import Path

from eigensparse._layers import LAYERS, layer_of

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "eigensparse"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """eigensparse modules imported by module ``name``."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[:len(base) - node.level + (1 if is_pkg else 0)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # "from pkg import submodule" imports the submodule
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod
                       for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t.startswith("eigensparse") and t != name:
                out.add(t)
    return out


def _graph():
    mods = _modules()
    known = set(mods)
    return {m: _imports(m, p, known) for m, p in mods.items()}


def test_every_module_has_a_layer():
    undeclared = sorted(m for m in _modules() if layer_of(m) is None)
    assert not undeclared, f"place these modules in eigensparse._layers.LAYERS: {undeclared}"


def test_no_upward_import():
    upward = []
    for m, deps in _graph().items():
        for d in deps:
            lm, ld = layer_of(m), layer_of(d)
            if lm is not None and ld is not None and ld > lm:
                upward.append(f"{m} (layer {lm}: {LAYERS[lm][0]}) imports {d} "
                              f"(layer {ld}: {LAYERS[ld][0]})")
    assert not upward, "upward imports:\n" + "\n".join(sorted(upward))


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, f"import cycles: {cycles}"


def test_the_checker_sees_a_cycle_and_an_upward_arrow():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("eigensparse.solvers._greedy") > layer_of("eigensparse.operators._base")
    graph = _graph()
    assert "eigensparse.operators._base" in graph["eigensparse.operators._dense"]
    assert "eigensparse.relaxation" in graph["eigensparse.solvers._relaxation"]

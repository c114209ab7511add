"""Every module of ``src/eigensparse`` has its mirror test module.

The mirror of ``src/eigensparse/<pkg>/<mod>.py`` is ``tests/<pkg>/test_<mod>.py`` (a
leading underscore dropped: ``_greedy.py`` -> ``test_greedy.py``). Also accepted, as
rules rather than exceptions:

- ``tests/<pkg>/test_<pkg>_<mod>.py`` (``tests/cli/test_cli_fit.py`` for ``cli/_fit.py``);
- for a module of a sub-package, the sub-package's test module
  ``tests/<pkg>/test_<sub>.py`` (``solvers/_exact/_bounds.py`` -> ``tests/solvers/test_exact.py``);
- for a top-level module, a test folder of its name (``estimator.py`` -> ``tests/estimator/``);
- a package ``__init__.py`` that defines no function or class (it re-exports) needs none;
  one that does is mirrored by ``tests/<pkg>/test_<pkg>.py`` or ``tests/test_<pkg>.py``.

A mirror must exercise its module: it imports the module or a name the module defines.
:data:`MAPPING` names the few modules whose tests live in a file of another name,
:data:`PENDING` the modules about to be removed or merged (no mirror is written for
them), and :data:`NOT_YET_MIRRORED` the modules still without one: a list that may only
shrink (a module that gains a mirror must leave it, a new module may not join it).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "eigensparse"
TESTS = ROOT / "tests"

#: module (relative to src/eigensparse) -> the test files that test it under another name
MAPPING = {
    "__main__.py": ["tests/cli/test_cli.py"],  # `python -m eigensparse` run as a subprocess
    "datasets/_remote.py": ["tests/datasets/test_fetch.py"],
    "io/dask_chunks.py": ["tests/operators/test_dask.py"],
    "text/_result.py": ["tests/test_result.py"],  # one JSON schema for both result kinds
}

#: modules to be removed or merged into others (one topic engine, one validation
#: boundary); their behaviour is tested through the public functions
PENDING = {
    "_validation.py",
    "text/_bounded.py",
}

#: modules without a mirror yet; may only shrink
NOT_YET_MIRRORED: set = set()


def _modules():
    return sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py"))


def _defines_code(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for n in tree.body)


def _candidates(rel: str) -> list[Path] | None:
    """The mirror paths the rules accept for ``rel``; None: no mirror needed."""
    parts = rel.split("/")
    if parts[-1] == "__init__.py":
        if len(parts) == 1 or not _defines_code(SRC / rel):
            return None
        pkg = parts[-2].lstrip("_")
        return [TESTS.joinpath(*parts[:-1], f"test_{pkg}.py"),
                TESTS.joinpath(*parts[:-2], f"test_{pkg}.py")]
    stem = parts[-1][:-3].lstrip("_")
    here = TESTS.joinpath(*parts[:-1])
    out = [here / f"test_{stem}.py"]
    if len(parts) == 1:
        out.append(TESTS / stem)  # a folder of tests for a top-level module
    else:
        pkg = parts[-2].lstrip("_")
        out.append(here / f"test_{pkg}_{stem}.py")
        if len(parts) >= 3:  # a module of a sub-package: the sub-package's test module
            out.append(TESTS.joinpath(*parts[:-2], f"test_{pkg}.py"))
    return out


def _dotted(rel: str) -> str:
    mod = "eigensparse." + rel[:-3].replace("/", ".")
    return mod.removesuffix(".__init__")


def _defined_names(path: Path) -> set[str]:
    names = set()
    for n in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names


def _imported_names(path: Path) -> set[str]:
    """Names a package's ``__init__`` re-exports from its own modules."""
    out = set()
    for n in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(n, ast.ImportFrom) and n.level >= 1:
            out.update(a.asname or a.name for a in n.names)
    return out


def _exercises(test_file: Path, rel: str) -> bool:
    """Whether ``test_file`` (or, for a folder, one of its files) imports the module
    ``rel``, a name the module defines, or runs it (``-m eigensparse``)."""
    files = sorted(test_file.rglob("test_*.py")) if test_file.is_dir() else [test_file]
    dotted, defined = _dotted(rel), _defined_names(SRC / rel)
    parent = dotted.rsplit(".", 1)[0]
    init = SRC / rel.rsplit("/", 1)[0] / "__init__.py" if "/" in rel else None
    package_names = _defined_names(init) | _imported_names(init) if init and init.exists() else set()
    for f in files:
        text = f.read_text(encoding="utf-8")
        if rel == "__main__.py" and '"-m", "eigensparse"' in text:
            return True
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Import) and any(a.name == dotted for a in n.names):
                return True
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("eigensparse"):
                if n.module == dotted or any(f"{n.module}.{a.name}" == dotted for a in n.names):
                    return True
                # a module of a (sub-)package mirrored by the package's test module: the
                # package's names are the module's public face (``solvers.am`` re-exports
                # what ``am/engine.py`` defines, ``cli.main`` runs ``cli/_fit.py``)
                if rel.count("/") and n.module == parent:
                    if any(a.name in a.name in package_names for a in n.names):
                        return True
                if any(a.name in defined for a in n.names):
                    return True
    return False


def _mirror(rel: str) -> list[Path] | None:
    if rel in MAPPING:
        return [ROOT / f for f in MAPPING[rel]]
    cands = _candidates(rel)
    if cands is None:
        return None
    return [c for c in cands if c.exists()]


def test_every_module_has_a_mirror_that_exercises_it():
    missing, idle = [], []
    for rel in _modules():
        if rel in PENDING or rel in NOT_YET_MIRRORED:
            continue
        mirror = _mirror(rel)
        if mirror is None:
            continue
        if not mirror:
            missing.append(f"{rel}: expected one of "
                           + ", ".join(str(c.relative_to(ROOT)) for c in _candidates(rel)))
        elif not any(_exercises(m, rel) for m in mirror):
            idle.append(f"{rel}: {[str(m.relative_to(ROOT)) for m in mirror]} never imports it")
    assert not missing, "modules without a mirror test module:\n" + "\n".join(missing)
    assert not idle, "mirror test modules that do not exercise their module:\n" + "\n".join(idle)


def test_the_exception_lists_are_current():
    modules = set(_modules())
    listed = set(MAPPING) | PENDING | NOT_YET_MIRRORED
    assert not listed - modules, f"listed modules that no longer exist: {sorted(listed - modules)}"
    assert not (set(MAPPING) & (PENDING | NOT_YET_MIRRORED))
    for rel, files in MAPPING.items():
        for f in files:
            assert (ROOT / f).is_file(), f"MAPPING[{rel!r}]: {f} does not exist"
        assert not [c for c in (_candidates(rel) or []) if c.exists()], \
            f"{rel} has a mirror under the rules: remove it from MAPPING"
    gained = sorted(rel for rel in NOT_YET_MIRRORED if _mirror(rel))
    assert not gained, f"these modules now have a mirror; remove them from NOT_YET_MIRRORED: {gained}"


@pytest.mark.parametrize("rel, expected", [
    ("solvers/_greedy.py", ["tests/solvers/test_greedy.py", "tests/solvers/test_solvers_greedy.py"]),
    ("solvers/_exact/_bounds.py", ["tests/solvers/_exact/test_bounds.py",
                                   "tests/solvers/_exact/test_exact_bounds.py",
                                   "tests/solvers/test_exact.py"]),
    ("estimator.py", ["tests/test_estimator.py", "tests/estimator"]),
    ("io/__init__.py", None),  # re-exports only
])
def test_mirror_rules(rel, expected):
    got = _candidates(rel)
    assert (None if got is None else [str(c.relative_to(ROOT)) for c in got]) == expected

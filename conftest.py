"""Repository-wide pytest set-up for the docstring examples (``--doctest-modules`` over
``src/eigensparse``, see ``pyproject.toml``).

- A module that imports an optional dependency (Dask, matplotlib, CuPy, ...) at top level is
  not collected when that dependency is missing, and an example that imports one is
  skipped, so a minimal installation still runs.
- ``__main__`` modules are never imported.
- Docstring examples never touch the user's caches or data folder.
"""
import importlib.util
import re
from pathlib import Path

import pytest

_SRC = Path(__file__).resolve().parent / "src"
_TOP_IMPORT = re.compile(r"^(?:import|from)\s+([A-Za-z_]\w*)", re.M)


def _missing_top_level_import(path: Path) -> bool:
    for name in set(_TOP_IMPORT.findall(path.read_text(encoding="utf-8", errors="replace"))):
        if name in ("eigensparse", "__future__"):
            continue
        if importlib.util.find_spec(name) is None:
            return True
    return False


def pytest_ignore_collect(collection_path, config):
    path = Path(collection_path)
    if path.suffix != ".py" or _SRC not in path.parents:
        return None
    if path.name == "__main__.py" or _missing_top_level_import(path):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    """Skip a docstring example that imports an optional dependency which is missing
    (e.g. ``import dask.array as da`` without the ``dask`` extra)."""
    for item in items:
        test = getattr(item, "dtest", None)
        if test is None:
            continue
        source = "\n".join(example.source for example in test.examples)
        missing = sorted(name for name in set(_TOP_IMPORT.findall(source))
                         if name not in ("eigensparse", "__future__")
                         and importlib.util.find_spec(name) is None)
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"example needs {', '.join(missing)}"))


@pytest.fixture(autouse=True)
def _doctest_private_folders(request, tmp_path_factory, monkeypatch):
    if type(request.node).__name__ == "DoctestItem":
        monkeypatch.setenv("EIGENSPARSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path_factory.mktemp("data")))

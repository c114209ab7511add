"""Every dotted ``eigensparse.…`` name the README mentions exists where it says.

Two forms are checked: a dotted name (``eigensparse.io.tabular.load_data``, ``es.sparse_pca``
in code), and a module followed by a colon and the names it holds
(```eigensparse.bounds`: `certify_support(op, support)`, `dspca_dual_bound` ``): each of those
names must be an attribute of that module.
"""
import importlib
import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")

DOTTED = re.compile(r"(?<![\w.-])(eigensparse|es)((?:\.[A-Za-z_]\w*)+)")
MODULE_LIST = re.compile(r"`(eigensparse(?:\.\w+)*)`:\s*((?:`[^`]+`[^`;]*?)+?)(?=;|\n\n|$)", re.S)
NAME = re.compile(r"`([A-Za-z_]\w*)(?:\(|`)")


def resolve(dotted: str):
    """Import the longest importable module prefix of ``dotted``, then getattr the rest."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)  # AttributeError: the README is wrong
        return obj
    raise ImportError(dotted)


def dotted_names():
    names = set()
    for m in DOTTED.finditer(README):
        names.add("eigensparse" + m.group(2).rstrip("."))
    return sorted(names)


def module_lists():
    out = set()
    for m in MODULE_LIST.finditer(README):
        for name in NAME.findall(m.group(2)):
            out.add(f"{m.group(1)}.{name}")
    return sorted(out)


def test_the_readme_mentions_names():
    assert len(dotted_names()) >= 10
    assert "eigensparse.io.tabular.load_data" in dotted_names()
    assert "eigensparse.bounds.certify_support" in module_lists()


@pytest.mark.parametrize("dotted", dotted_names() + module_lists())
def test_readme_name_resolves(dotted):
    try:
        resolve(dotted)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"README.md mentions {dotted}, which does not exist ({exc})")

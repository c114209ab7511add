"""Sphinx configuration of the eigensparse documentation.

Build: ``pip install -e ".[docs]"`` then ``sphinx-build -W -b html docs docs/_build/html``.
The gallery executes every example. Each runs standalone from its download (no helper module
beside it); the two whose data set must be downloaded (Senate votes, S&P 500) print how to
supply it and stop when it is neither cached nor downloadable.
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
if SRC.is_dir():  # a source checkout: document the code next to these pages
    sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE / "_ext"))
EXAMPLES = HERE.parent / "examples"
os.environ.setdefault("MPLBACKEND", "Agg")
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import eigensparse  # noqa: E402

project = "eigensparse"
author = "the eigensparse developers"
copyright = "the eigensparse developers"  # noqa: A001
release = eigensparse.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "methods_table",
    "plain_docstrings",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
root_doc = "index"
default_role = "obj"

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

intersphinx_mapping = {}  # no network during the build

try:
    import pydata_sphinx_theme  # noqa: F401

    html_theme = "pydata_sphinx_theme"
    html_theme_options = {"navigation_with_keys": False}
except ImportError:  # the docs extra installs it; build anyway with the default theme
    html_theme = "alabaster"
html_title = f"eigensparse {release}"
html_static_path = []

sphinx_gallery_conf = {
    "examples_dirs": str(EXAMPLES),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # every example executes
    "ignore_pattern": r"__init__\.py$",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "min_reported_time": 1,
}

"""The documentation builds without warnings (``sphinx-build -W``); skipped without Sphinx.

The docs and examples are copied to a temporary folder so that the generated pages
(autosummary stubs, the sphinx-gallery output) never land in the source tree.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

for _module in ("sphinx", "numpydoc", "sphinx_gallery", "matplotlib"):
    pytest.importorskip(_module)


@pytest.mark.slow(seconds=30)  # the whole Sphinx build, gallery included
def test_docs_build_without_warnings(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs",
                    ignore=shutil.ignore_patterns("_build", "generated", "auto_examples",
                                                  "sg_execution_times.rst"))
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("__pycache__", "out"))
    env = dict(os.environ)
    import eigensparse

    package_root = str(Path(eigensparse.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(tmp_path / "docs"), str(tmp_path / "html")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    html = tmp_path / "html"
    assert (html / "user_guide" / "02_methods.html").read_text().count("tpower") >= 1
    assert (html / "generated" / "eigensparse.datasets.fetch_mnist.html").exists()
    figures = sorted(p.name for p in (html / "_images").glob("sphx_glr_*_001.png"))
    assert figures == ["sphx_glr_dspca_20newsgroups_001.png", "sphx_glr_dspca_pitprops_001.png",
                       "sphx_glr_topics_kos_001.png"]

"""The repository stands alone: no machine paths, no sibling folders; the README's code runs."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# built by concatenation so that this file does not match itself
FORBIDDEN = re.compile("|".join([
    re.escape("/" + "work/"), re.escape("/" + "home/"), re.escape("/" + "root/"),
    re.escape("/" + "Users/"), re.escape(".." + "/shared"), re.escape(".." + "\\shared"),
    r"(?<![\w])[A-Z]:" + r"\\\\?[A-Za-z]",  # C:\ drive paths
]))


def tracked_files():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True, timeout=60).stdout
        files = [ROOT / f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.SubprocessError):  # not a git checkout: walk the tree
        skip = {".git", ".venv", "build", "_build", "__pycache__", ".pytest_cache"}
        files = []
        for folder, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
            files += [Path(folder) / n for n in names]
    return [f for f in files if f.is_file()]


def text_of(path):
    raw = path.read_bytes()
    if b"\0" in raw[:8192]:
        return None  # binary
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_machine_paths_or_sibling_folders():
    hits = []
    for f in tracked_files():
        text = text_of(f)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            m = FORBIDDEN.search(line)
            if m:
                hits.append(f"{f.relative_to(ROOT)}:{n}: {m.group(0)!r} in {line.strip()[:100]}")
    assert not hits, "absolute machine paths or sibling folders in the repository:\n" + "\n".join(hits)


def test_forbidden_pattern_catches_examples():
    for bad in ("/" + "work/shared/data", "/" + "home/me/x", "/" + "root/.cache",
                ".." + "/shared/data", "C:" + "\\Users\\me"):
        assert FORBIDDEN.search(f"path = '{bad}'"), bad
    for ok in ("~/.cache/eigensparse", "not available.\\nTried:\\n", "https://a.org/x/y"):
        assert not FORBIDDEN.search(ok), ok


def readme_blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_has_python_blocks():
    assert len(readme_blocks()) >= 2


def test_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    for i, block in enumerate(readme_blocks()):
        try:
            exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"README python block {i + 1} failed: {type(exc).__name__}: {exc}")
    out = capsys.readouterr().out
    assert out.strip(), "the README blocks print their results"


EXAMPLE_SCRIPTS = sorted((ROOT / "examples").glob("*.py"))


def test_examples_import_nothing_beside_them():
    # a gallery download is one file: it may import the package, never a sibling module
    siblings = {p.stem for p in (ROOT / "examples").glob("*.py")}
    for script in EXAMPLE_SCRIPTS:
        imported = set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", script.read_text(),
                                  re.M))
        assert not imported & siblings, f"{script.name} imports {imported & siblings}"


@pytest.mark.slow(seconds=5)  # a new interpreter, a real fit
@pytest.mark.parametrize("script", EXAMPLE_SCRIPTS, ids=lambda p: p.stem)
def test_example_runs_standalone_from_its_download(script, tmp_path):
    # the file alone in an empty folder, as a reader downloads it; data sets that must be
    # downloaded come from an empty data home (no network: the script says so and stops)
    alone = tmp_path / "download" / script.name
    alone.parent.mkdir()
    alone.write_bytes(script.read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg",
           "EIGENSPARSE_DATA": str(tmp_path / "data_home")}
    r = subprocess.run([sys.executable, alone.name, str(tmp_path / "out")], cwd=alone.parent,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and r.stdout.strip()
    if "skipped:" not in r.stdout:
        assert any((tmp_path / "out").glob("*.png")), r.stdout[-500:]

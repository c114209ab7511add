"""The repository stands alone: no machine paths, no sibling folders; the README's code runs."""
import os
import re
import subprocess
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

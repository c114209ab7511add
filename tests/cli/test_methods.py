"""The ``methods`` command (``cli/_methods.py``): every registered method listed."""
from eigensparse.cli import main
from eigensparse.registry import method_names


def test_methods_lists(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    listed = {line.split()[0] for line in out.splitlines() if line.strip()}
    missing = [m for m in method_names() if m not in listed and m not in out]
    assert not missing, missing
    assert "greedy" in listed

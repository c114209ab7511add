"""The command line: ``python -m eigensparse``, its help and its exit codes
(each command has its own test module: ``test_topics``, ``test_cli_fit``, ...)."""
import re
import subprocess
import sys

import pytest

from eigensparse.cli import build_parser, main


def test_help_on_every_command(run_cli):
    r = subprocess.run([sys.executable, "-m", "eigensparse", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "usage:" in r.stdout
    for argv in (["topics", "--help"], ["methods", "--help"], ["fit", "--help"]):
        status, out, _ = run_cli(argv)
        assert status == 0 and "usage:" in out


def test_bad_option_value_exits_nonzero():
    r = subprocess.run([sys.executable, "-m", "eigensparse", "topics", "--dataset", "kos", "-k", "0"],
                       capture_output=True, text=True)
    # the constraint of n_components, the one the Python front doors use
    assert r.returncode == 2 and "-k/--n-components: expected an int in the range [1, inf)" in r.stderr


@pytest.mark.parametrize("argv, match", [
    (["topics"], "needs DOCWORD and VOCAB"),
    (["topics", "--dataset", "kos", "-s", "99999"], "cardinality"),
    (["topics", "--dataset", "kos", "--method", "nope"], "method"),
    (["topics", "/nonexistent/docword.txt", "/nonexistent/vocab.txt"], "does not exist"),
])
def test_cli_errors_are_one_line(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("eigensparse: error:") and "\n" not in err
    assert re.search(match, err)


def test_parser_has_one_command_per_module_and_reports_unknown_arguments(capsys):
    parser = build_parser()
    assert set(parser.commands) == {"topics", "fit", "methods"}
    args = parser.parse_args(["topics", "--dataset", "kos", "-k", "3"])
    assert (args.command, args.dataset, args.n_components) == ("topics", "kos", 3)
    assert main([]) == 0 and "usage: eigensparse" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["methods", "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("eigensparse methods: error: unrecognized "
                                                  "arguments: --bogus")

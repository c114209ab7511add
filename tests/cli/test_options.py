"""Options shared by the data commands (``cli/_options.py``): the argparse types and
their one-line errors, the method flags generated from the registry, and their reading
back into the keyword arguments of the front doors."""
import argparse
import inspect
from types import SimpleNamespace

import pytest

from eigensparse.cli._options import (CLIError, OneLineParser, _value, add_method_options,
                                      cardinality_value, check_output_paths, constrained,
                                      fraction_value, method_options, positive_int)
from eigensparse.registry import methods


def test_positive_int_and_cardinality_at_the_boundary():
    assert positive_int("1") == 1
    with pytest.raises(argparse.ArgumentTypeError, match="positive integer, got 0"):
        positive_int("0")
    with pytest.raises(argparse.ArgumentTypeError, match="positive integer, got '2.5'"):
        positive_int("2.5")
    assert cardinality_value(" AUTO ") == "auto" and cardinality_value("7") == 7
    with pytest.raises(argparse.ArgumentTypeError, match="positive integer or 'auto', got '0'"):
        cardinality_value("0")


def test_constrained_types_use_the_front_doors_constraint():
    assert fraction_value("1.0") == 1.0 and fraction_value("0.25") == 0.25
    for bad in ("1.5", "0", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"expected .*got '{bad}'"):
            fraction_value(bad)
    k = constrained("n_components")
    assert k.__name__ == "n_components" and k("1") == 1
    with pytest.raises(argparse.ArgumentTypeError, match=r"range \[1, inf\), got '0'"):
        k("0")


def test_method_option_values():
    assert [_value(t) for t in ("3", "-2", "0.5", "1e-3", "True", "false", "None", "exact")] == \
        [3, -2, 0.5, 1e-3, True, False, None, "exact"]
    assert type(_value("3")) is int


def test_one_line_parser_errors_name_the_program(capsys):
    p = OneLineParser(prog="eigensparse demo")
    p.add_argument("-k", type=positive_int)
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["-k", "0"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1
    assert err.startswith("eigensparse demo: error: argument -k: expected a positive integer, got 0")
    assert err.rstrip().endswith("(see `eigensparse demo --help`)")


def test_output_paths_of_the_wrong_kind_are_refused_by_option(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("x")
    check_output_paths(SimpleNamespace(json=str(tmp_path / "new" / "r.json"), plot=str(tmp_path / "p")))
    with pytest.raises(CLIError, match="^--json "):
        check_output_paths(SimpleNamespace(json=str(tmp_path)))  # a directory
    with pytest.raises(CLIError, match="^--json .*[Nn]ot a directory"):
        check_output_paths(SimpleNamespace(json=str(f / "r.json")))
    with pytest.raises(CLIError, match="--plot .*is a file; give a directory"):
        check_output_paths(SimpleNamespace(plot=str(f)))
    with pytest.raises(CLIError, match="--cache-dir .*is a file; give a directory"):
        check_output_paths(SimpleNamespace(cache_dir=str(f)))


def test_method_flags_come_from_the_registry_and_only_given_ones_reach_the_method():
    p = OneLineParser(prog="t")
    add_method_options(p)
    flags = {a.dest[4:] for a in p._actions if a.dest.startswith("opt_")}
    options = {name for spec in methods() for name in spec.options
               if name != "penalty" and name not in spec.deprecated}
    assert flags == options and flags
    assert method_options(p.parse_args([])) == {}
    # a non-boolean option: its value read by _value
    name = next(n for n in sorted(flags) for spec in methods() if n in spec.options
                and not isinstance(inspect.signature(spec.func).parameters[n].default, bool))
    args = p.parse_args(["--" + name.replace("_", "-"), "7"])
    assert method_options(args) == {name: 7}


def test_output_paths_empty_unwritable_or_special_are_refused_in_one_line(tmp_path, monkeypatch):
    """``--json ''`` was ignored silently (exit 0, nothing written); a --plot on a device
    or FIFO read 'is a file'; a --json below a file was '[Errno 20] ...'; a directory
    that refuses files failed after the whole fit, naming a temporary file."""
    import os

    for opt, dest in (("--json", "json"), ("--plot", "plot"), ("--cache-dir", "cache_dir")):
        with pytest.raises(CLIError, match=f"^{opt}: empty path"):
            check_output_paths(SimpleNamespace(**{dest: ""}))
    with pytest.raises(CLIError, match="^--plot /dev/null: is a character device; give a directory"):
        check_output_paths(SimpleNamespace(plot="/dev/null"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(CLIError, match=r"^--plot .*fifo: is a FIFO \(named pipe\); give a directory"):
        check_output_paths(SimpleNamespace(plot=str(fifo)))
    f = tmp_path / "a_file"
    f.write_text("x")
    with pytest.raises(CLIError, match="^--json .*: a parent of it is not a directory"):
        check_output_paths(SimpleNamespace(json=str(f / "r.json")))
    ro = tmp_path / "ro"
    ro.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) == str(ro)
                        else real_access(p, mode))  # as a non-root user sees chmod 555
    with pytest.raises(CLIError, match=r"^--json .*r\.json: cannot write in .*ro \(permission denied\)"):
        check_output_paths(SimpleNamespace(json=str(ro / "r.json")))
    with pytest.raises(CLIError, match=r"^--plot .*: cannot write in .*ro \(permission denied\)"):
        check_output_paths(SimpleNamespace(plot=str(ro / "new" / "plots")))


def test_a_dangling_link_as_plot_directory_is_written_through(tmp_path):
    """The link's target directory is created and the figures land there ('[Errno 17]
    File exists' before), as --json writes through a dangling link."""
    pytest.importorskip("matplotlib")
    import numpy as np

    from eigensparse.cli import main

    data = tmp_path / "d.csv"
    np.savetxt(data, np.random.default_rng(0).standard_normal((30, 5)), delimiter=",")
    link = tmp_path / "plots"
    link.symlink_to(tmp_path / "target")
    assert main(["fit", str(data), "-k", "1", "-s", "2", "--plot", str(link)]) == 0
    assert link.is_symlink() and (tmp_path / "target" / "loadings.png").is_file()

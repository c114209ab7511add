"""``eigensparse fit DATA``: sparse principal components of a data file or of a precomputed
covariance.

The file is read by :func:`eigensparse.io.tabular.load_data` (one-line ``FILE: line N:``
errors), solved by :func:`eigensparse.sparse_pca` with the options the estimator takes, and
printed and written by :mod:`._report`: the same table and JSON schema as ``topics``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

from ._options import (CLIError, add_center_options, add_component_options, add_method_options,
                       add_output_options, solver_arguments)
from .._printable import printable
from ._report import print_timings, report

__all__ = ["add_parser", "run", "SCALINGS"]

#: ``--scaling`` values: as the data are, or each feature scaled to unit variance
SCALINGS = ("none", "unit")

FORMATS = """\
data formats (chosen by the file name's suffix):
  .csv .tsv .txt .dat  a numeric table, optionally gzip-compressed (.csv.gz); comma for
                       .csv, tab for .tsv, else the first of tab/comma/semicolon in the first
                       line, else white space (--delimiter overrides). A first row that is
                       not numeric is the header: its names label the features in the table
                       and the JSON. A first column that is not numeric (dates, ids) is
                       skipped as row labels.
  .npy                 a 2-D numeric NumPy array (numpy.save; no pickled objects)
  .npz                 a scipy sparse matrix (scipy.sparse.save_npz); centered implicitly,
                       never densified
  .mtx .mtx.gz         Matrix Market (coordinate or array)
rows are samples and columns are features. With --covariance the file holds a precomputed
covariance (or correlation) matrix instead, in any of these formats: square and symmetric,
used as is (--no-center and --scaling do not apply).

A bad file gives one line, "eigensparse: error: FILE: line N: what is wrong", exit status 2.

examples:
  eigensparse fit returns.csv -k 3 -s 5
  eigensparse fit X.npz -k 2 -s 10 --method greedy --json out.json
  eigensparse fit corr.csv --covariance -k 2 -s 4 --deflation projection --plot figs
"""


def add_parser(sub):
    from .._dispatch import DEFAULT_DEFLATION

    p = sub.add_parser(
        "fit", help="sparse principal components of a data file (CSV/TSV, .npy, .npz, Matrix "
                    "Market) or a precomputed covariance",
        description="Find k sparse principal components of the data in DATA (samples x "
                    "features) or of the covariance matrix in DATA (--covariance), and print "
                    "each with its features ordered by |loading|, its cardinality and the "
                    "variance it explains.",
        epilog=FORMATS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", metavar="DATA", help="data file (formats below)")
    p.add_argument("--covariance", action="store_true",
                   help="DATA is a precomputed covariance matrix (square, symmetric)")
    p.add_argument("--delimiter", metavar="CHAR", type=_delimiter,
                   help="cell separator of a text table (default: from the suffix or the first "
                        "line; 'tab' or '\\t' for a tab)")
    add_component_options(p, default_cardinality="min(10, n_features)",
                          default_deflation=DEFAULT_DEFLATION, default_components=None)
    add_center_options(p)
    p.add_argument("--scaling", default="none", choices=SCALINGS,
                   help="none (default) or unit: each feature scaled to unit variance "
                        "(correlation PCA; sparse input stays sparse)")
    add_output_options(p)
    add_method_options(p)
    p.set_defaults(run=run)
    return p


def _delimiter(text):
    if text in ("tab", "\\t", "\t"):
        return "\t"
    if len(text) != 1:
        raise argparse.ArgumentTypeError(f"expected one character or 'tab', got {text!r}")
    return text


def run(args) -> int:
    from .._api import sparse_pca
    from ..io.tabular import TABLE_SUFFIXES, load_data

    if args.covariance and (args.scaling != "none" or not args.center):
        flag = f"--scaling {args.scaling}" if args.scaling != "none" else "--no-center"
        raise CLIError(f"{flag} does not apply to --covariance: a covariance file is used as "
                       "is (give a correlation matrix for unit-variance features)")
    if args.delimiter is not None and not _is_table(args.data):
        raise CLIError(f"--delimiter applies to text tables ({', '.join(TABLE_SUFFIXES)}); "
                       f"{args.data} is not one")
    t0 = time.perf_counter()
    data, names, name = load_data(args.data, covariance=args.covariance, delimiter=args.delimiter)
    t1 = time.perf_counter()
    res = sparse_pca(data, center=args.center, scale=args.scaling == "unit",
                     **solver_arguments(args))
    t2 = time.perf_counter()
    res = replace(res, feature_names=list(names))
    report(res, args, header=_header(name, data, res, args), extra_json=_about(args, data))
    print_timings(args, load=t1 - t0, solve=t2 - t1)
    if args.plot:
        from ._plot import plot_fit_diagnostics

        for path in plot_fit_diagnostics(res, data, args, name=name):
            print(f"wrote {printable(path)}", file=sys.stderr)
    return 0


def _is_table(path) -> bool:
    from ..io.tabular import TABLE_SUFFIXES

    base = os.path.basename(path).lower()
    return os.path.splitext(base.removesuffix(".gz"))[1] in TABLE_SUFFIXES


def _header(name, data, res, args) -> str:
    p = data.shape[1]
    what = (f"covariance of {p} features" if args.covariance
            else f"{data.shape[0]} samples x {p} features")
    how = "" if args.covariance else f", center={args.center}, scaling={args.scaling}"
    return f"{name}: {what}, method={res.method}, deflation={res.deflation}{how}"


def _about(args, data) -> dict:
    """The keys ``fit`` adds to the JSON schema: the input file and its preprocessing."""
    return {"data": os.path.basename(args.data), "covariance": bool(args.covariance),
            "n_samples": None if args.covariance else int(data.shape[0]),
            "center": None if args.covariance else bool(args.center),
            "scaling": None if args.covariance else args.scaling}

"""Command line: ``eigensparse`` / ``python -m eigensparse``.

Commands
--------
topics   sparse principal components of a bag-of-words corpus, printed as topics
methods  list the available methods
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

__all__ = ["main", "build_parser"]


class _CLIError(Exception):
    pass


class _OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (``eigensparse: error: ...``, exit code 2)."""

    def error(self, message):
        self.exit(2, f"eigensparse: error: {message} (see `{self.prog} --help`)\n")


def _one_line_warnings():
    """Show warnings as one line each on stderr (``eigensparse: warning: ...``)."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"eigensparse: warning: {str(message).splitlines()[0]}", file=sys.stderr)

    old, warnings.showwarning = warnings.showwarning, show
    return old


def _check_output_paths(args):
    """Refuse output paths of the wrong kind before any work (one line, naming the option)."""
    json_path, plot_dir = getattr(args, "json", None), getattr(args, "plot", None)
    if json_path and os.path.isdir(json_path):
        raise _CLIError(f"--json {json_path}: is a directory; give a file name")
    if json_path and not os.path.isdir(os.path.dirname(os.path.abspath(json_path))) \
            and os.path.exists(os.path.dirname(os.path.abspath(json_path))):
        raise _CLIError(f"--json {json_path}: its parent is not a directory")
    if plot_dir and os.path.exists(plot_dir) and not os.path.isdir(plot_dir):
        raise _CLIError(f"--plot {plot_dir}: is a file; give a directory")
    cache_dir = getattr(args, "cache_dir", None)
    if cache_dir and os.path.exists(cache_dir) and not os.path.isdir(cache_dir):
        raise _CLIError(f"--cache-dir {cache_dir}: is a file; give a directory")


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def build_parser() -> argparse.ArgumentParser:
    from ._api import DEFAULT_DEFLATION, DEFAULT_METHOD
    from .multi import DEFLATIONS

    parser = _OneLineParser(
        prog="eigensparse",
        description="Sparse principal component analysis: readable components with an exact "
                    "number of nonzero loadings.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    t = sub.add_parser(
        "topics", help="topics of a bag-of-words corpus (UCI docword/vocab files or a bundled dataset)",
        description="Find k sparse principal components of a document-term matrix and print each "
                    "as a topic: its words ordered by |loading|, cardinality and variance explained.")
    t.add_argument("docword", nargs="?", help="UCI docword.NAME.txt[.gz] file")
    t.add_argument("vocab", nargs="?", help="UCI vocab.NAME.txt file (one word per line)")
    t.add_argument("--dataset", choices=["kos", "20news"],
                   help="use a bundled dataset instead of files")
    t.add_argument("-k", "--n-components", type=_positive_int, default=5, help="number of topics (default 5)")
    t.add_argument("-s", "--cardinality", type=_positive_int, default=10,
                   help="words per topic (default 10)")
    t.add_argument("--method", default=None,
                   help="solver (default: bca, the 2011 paper's topic workflow; "
                        f"{DEFAULT_METHOD} with --scale/--scheduler/--device); see `eigensparse methods`")
    t.add_argument("--deflation", default=DEFAULT_DEFLATION, choices=list(DEFLATIONS),
                   help=f"deflation scheme (default {DEFAULT_DEFLATION})")
    t.add_argument("--penalty", type=float, default=None,
                   help="penalty rho for penalized methods (bca, dspca, am with a *_pen formulation); "
                        "without it bca/dspca search the penalty that gives the cardinality")
    b = t.add_argument_group("joint method options (--method bipartite)")
    b.add_argument("--rank", type=_positive_int, help="sketch rank (default 4)")
    g = b.add_mutually_exclusive_group()
    g.add_argument("--n-candidates", type=_positive_int, help="random candidate matrices (default 20000)")
    g.add_argument("--epsilon", type=float, help="enumerate an epsilon-net instead (0 < epsilon < 1)")
    b.add_argument("--time-budget", type=float, help="seconds for the joint method (> 0)")
    b.add_argument("--no-refine", dest="refine", action="store_false", default=True,
                   help="skip the local improvement")
    c = t.add_mutually_exclusive_group()
    c.add_argument("--center", dest="center", action="store_true", default=True,
                   help="center the word counts (default)")
    c.add_argument("--no-center", dest="center", action="store_false",
                   help="use uncentered co-occurrences SᵀS/n")
    t.add_argument("--scale", action="store_true", help="scale words to unit variance")
    t.add_argument("--random-state", type=int, default=0, help="seed (default 0)")
    where = t.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute on the Dask cluster whose scheduler is at ADDRESS "
                            "(e.g. tcp://10.0.0.1:8786); the corpus is sent to the workers in row blocks")
    where.add_argument("--device", metavar="DEVICE",
                       help="compute on this device (e.g. cuda, cuda:1; needs PyTorch or CuPy); "
                            "the document-term matrix is densified there")
    t.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds allowed to reach the scheduler (default 10)")
    t.add_argument("--json", metavar="FILE", help="also write the topics as JSON to FILE (atomically)")
    t.add_argument("-v", "--verbose", action="store_true", help="print timings (phase table)")
    o = t.add_argument_group("topic pipeline options (files are streamed twice with bounded memory; "
                             "not with --scale/--scheduler/--device)")
    o.add_argument("--plot", metavar="DIR", help="write PNG diagnostics to DIR: sorted word variances, "
                   "variance vs cardinality, topics")
    o.add_argument("--scaling", default="count", choices=["count", "binary", "log", "tfidf"],
                   help="word values (default count)")
    o.add_argument("--working-set", type=_positive_int, metavar="M",
                   help="initial working-set size (default max(300, 10*k*s))")
    o.add_argument("--n-jobs", type=_positive_int, default=1, help="threads for pass 2 (default 1)")
    o.add_argument("--no-cache", action="store_true", help="do not read or write the binary cache")
    o.add_argument("--cache-dir", metavar="DIR",
                   help="cache directory (default $EIGENSPARSE_CACHE_DIR or ~/.cache/eigensparse)")
    o.add_argument("--no-progress", action="store_true", help="no progress bars")
    o.add_argument("--cardinality-tolerance", type=int, default=None, metavar="N",
                   help="penalized methods (bca, dspca): accept topics within N words of -s, found by a "
                        "coarse penalty search as in the 2011 paper (default 1; 0 = exact, slower)")

    sub.add_parser("methods", help="list the available methods",
                   description="List the single-component solvers and joint methods.")
    return parser


def _version():
    from . import __version__

    return __version__


def _load_corpus(args):
    from .datasets import DATASETS
    from .io.uci import read_uci_bow

    if args.dataset is not None:
        if args.docword or args.vocab:
            raise _CLIError("give either DOCWORD VOCAB files or --dataset, not both")
        b = DATASETS[args.dataset]()
        return b.data, b.feature_names, args.dataset
    if not args.docword or not args.vocab:
        raise _CLIError("topics needs DOCWORD and VOCAB files, or --dataset NAME")
    X, words = read_uci_bow(args.docword, args.vocab)
    return X, words, os.path.basename(args.docword)


def _joint_options(args) -> dict:
    names = ("rank", "n_candidates", "epsilon", "time_budget")
    opts = {n: getattr(args, n) for n in names if getattr(args, n) is not None}
    if args.method == "bipartite":
        opts["refine"] = args.refine
    elif opts or not args.refine:
        raise _CLIError("--rank/--n-candidates/--epsilon/--time-budget/--no-refine apply to "
                        "--method bipartite only")
    return opts


def _cmd_topics_pipeline(args, X=None, words=None, name=None) -> int:
    """The topic pipeline: DOCWORD VOCAB files streamed (and cached), or a bundled matrix."""
    from .text import extract_topics, plot_topics_diagnostics, write_json

    if X is None and (not args.docword or not args.vocab):
        raise _CLIError("topics needs DOCWORD and VOCAB files, or --dataset NAME")
    res = extract_topics(
        args.docword if X is None else X, args.vocab if X is None else words,
        n_topics=args.n_components, cardinality=args.cardinality, method=args.method,
        deflation=args.deflation, penalty=args.penalty, center=args.center,
        cardinality_tolerance=args.cardinality_tolerance, scaling=args.scaling, working_set=args.working_set, cache=not args.no_cache,
        cache_dir=args.cache_dir, n_jobs=args.n_jobs, random_state=args.random_state,
        progress=not args.no_progress and sys.stderr.isatty(),
        method_options=_joint_options(args) or None)
    print(f"{name or res.name}: {res.n_docs} documents x {res.n_words} words, method={res.method}, "
          f"deflation={res.deflation}, center={res.center}, scaling={res.scaling}")
    print(res.format_table())
    print(f"total: explained (adjusted) {100 * res.explained_variance_ratio.sum():.2f}% of "
          f"{res.total_variance:.4g}; working set {res.working_set.size} of {res.n_words} words")
    for msg in res.rereads:
        print(f"note: {msg}", file=sys.stderr)
    if args.verbose:
        print(res.phase_table(), file=sys.stderr)
    if args.json:
        write_json(args.json, res.to_dict())
    if args.plot:
        for p in plot_topics_diagnostics(res, args.plot):
            print(f"wrote {p}", file=sys.stderr)
    return 0


def _cmd_topics(args) -> int:
    from . import sparse_pca
    from ._api import DEFAULT_METHOD

    in_memory = bool(args.scheduler or args.device or args.scale)
    if not in_memory:
        if args.dataset is None:
            return _cmd_topics_pipeline(args)
        X, words, name = _load_corpus(args)
        return _cmd_topics_pipeline(args, X, words, name)
    if args.plot:
        raise _CLIError("--plot is not available with --scale/--scheduler/--device")
    args.method = args.method or DEFAULT_METHOD
    t0 = time.perf_counter()
    X, words, name = _load_corpus(args)
    t1 = time.perf_counter()
    opts = _joint_options(args)
    client = None
    if args.scheduler:
        from .operators._dask import connect

        client = connect(args.scheduler, timeout=args.scheduler_timeout)
    try:
        res = sparse_pca(X, n_components=args.n_components, cardinality=args.cardinality,
                         method=args.method, deflation=args.deflation, center=args.center,
                         scale=args.scale, random_state=args.random_state, client=client,
                         device=args.device, penalty=args.penalty, **opts)
    finally:
        if client is not None:
            client.close()
    t2 = time.perf_counter()
    comps = []
    where = (f", scheduler={args.scheduler}" if args.scheduler else
             f", device={args.device}" if args.device else "")
    print(f"{name}: {X.shape[0]} documents x {X.shape[1]} words, method={res.method}, "
          f"deflation={res.deflation}, center={args.center}{where}")
    print(f"{'#':>2} {'card':>4} {'variance':>10} {'explained':>9}  words (loading)")
    for j, (c, supp) in enumerate(zip(res.components, res.supports)):
        order = supp[np.argsort(-np.abs(c[supp]), kind="stable")]
        ws = [(words[i], float(c[i])) for i in order]
        pct = 100 * res.explained_variance_ratio[j]
        print(f"{j + 1:>2} {supp.size:>4} {res.variances[j]:>10.4g} {pct:>8.2f}%  "
              + ", ".join(f"{w} ({v:+.2f})" for w, v in ws))
        comps.append({"words": [w for w, _ in ws], "loadings": [v for _, v in ws],
                      "cardinality": int(supp.size), "variance": float(res.variances[j]),
                      "explained_variance": float(res.explained_variance[j]),
                      "explained_variance_ratio": float(res.explained_variance_ratio[j])})
    tot = 100 * res.explained_variance_ratio.sum()
    print(f"total: variance {res.variances.sum():.4g}, explained (adjusted) {tot:.2f}% of {res.total_variance:.4g}")
    if args.verbose:
        print(f"timings: load {t1 - t0:.2f}s, solve {t2 - t1:.2f}s", file=sys.stderr)
    if args.json:
        from .io._atomic import atomic_write_text

        doc = {"dataset": name, "n_documents": int(X.shape[0]), "n_words": int(X.shape[1]),
               "method": res.method, "deflation": res.deflation, "center": args.center,
               "total_variance": float(res.total_variance), "components": comps}
        atomic_write_text(args.json, json.dumps(doc, indent=2, allow_nan=False))
    return 0


def _cmd_methods(args) -> int:
    from .multi import get_joint
    from .solvers import get_solver
    from ._api import available_methods

    for m in available_methods():
        spec = get_joint(m) or get_solver(m)
        print(f"{m:15s} {spec.summary}")
    return 0


def main(argv=None) -> int:
    from ._validation import InvalidParameterError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    import warnings

    old_showwarning = _one_line_warnings()
    try:
        if args.command == "topics":
            _check_output_paths(args)
            return _cmd_topics(args)
        return _cmd_methods(args)
    except (_CLIError, InvalidParameterError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"eigensparse: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("eigensparse: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = old_showwarning

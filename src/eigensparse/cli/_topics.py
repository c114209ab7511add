"""``eigensparse topics``: sparse principal components of a bag-of-words corpus.

Files are streamed through the out-of-core topic pipeline
(:func:`eigensparse.text.extract_topics`); with ``--scheduler``, ``--device`` or
``--scaling unit`` the matrix is read into memory and solved by
:func:`eigensparse.sparse_pca` on that back-end. Both go through the one dispatcher
and print the same table and JSON schema (:mod:`._report`).
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import replace

from ._options import (CLIError, add_center_options, add_component_options, add_method_options,
                       add_output_options, cardinality_options, method_options, positive_int)
from ._report import report

__all__ = ["add_parser", "run"]

#: ``--scaling`` values solved in memory: counts with every word scaled to unit variance
IN_MEMORY_SCALINGS = ("unit",)


def add_parser(sub):
    from ..text import DEFAULT_TOPIC_CARDINALITY, DEFAULT_TOPIC_DEFLATION, SCALINGS

    t = sub.add_parser(
        "topics", help="topics of a bag-of-words corpus (UCI docword/vocab files or a bundled dataset)",
        description="Find k sparse principal components of a document-term matrix and print each "
                    "as a topic: its words ordered by |loading|, cardinality and variance explained.")
    t.add_argument("docword", nargs="?", help="UCI docword.NAME.txt[.gz] file")
    t.add_argument("vocab", nargs="?", help="UCI vocab.NAME.txt file (one word per line)")
    t.add_argument("--dataset", choices=["kos", "20news"], help="use a bundled dataset instead of files")
    add_component_options(t, default_cardinality=DEFAULT_TOPIC_CARDINALITY,
                          default_deflation=DEFAULT_TOPIC_DEFLATION)
    add_center_options(t)
    t.add_argument("--scaling", default="count", choices=list(SCALINGS) + list(IN_MEMORY_SCALINGS),
                   help="word values: count, binary (0/1), log (log 1+count), tfidf, or unit (counts "
                        "with each word scaled to unit variance: correlation PCA, in memory); "
                        "default count")
    t.add_argument("--scale", action="store_true", help=argparse_suppress())
    where = t.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute on the Dask cluster whose scheduler is at ADDRESS "
                            "(e.g. tcp://10.0.0.1:8786); the corpus is sent to the workers in row blocks")
    where.add_argument("--device", metavar="DEVICE",
                       help="compute on this device (e.g. cuda, cuda:1; needs PyTorch or CuPy)")
    t.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds allowed to reach the scheduler (default 10)")
    add_output_options(t)
    o = t.add_argument_group("topic pipeline options (files are streamed twice with bounded memory)")
    o.add_argument("--working-set", type=positive_int, metavar="M",
                   help="initial working-set size (default max(300, 10*k*s))")
    o.add_argument("--n-jobs", type=positive_int, default=1, help="threads for pass 2 and parallel --stability refits (default 1)")
    o.add_argument("--no-cache", action="store_true", help="do not read or write the binary cache")
    o.add_argument("--cache-dir", metavar="DIR",
                   help="cache directory (default $EIGENSPARSE_CACHE_DIR or ~/.cache/eigensparse)")
    o.add_argument("--no-progress", action="store_true", help="no progress bars")
    o.add_argument("--cardinality-tolerance", type=int, default=0, metavar="N",
                   help="penalized methods (bca, dspca): accept topics within N words of -s, found by "
                        "the coarse penalty search of the 2011 paper (default 0: exact)")
    add_method_options(t)
    t.set_defaults(run=run)
    return t


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def run(args) -> int:
    if args.scale:
        raise CLIError("--scale was merged into --scaling: use --scaling unit (each word scaled "
                       "to unit variance)")
    if args.cardinality_tolerance < 0:
        raise CLIError(f"--cardinality-tolerance must be >= 0; got {args.cardinality_tolerance}")
    if args.scheduler or args.device or args.scaling in IN_MEMORY_SCALINGS:
        return _in_memory(args)
    if args.dataset is not None:
        X, words, name = _load_corpus(args)
        return _pipeline(args, X, words, name)
    if not args.docword or not args.vocab:
        raise CLIError("topics needs DOCWORD and VOCAB files, or --dataset NAME")
    return _pipeline(args)


def _load_corpus(args):
    from ..datasets import DATASETS
    from ..io.uci import read_uci_bow

    if args.dataset is not None:
        if args.docword or args.vocab:
            raise CLIError("give either DOCWORD VOCAB files or --dataset, not both")
        b = DATASETS[args.dataset]()
        return b.data, b.feature_names, args.dataset
    if not args.docword or not args.vocab:
        raise CLIError("topics needs DOCWORD and VOCAB files, or --dataset NAME")
    X, words = read_uci_bow(args.docword, args.vocab)
    return X, words, os.path.basename(args.docword)


def _header(name, n_docs, n_words, res, args, where=""):
    return (f"{name}: {n_docs} documents x {n_words} words, method={res.method}, "
            f"deflation={res.deflation}, center={args.center}, scaling={args.scaling}{where}")


def _pipeline(args, X=None, words=None, name=None) -> int:
    """The out-of-core topic pipeline (files streamed and cached, or a bundled matrix)."""
    from ..io.corpus import MatrixCorpus
    from ..text import extract_topics, plot_topics_diagnostics

    source = args.docword if X is None else MatrixCorpus(X, words, name=name)
    res = extract_topics(
        source, args.vocab if X is None else None,
        n_topics=args.n_components, cardinality=args.cardinality, method=args.method,
        deflation=args.deflation, penalty=args.penalty, center=args.center,
        cardinality_tolerance=args.cardinality_tolerance, scaling=args.scaling,
        working_set=args.working_set, cache=not args.no_cache, cache_dir=args.cache_dir,
        n_jobs=args.n_jobs, random_state=args.random_state,
        progress=not args.no_progress and sys.stderr.isatty(),
        method_options=method_options(args) or None, **cardinality_options(args))
    report(res, args, header=_header(name or res.name, res.n_docs, res.n_words, res, args),
           note=f"working set {res.working_set.size} of {res.n_words} words")
    for msg in res.rereads:
        print(f"note: {msg}", file=sys.stderr)
    if args.verbose:
        print(res.phase_table(), file=sys.stderr)
    if args.plot:
        for p in plot_topics_diagnostics(res, args.plot):
            print(f"wrote {p}", file=sys.stderr)
    return 0


def _in_memory(args) -> int:
    """The whole matrix in memory (Dask cluster, device, or unit-variance words), through
    :func:`eigensparse.sparse_pca`: the same dispatcher, table and JSON schema."""
    from .._api import sparse_pca
    from ..text import DEFAULT_TOPIC_CARDINALITY
    from ..text._passes import scale_matrix

    t0 = time.perf_counter()
    X, words, name = _load_corpus(args)
    unit = args.scaling in IN_MEMORY_SCALINGS
    X = scale_matrix(X, "count" if unit else args.scaling)
    t1 = time.perf_counter()
    cardinality = args.cardinality
    if cardinality is None and args.penalty is None:
        cardinality = DEFAULT_TOPIC_CARDINALITY
    client = None
    if args.scheduler:
        from ..operators.dask import connect

        client = connect(args.scheduler, timeout=args.scheduler_timeout)
    try:
        res = sparse_pca(X, n_components=args.n_components, cardinality=cardinality,
                         method=args.method or _default_method(), deflation=args.deflation,
                         center=args.center, scale=unit, random_state=args.random_state,
                         client=client, device=args.device, penalty=args.penalty,
                         n_jobs=args.n_jobs, **cardinality_options(args), **method_options(args))
    finally:
        if client is not None:
            client.close()
    t2 = time.perf_counter()
    res = replace(res, feature_names=list(words))
    where = (f", scheduler={args.scheduler}" if args.scheduler else
             f", device={args.device}" if args.device else "")
    report(res, args, header=_header(name, X.shape[0], X.shape[1], res, args, where),
           extra_json={"corpus": name, "n_docs": int(X.shape[0]), "n_words": int(X.shape[1]),
                       "scaling": args.scaling, "center": args.center})
    if args.verbose:
        print(f"timings: load {t1 - t0:.2f}s, solve {t2 - t1:.2f}s", file=sys.stderr)
    return 0


def _default_method():
    from ..registry import DEFAULT_METHOD

    return DEFAULT_METHOD

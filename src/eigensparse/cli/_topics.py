"""``eigensparse topics``: sparse principal components of a bag-of-words corpus.

Every back-end is the one topic engine (:func:`eigensparse.text.extract_topics`):
files are streamed (with the binary cache), and so is a bundled dataset kept as UCI files
(``--dataset kos``; one that is not, ``20news``, is read into memory first),
``--scheduler`` runs the passes on a Dask cluster whose workers read the corpus
(:mod:`eigensparse.text._cluster`), ``--device`` keeps the working-set covariance on
the device (an operator of the operator layer), and ``--scaling unit`` (every word at
unit variance: correlation PCA) is a scaling of the same passes. All print the same
table (:func:`eigensparse.text._result.topics_table`) and the one JSON schema.
"""
from __future__ import annotations

import os
import sys

from ._options import (CLIError, DeprecatedFlag, add_center_options, add_component_options,
                       add_method_options, add_output_options, cardinality_options,
                       method_options, positive_int)
from .._printable import printable
from ._report import report

__all__ = ["add_parser", "run"]

def _df_bound(text: str):
    """A document-frequency bound as scikit-learn reads it: an int is a count of
    documents, a float in [0, 1] a proportion."""
    import argparse

    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a document count (int) or a proportion in [0, 1] (float), got {text!r}"
        ) from None


def _stop_words(text: str):
    """``english``, ``none``, ``auto``, or comma-separated words."""
    if text in ("english", "none", "auto"):
        return text
    return [w for w in text.split(",") if w]


def add_parser(sub):
    from ..text import (DEFAULT_MAX_DF, DEFAULT_MAX_TIME, DEFAULT_MIN_DF,
                        DEFAULT_TOPIC_CARDINALITY, DEFAULT_TOPIC_DEFLATION, DEFAULT_TOPIC_SCALING,
                        SCALINGS)

    t = sub.add_parser(
        "topics", help="topics of documents (CSV/TSV, JSON Lines, Parquet, a folder of files, "
                       "one document per line) or of a bag-of-words corpus (UCI files, a bundled "
                       "dataset)",
        description="Find k sparse principal components of a document-term matrix and print each "
                    "as a topic: its words ordered by |loading|, cardinality and variance explained.")
    t.add_argument("docword", nargs="?", metavar="FILE",
                   help="documents: a .csv/.tsv (with --text-column), .jsonl, .parquet file, a "
                        "directory (one document per file) or a text file (one document per line), "
                        "optionally .gz/.zst/.bz2; or a UCI docword.NAME.txt[.gz] file")
    t.add_argument("vocab", nargs="?", help="UCI vocab.NAME.txt file (one word per line)")
    t.add_argument("--dataset", choices=["kos", "20news"], help="use a bundled dataset instead of files")
    add_component_options(t, default_cardinality=DEFAULT_TOPIC_CARDINALITY,
                          default_deflation=DEFAULT_TOPIC_DEFLATION, default_rule="topics")
    add_center_options(t)
    t.add_argument("--scaling", default=DEFAULT_TOPIC_SCALING,
                   choices=list(SCALINGS),
                   help="word values: count, binary (0/1), log (log 1+count), tfidf, or unit (counts "
                        "with each word scaled to unit variance: correlation PCA); "
                        f"default {DEFAULT_TOPIC_SCALING} (centered; see the README for the study)")
    t.add_argument("--scale", action="store_true", help=argparse_suppress())
    where = t.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute on the Dask cluster whose scheduler is at ADDRESS "
                            "(e.g. tcp://10.0.0.1:8786): the workers read the corpus (a UCI file: each "
                            "its documents; the path must be readable there) and run the passes")
    where.add_argument("--device", metavar="DEVICE",
                       help="solve on this device (e.g. cuda, cuda:1; needs PyTorch or CuPy): the corpus "
                            "stays sparse on the host, the working-set covariance is kept there")
    t.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds allowed to reach the scheduler (default 10)")
    add_output_options(t)
    v = t.add_argument_group("vocabulary pruning (scikit-learn's vectorizer meaning; applied "
                             "after the first pass)")
    v.add_argument("--min-df", type=_df_bound, default=DEFAULT_MIN_DF, metavar="N|P",
                   help=f"words in fewer documents cannot enter a topic: an int counts documents, "
                        f"a float in [0, 1] is a proportion (default {DEFAULT_MIN_DF})")
    v.add_argument("--max-df", type=_df_bound, default=DEFAULT_MAX_DF, metavar="N|P",
                   help=f"words in more documents cannot enter a topic (default {DEFAULT_MAX_DF})")
    v.add_argument("--stop-words", type=_stop_words, default="auto", metavar="english|none|W1,W2",
                   help="words that cannot enter a topic: 'english' (scikit-learn's list), 'none' "
                        "or a comma-separated list (default: english for documents, none for a "
                        "count matrix)")
    v.add_argument("--max-features", type=positive_int, default=None, metavar="N",
                   help="keep only the N most frequent words after the other rules")
    _add_text_options(t)
    o = t.add_argument_group("topic pipeline options (files are streamed twice with bounded memory)")
    o.add_argument("--topic-time-budget", dest="max_time", type=float, action=DeprecatedFlag,
                   new="--max-time", default=argparse_suppress(), help=argparse_suppress())
    o.add_argument("--max-time", dest="max_time", type=float,
                   default=DEFAULT_MAX_TIME, metavar="SECONDS",
                   help=f"seconds per topic, for every solve of the topic (a growing working set "
                        f"included); the best topic so far is kept, with a warning "
                        f"(default {DEFAULT_MAX_TIME:g})")
    o.add_argument("--working-set", type=positive_int, metavar="M",
                   help="initial working-set size (default max(1000, 10*k*s))")
    o.add_argument("--n-jobs", type=positive_int, default=2, help="threads for pass 2, the topics' bounds and parallel --stability refits (default 2)")
    o.add_argument("--no-cache", action="store_true", help="do not read or write the binary cache")
    o.add_argument("--cache-dir", metavar="DIR",
                   help="cache directory (default $EIGENSPARSE_CACHE_DIR or ~/.cache/eigensparse)")
    o.add_argument("--no-progress", dest="progress", action="store_false", default=None,
                   help="no progress at all (default: bars on a terminal, else one line per phase)")
    o.add_argument("--progress", dest="progress", action="store_true",
                   help="progress bars even when stderr is not a terminal")
    o.add_argument("--cardinality-tolerance", type=int, default=0, metavar="N",
                   help="penalized methods (bca, dspca): accept topics within N words of -s, found by "
                        "the coarse penalty search of the 2011 paper (default 0: exact)")
    add_method_options(t)
    t.set_defaults(run=run)
    return t


def _add_text_options(t):
    d = t.add_argument_group("documents (scikit-learn's CountVectorizer meaning; the defaults give "
                             "its default tokens)")
    d.add_argument("--text-column", metavar="NAME",
                   help="the CSV/TSV column, JSON field or Parquet column holding the documents")
    d.add_argument("--id-column", metavar="NAME",
                   help="the column naming each document (default: its line or row number)")
    d.add_argument("--token-pattern", default=r"(?u)\b\w\w+\b", metavar="REGEX",
                   help="what a token is (default: runs of 2 or more word characters)")
    d.add_argument("--ngram-range", type=positive_int, nargs=2, default=(1, 1),
                   metavar=("MIN", "MAX"), help="word n-grams (default 1 1)")
    d.add_argument("--strip-accents", choices=["ascii", "unicode"],
                   help="remove accents before tokenizing")
    d.add_argument("--no-lowercase", dest="lowercase", action="store_false",
                   help="keep upper case")
    d.add_argument("--encoding", default="utf-8", help="the files' encoding (default utf-8)")
    d.add_argument("--decode-error", default="strict", choices=["strict", "replace", "ignore"],
                   help="bytes that are not valid in the encoding: an error naming the file and "
                        "line (default), or replaced, or ignored")
    d.add_argument("--show-docs", type=int, default=0, metavar="N",
                   help="print each topic's N most representative documents (their id and first "
                        "characters; the JSON holds 3 unless N is given)")


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def run(args) -> int:
    if args.scale:
        raise CLIError("--scale was merged into --scaling: use --scaling unit (each word scaled "
                       "to unit variance)")
    if args.cardinality_tolerance < 0:
        raise CLIError(f"--cardinality-tolerance must be >= 0; got {args.cardinality_tolerance}")
    if args.show_docs < 0:
        raise CLIError(f"--show-docs must be >= 0; got {args.show_docs}")
    if args.dataset is None and not args.docword:
        raise CLIError("topics needs DOCWORD and VOCAB files, a FILE or DIR of documents, or "
                       "--dataset NAME")
    if args.dataset is None and not args.vocab and not _is_text(args):
        raise CLIError(f"{args.docword}: a UCI docword file needs its VOCAB file; for documents "
                       "give a .csv/.tsv/.jsonl/.parquet file, a directory or a text file")
    if args.dataset is not None:
        files = _bundled_files(args)
        if files is not None:  # streamed with the binary cache, like any UCI file
            return _pipeline(args, corpus=_open_files(args, *files, name=args.dataset))
        X, words, name = _load_corpus(args)
        return _pipeline(args, X, words, name)
    return _pipeline(args)


#: bundled datasets kept as UCI files: streamed (and cached) instead of parsed into memory
_BUNDLED_UCI = {"kos": ("docword.kos.txt.gz", "vocab.kos.txt")}


def _is_text(args) -> bool:
    from ..io.documents import is_text_source

    return is_text_source(args.docword, args.vocab, args.text_column)


def _bundled_files(args):
    """(docword, vocab) paths of a bundled UCI dataset installed as plain files, else None."""
    from importlib import resources
    from pathlib import Path

    if args.docword or args.vocab:
        raise CLIError("give either DOCWORD VOCAB files or --dataset, not both")
    names = _BUNDLED_UCI.get(args.dataset)
    if names is None:
        return None
    base = resources.files("eigensparse.datasets").joinpath("data")
    paths = [base.joinpath(n) for n in names]
    return paths if all(isinstance(p, Path) and p.is_file() for p in paths) else None


def _open_files(args, docword, vocab, *, name):
    from ..io.corpus import open_corpus

    corpus = open_corpus(docword, vocab, cache=not args.no_cache, cache_dir=args.cache_dir)
    corpus.name = name  # a corpus this command opened: its name in the title and the JSON
    return corpus


def _load_corpus(args):
    from ..datasets import DATASETS
    from ..io.uci import read_uci_bow

    if args.dataset is not None:
        if args.docword or args.vocab:
            raise CLIError("give either DOCWORD VOCAB files or --dataset, not both")
        b = DATASETS[args.dataset]()
        return b.data, b.feature_names, args.dataset
    X, words = read_uci_bow(args.docword, args.vocab)
    return X, words, os.path.basename(args.docword)


def _header(name, n_docs, n_words, res, args, where=""):
    return (f"{name}: {n_docs} documents x {n_words} words, method={res.method}, "
            f"deflation={res.deflation}, center={args.center}, scaling={args.scaling}{where}")


def _where(args) -> str:
    return (f", scheduler={args.scheduler}" if args.scheduler else
            f", device={args.device}" if args.device else "")


def _pipeline(args, X=None, words=None, name=None, corpus=None) -> int:
    """The one topic engine: streamed files, a bundled matrix, a Dask cluster whose
    workers read the files, or a device."""
    from ..io.corpus import MatrixCorpus
    from ..text import extract_topics, plot_topics_diagnostics

    client = None
    if args.scheduler:
        from ..operators.dask import connect

        client = connect(args.scheduler, timeout=args.scheduler_timeout)
        if corpus is not None:  # files: the workers read them, not this process
            corpus, name = (corpus.path, corpus.words), corpus.name
    if isinstance(corpus, tuple):
        source, vocab = corpus
    elif corpus is not None:
        source, vocab = corpus, None
    else:
        source = args.docword if X is None else MatrixCorpus(X, words, name=name)
        vocab = args.vocab if X is None else None
    try:
        res = _extract(extract_topics, args, source, vocab, client, name)
    finally:
        if client is not None:
            client.close()
    report(res, args, header=_header(res.name, res.n_docs, res.n_words, res, args, _where(args)),
           note=f"working set {res.working_set.size} of {res.n_words} words")
    if args.show_docs and res.documents is not None:
        print(documents_block(res, args.show_docs))
    for msg in res.rereads:
        print(f"note: {msg}", file=sys.stderr)
    if args.verbose:
        print(res.phase_table(), file=sys.stderr)
    if args.plot:
        for p in plot_topics_diagnostics(res, path=args.plot):
            print(f"wrote {printable(p)}", file=sys.stderr)
    return 0


def _extract(extract_topics, args, source, vocab, client, name):
    return extract_topics(
        source, vocab, client=client, name=name if client is not None else None,
        n_topics=args.n_components, cardinality=args.cardinality, method=args.method,
        deflation=args.deflation, penalty=args.penalty, center=args.center,
        cardinality_tolerance=args.cardinality_tolerance, scaling=args.scaling,
        min_df=args.min_df, max_df=args.max_df, stop_words=args.stop_words,
        max_features=args.max_features, max_time=args.max_time,
        working_set=args.working_set, cache=not args.no_cache, cache_dir=args.cache_dir,
        n_jobs=args.n_jobs, random_state=args.random_state, progress=args.progress,
        method_options=method_options(args) or None, device=args.device,
        text_column=args.text_column, id_column=args.id_column,
        token_pattern=args.token_pattern, ngram_range=tuple(args.ngram_range),
        strip_accents=args.strip_accents, lowercase=args.lowercase, encoding=args.encoding,
        decode_error=args.decode_error, show_docs=args.show_docs or 3,
        **cardinality_options(args))


def documents_block(res, n: int) -> str:
    """Each topic's most representative documents: id and first characters, one a line."""
    out = []
    for j, (topic, docs) in enumerate(zip(res.topics, res.documents)):
        out.append(f"topic {j + 1} ({' '.join(topic.words[:5])}): documents")
        for d in docs[:n]:
            text = " ".join(str(d["text"]).split())
            out.append(f"  {str(d['id'])[:40]:<40}  {text[:70]}")
    return "\n".join(out)


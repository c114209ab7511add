"""Tokenizing throughput: eigensparse's text reader against scikit-learn's CountVectorizer,
same documents, same run, same tokens.

Rows:

- ``CountVectorizer().fit_transform``: the documents already in memory as Python strings
  (reading the file not counted);
- ``TokenCounter.count`` (tokenize only): the same documents as pyarrow string arrays, in
  batches of ``--batch`` documents;
- ``TextCorpus`` from the file (cold): read, decompress, parse, tokenize and write the
  corpus cache, in this process (numba kernels already compiled by the row above);
- ``TextCorpus`` from the file (cached): a second run reads the cache only.

The script checks that both vocabularies and count matrices are identical, and prints MB/s
of text (the UTF-8 bytes of the documents) and the ratio to CountVectorizer.

Usage::

    python benchmarks/bench_tokenize.py [--docs N] [--file PATH --text-column NAME]
                                        [--threads 2]

Without ``--file`` a CSV of generated documents (``eigensparse.datasets.synthetic_text``)
is written to a temporary directory. Timings depend on the machine's load: run on an idle
machine and compare rows of one run only.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import set_thread_env  # noqa: E402

set_thread_env()

import numpy as np  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", type=int, default=200_000)
    p.add_argument("--file")
    p.add_argument("--text-column", default="text")
    p.add_argument("--batch", type=int, default=1 << 16)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)

    import pyarrow as pa
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    from eigensparse.io._text_readers import detect_format, iter_document_batches
    from eigensparse.io._tokenize import TokenCounter
    from eigensparse.io.documents import TextCorpus

    tmp = tempfile.TemporaryDirectory()
    path = args.file
    if path is None:
        from eigensparse.datasets.synthetic_text import write_text_corpus

        path = os.path.join(tmp.name, "docs.csv")
        write_text_corpus(path, args.docs)
    arrays = [t for t, _ in iter_document_batches(path, detect_format(path),
                                                  text_column=args.text_column)]
    texts = pa.concat_arrays([a.cast(pa.large_string()) for a in arrays])
    texts = texts.filter(texts.is_valid())
    docs = texts.to_pylist()
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    rows = []

    t = time.perf_counter()
    cv = CountVectorizer()
    Y = cv.fit_transform(docs)
    rows.append(("CountVectorizer().fit_transform", time.perf_counter() - t))

    TokenCounter().count(texts.slice(0, 100))  # compile / load the kernels
    t = time.perf_counter()
    tc = TokenCounter()
    parts = [tc.count(texts.slice(a, args.batch)) for a in range(0, len(texts), args.batch)]
    words, rank, _ = tc.vocabulary()
    rows.append(("TokenCounter.count (tokenize only)", time.perf_counter() - t))
    X = sp.vstack([sp.csr_matrix((c, rank[i], ptr), shape=(ptr.size - 1, len(words)))
                   for ptr, i, c, _ in parts]).tocsr()
    same = words == list(cv.get_feature_names_out()) and (X != Y).nnz == 0

    caches = os.path.join(tmp.name, "cache")
    t = time.perf_counter()
    TextCorpus(path, text_column=args.text_column, cache_dir=caches)
    rows.append(("TextCorpus from the file (cold: read + tokenize + cache)",
                 time.perf_counter() - t))
    t = time.perf_counter()
    c = TextCorpus(path, text_column=args.text_column, cache_dir=caches)
    rows.append((f"TextCorpus again (cache {c.cache_status})", time.perf_counter() - t))

    print(f"{path}: {len(docs):,} documents, {mb:.1f} MB of text, {len(words):,} words; "
          f"identical vocabulary and counts: {same}")
    base = rows[0][1]
    print(f"{'route':58s} {'seconds':>8s} {'MB/s':>8s} {'x CountVectorizer':>18s}")
    for name, sec in rows:
        print(f"{name:58s} {sec:8.2f} {mb / sec:8.1f} {base / sec:18.1f}")
    tmp.cleanup()
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

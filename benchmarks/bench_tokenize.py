"""Raw text at disk speed: eigensparse's tokenizer and ``topics`` command against
scikit-learn's CountVectorizer, same documents, same run, same tokens.

Part 1, in this process (rows of one table, MB/s of text = the UTF-8 bytes of the
documents, CPU seconds of this process, and the ratio to CountVectorizer's wall time):

- ``CountVectorizer().fit_transform``: the documents already in memory as Python strings;
- ``TokenCounter`` (1 thread) and ``ParallelCounter`` (``--threads``): tokenize and count
  only, the documents as pyarrow string arrays in batches;
- ``TextCorpus`` from the file, cold (read, decompress, parse, tokenize and write the
  corpus cache) and cached (the second run reads the cache only).

The script checks that the vocabulary and the count matrix are CountVectorizer's.

Part 2, the command line in fresh processes (process start and imports included; the
numba kernels already compiled by a small run first): ``eigensparse topics FILE
--text-column text -k 5 -s 5 --stop-words english --min-df 5 --max-df 0.5`` with a fresh
corpus cache (cold) and again (warm), for the CSV, its JSON Lines and Parquet copies and a
folder of text files; wall and CPU seconds and peak memory of each run, the issue's wall
limit beside it, and whether the CSV's topics are those of ``extract_topics`` on
``CountVectorizer().fit_transform(docs)`` with the same options.

Usage::

    python benchmarks/bench_tokenize.py [--docs 841708] [--doc-length 8] [--folder-docs 60000]
                                        [--file PATH --text-column NAME] [--threads 2]
                                        [--skip-cli]

Without ``--file`` the documents are generated (``eigensparse.datasets.synthetic_text``:
short sentence-like documents, a Zipf vocabulary with English function words, planted
topics) into a temporary directory; ``--folder-docs 0`` skips the folder. Timings depend
on the machine's load (printed): compare rows of one run only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import REPO_ROOT, set_thread_env  # noqa: E402

set_thread_env()

import numpy as np  # noqa: E402

TOPIC_ARGS = ["-k", "5", "-s", "5", "--stop-words", "english", "--min-df", "5", "--max-df", "0.5"]
#: the issue's wall limits (seconds) for a cold run of each case
LIMITS = {"csv": 10, "jsonl": 12, "parquet": 15, "folder": 30}


def _load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "load average unknown"


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _make_inputs(tmp, n_docs, doc_length, folder_docs):
    """The CSV (and its JSON Lines and Parquet copies, and a folder of files)."""
    import pyarrow.csv as pcsv
    import pyarrow.json  # noqa: F401
    import pyarrow.parquet as pq

    from eigensparse.datasets.synthetic_text import make_text_documents, write_text_corpus

    opts = dict(doc_length=doc_length, n_topics=5, n_words=30000, prevalence=0.1,
                topic_rate=0.6)
    paths = {"csv": os.path.join(tmp, "docs.csv")}
    write_text_corpus(paths["csv"], n_docs, **opts)
    table = pcsv.read_csv(paths["csv"])
    paths["jsonl"] = os.path.join(tmp, "docs.jsonl")
    with open(paths["jsonl"], "w", encoding="utf-8") as f:
        for i, d in zip(table["id"].to_pylist(), table["text"].to_pylist()):
            f.write(json.dumps({"id": i, "text": d}) + "\n")
    paths["parquet"] = os.path.join(tmp, "docs.parquet")
    pq.write_table(table, paths["parquet"])
    if folder_docs:
        docs, _ = make_text_documents(folder_docs, **{**opts, "doc_length": 150.0})
        root = paths["folder"] = os.path.join(tmp, "folder")
        for k, d in enumerate(docs):
            sub = os.path.join(root, f"d{k // 1000:03d}")
            os.makedirs(sub, exist_ok=True)
            with open(os.path.join(sub, f"{k}.txt"), "w", encoding="utf-8") as f:
                f.write(d)
    return paths


def _tokenizer_rows(path, text_column, batch, threads, tmp):
    """Part 1: rows (name, wall, cpu) and whether the tokens are CountVectorizer's."""
    import pyarrow as pa
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    from eigensparse.io._text_readers import detect_format, iter_document_batches
    from eigensparse.io._tokenize import ParallelCounter, TokenCounter
    from eigensparse.io.documents import TextCorpus

    arrays = [t for t, _ in iter_document_batches(path, detect_format(path),
                                                  text_column=text_column)]
    texts = pa.concat_arrays([a.cast(pa.large_string()) for a in arrays])
    texts = texts.filter(texts.is_valid())
    docs = texts.to_pylist()
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    rows = []
    cv = CountVectorizer()
    Y, w, c = _timed(lambda: cv.fit_transform(docs))
    rows.append(("CountVectorizer().fit_transform (in memory)", w, c))
    cv_words = list(cv.get_feature_names_out())
    del docs

    TokenCounter().count(texts.slice(0, 100))  # load the compiled kernels

    def one_thread():
        tc = TokenCounter()
        parts = [tc.count(texts.slice(a, batch)) for a in range(0, len(texts), batch)]
        return tc, parts

    (tc, parts), w, c = _timed(one_thread)
    rows.append(("TokenCounter, 1 thread (tokenize + count)", w, c))
    words, rank, _ = tc.vocabulary()
    X = sp.vstack([sp.csr_matrix((cnt, rank[i], ptr), shape=(ptr.size - 1, len(words)))
                   for ptr, i, cnt, _ in parts]).tocsr()
    same = words == cv_words and X.shape == Y.shape and (X != Y).nnz == 0
    del X, parts, tc

    def parallel():
        counter = ParallelCounter(threads)
        try:
            done = [counter.submit(texts.slice(a, batch)) for a in range(0, len(texts), batch)]
            out = [d() for d in done]
            return out, counter.vocabulary()[0]
        finally:
            counter.close()

    (_, pwords), w, c = _timed(parallel)
    rows.append((f"ParallelCounter, {threads} threads (tokenize + count)", w, c))
    same = same and pwords == words
    caches = os.path.join(tmp, "cache-inproc")
    corpus, w, c = _timed(lambda: TextCorpus(path, text_column=text_column, cache_dir=caches))
    rows.append(("TextCorpus from the file, cold (read + tokenize + cache)", w, c))
    same = same and corpus.words == words and corpus.nnz == Y.nnz
    corpus, w, c = _timed(lambda: TextCorpus(path, text_column=text_column, cache_dir=caches))
    rows.append((f"TextCorpus again (cache {corpus.cache_status})", w, c))
    return rows, mb, len(texts), len(words), same


#: ``python -m eigensparse`` that writes its own peak RSS (VmHWM: this program's pages
#: only; a child's ``ru_maxrss`` also counts the parent's pages at the fork) to argv[1]
_PEAK_WRAPPER = (
    "import atexit, runpy, sys\n"
    "def peak(path=sys.argv[1]):\n"
    "    try:\n"
    "        with open('/proc/self/status') as f:\n"
    "            kb = [int(l.split()[1]) for l in f if l.startswith('VmHWM')][0]\n"
    "    except (OSError, IndexError):\n"
    "        import resource\n"
    "        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "    with open(path, 'w') as f:\n"
    "        f.write(str(kb))\n"
    "atexit.register(peak)\n"
    "sys.argv = ['eigensparse'] + sys.argv[2:]\n"
    "runpy.run_module('eigensparse', run_name='__main__', alter_sys=True)\n")


def _run_cli(args, tmp, tag):
    """Wall, CPU (user + system) and peak RSS (MB) of one ``eigensparse`` process."""
    out = os.path.join(tmp, f"{tag}.json")
    peak_file = os.path.join(tmp, f"{tag}.peak")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "src") + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _PEAK_WRAPPER, peak_file, "topics", *args,
                             "--json", out, "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode("utf-8", "replace").strip()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"eigensparse topics {' '.join(args)} failed ({proc.returncode}): {err}")
    with open(out, encoding="utf-8") as f:
        topics = [c["words"] for c in json.load(f)["components"]]
    with open(peak_file, encoding="utf-8") as f:
        peak_mb = int(f.read()) / 1024
    return wall, usage.ru_utime + usage.ru_stime, peak_mb, topics


def _reference_topics(path, text_column):
    """``extract_topics`` on CountVectorizer's matrix of the same documents."""
    import pyarrow as pa

    from sklearn.feature_extraction.text import CountVectorizer

    from eigensparse.io._text_readers import detect_format, iter_document_batches
    from eigensparse.text import extract_topics

    arrays = [t for t, _ in iter_document_batches(path, detect_format(path),
                                                  text_column=text_column)]
    texts = pa.concat_arrays([a.cast(pa.large_string()) for a in arrays])
    docs = [d for d in texts.to_pylist() if d is not None and d.strip()]
    cv = CountVectorizer()
    X = cv.fit_transform(docs)
    res = extract_topics(X, list(cv.get_feature_names_out()), n_topics=5, cardinality=5,
                         stop_words="english", min_df=5, max_df=0.5, progress=False)
    return [list(t.words) for t in res.topics]


def _cli_rows(paths, text_column, tmp):
    tiny = os.path.join(tmp, "tiny.csv")
    with open(tiny, "w", encoding="utf-8") as f:
        f.write("text\n" + "".join(f"alpha beta gamma{i % 7} delta{i % 5}\n" for i in range(50)))
    _run_cli([tiny, "-k", "1", "-s", "2", "--cache-dir", os.path.join(tmp, "c0")], tmp, "warmup")
    rows, topics = [], {}
    for case, path in paths.items():
        args = [path] + (["--text-column", text_column] if case != "folder" else []) + TOPIC_ARGS
        cache = ["--cache-dir", os.path.join(tmp, f"cache-{case}")]
        for run in ("cold", "warm"):
            wall, cpu, rss, words = _run_cli(args + cache, tmp, f"{case}-{run}")
            rows.append((case, run, wall, cpu, rss))
            topics[case] = words
    return rows, topics


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", type=int, default=841_708)
    p.add_argument("--doc-length", type=float, default=8.0)
    p.add_argument("--folder-docs", type=int, default=60_000)
    p.add_argument("--file")
    p.add_argument("--text-column", default="text")
    p.add_argument("--batch", type=int, default=1 << 14)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--skip-cli", action="store_true")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        print(f"start: {_load()}", flush=True)
        if args.file is None:
            paths = _make_inputs(tmp, args.docs, args.doc_length, args.folder_docs)
        else:
            paths = {"file": args.file}
        main_path = paths.get("csv", args.file)
        rows, mb, n_docs, n_words, same = _tokenizer_rows(main_path, args.text_column,
                                                          args.batch, args.threads, tmp)
        print(f"{main_path}: {n_docs:,} documents, {mb:.1f} MB of text, {n_words:,} words; "
              f"identical vocabulary and counts: {same}")
        base = rows[0][1]
        print(f"{'route':58s} {'wall s':>7s} {'CPU s':>7s} {'MB/s':>7s} {'x CountVectorizer':>18s}")
        for name, wall, cpu in rows:
            print(f"{name:58s} {wall:7.2f} {cpu:7.2f} {mb / wall:7.1f} {base / wall:18.1f}")
        print(f"after part 1: {_load()}", flush=True)
        if args.skip_cli:
            return 0 if same else 1
        cli, topics = _cli_rows(paths, args.text_column, tmp)
        print(f"\neigensparse topics FILE {' '.join(TOPIC_ARGS)} (fresh processes; cold: a "
              f"fresh corpus cache)")
        print(f"{'input':8s} {'run':5s} {'wall s':>7s} {'CPU s':>7s} {'peak MB':>8s} "
              f"{'limit s':>8s}")
        for case, run, wall, cpu, rss in cli:
            limit = LIMITS.get(case, "") if run == "cold" else ""
            print(f"{case:8s} {run:5s} {wall:7.2f} {cpu:7.2f} {rss:8.0f} {limit!s:>8s}")
        if "csv" in paths:
            ref = _reference_topics(paths["csv"], args.text_column)
            for case, words in topics.items():
                if case == "folder":
                    continue
                print(f"{case}: same topics as extract_topics(CountVectorizer matrix): "
                      f"{words == ref}")
            if "folder" in topics:
                flat = [w for t in topics["folder"] for w in t]
                print(f"folder: {len(topics['folder'])} topics, distinct words: "
                      f"{len(set(flat))} of {len(flat)}")
        print(f"end: {_load()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""End-to-end topic extraction at NYTimes scale (Zhang & El Ghaoui 2011, §4).

Generates (once) a synthetic UCI corpus, ``.gz``:

- ``--generator zipf`` (default, issue 11): :func:`make_zipf_corpus`, 300,000 documents
  × 102,660 words, about 80 million nonzeros at ``--scale 1``, Zipf word frequencies
  with a steep tail, log-normal lengths, eight planted topics of six words at *mid*
  frequencies whose marginal frequencies are those of their Zipf rank (count variance
  alone does not reveal them);
- ``--pubmed F`` (issue 30): :func:`make_zipf_corpus` with ``mode="pubmed"``, shaped
  like PubMed (Zhang & El Ghaoui 2011, §4): 8.2M documents × 141,043 words, about 500
  million nonzeros, about 2 GB of gzip at ``F=1``, eight planted topics of mid-frequency
  words (``F`` scales the documents; targets: cold <= 30 s, cached <= 3 s, peak RSS
  <= 1.5 GB, planted-topic precision >= 0.8, at ``F=1`` on 2 cores);
- ``--generator nytimes``: the older :func:`make_synthetic_corpus` (topics among the
  frequent words, ~70 million nonzeros).

Then extracts 5 topics of 5 words, with either

- ``--pipeline current`` (default): :func:`eigensparse.text.extract_topics`, whose
  defaults are the study's choice: vocabulary pruning (``--pruning``, default ``df``:
  min_df=5, max_df=0.5), scaling ``--scaling`` (default tf-idf, centered), a working set
  of 1,000 words and the bounded disjoint exact-cardinality solve, with the statistics
  and the working-set Gram matrix cached with the corpus (a cached run reads no data), or
- ``--pipeline pruned``: the study's reference wiring (``benchmarks/_topics_harness.py``),

1. **cold**: from the ``.gz`` file with no cache, in a fresh process;
2. **cached**: the same command again, from the binary cache, in a fresh process;
3. the bundled KOS corpus (k=5, s=5), in a fresh process.

Each run reports its phases, per-topic solve times, peak RSS (the process's VmHWM) and,
for the synthetic corpus, the precision of the found topics against the planted ones.
A child process ends as the ``eigensparse`` command does (:func:`eigensparse.cli.finish`:
output flushed, no interpreter teardown, which frees numba's and LLVM's objects for about
0.3 s), so that its process wall is that of a command-line run.
Acceptance targets (issue 11): cold total <= 60 s, <= 2 s per topic after the passes,
cached total <= 10 s, peak RSS <= 1.5 GB, planted-topic precision >= 0.8.

Usage::

    python benchmarks/bench_text_scale.py                      # full size (~80 M nonzeros)
    python benchmarks/bench_text_scale.py --scale 0.1          # 30,000 × 32,464 quick check
    python benchmarks/bench_text_scale.py --pipeline current   # extract_topics' defaults
    python benchmarks/bench_text_scale.py --delete-corpus      # remove the corpus afterwards
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TARGETS = {"total": 60.0, "per_component": 2.0, "warm_total": 10.0, "rss_mb": 1536.0,
           "kos_total": 3.0}


def _peak_rss_mb() -> float:
    """Peak resident memory of this process: VmHWM (Linux; reset at exec, unlike
    ru_maxrss, which a child inherits from the process that forked it), else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _source(args):
    """(docword, vocab) of the run: the bundled KOS matrix for ``--docword kos``."""
    if args.docword != "kos":
        return args.docword, args.vocab
    from eigensparse.datasets import load_kos

    b = load_kos()
    return b.data, b.feature_names


def _child(args) -> None:
    """Run one extraction in this (fresh) process and print a RESULT line."""
    t_start = time.perf_counter()
    from eigensparse.text import extract_topics

    t_import = time.perf_counter() - t_start
    if args.pipeline == "pruned":
        return _child_pruned(args, t_start, t_import)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _topics_harness import PRUNINGS

    src, voc = _source(args)
    pruning = {"min_df": 1, "max_df": 1.0, **PRUNINGS[args.pruning]}
    res = extract_topics(src, voc, n_topics=args.k, cardinality=args.s, method=args.method,
                         cache_dir=args.cache_dir, n_jobs=args.n_jobs, progress=args.progress,
                         scaling=args.scaling, center=not args.uncentered, random_state=0,
                         **pruning)
    wall = time.perf_counter() - t_start
    out = res.to_dict()
    out["process_seconds"] = wall
    out["import_seconds"] = t_import
    out["peak_rss_mb"] = _peak_rss_mb()
    out["phase_table"] = res.phase_table()
    out["table"] = res.format_table()
    print("RESULT " + json.dumps(out))
    from eigensparse.cli import finish

    finish(0)


def _child_pruned(args, t_start, t_import) -> None:
    """The study's pipeline (pruning + scaling + bounded solve) in this process."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _topics_harness import PRUNINGS, pruned_topics

    from eigensparse.text._format import format_topics

    src, voc = _source(args)
    res = pruned_topics(src, voc, k=args.k, s=args.s, scaling=args.scaling,
                        center=not args.uncentered, pruning=PRUNINGS[args.pruning],
                        cache_dir=args.cache_dir, progress=args.progress)
    comps = [{"word_ids": [int(i) for i in t["word_ids"]], "words": t["words"],
              "loadings": [float(v) for v in t["loadings"]], "variance": t["variance"],
              "seconds": t["seconds"], "sizes": t["sizes"], "safe": t["safe"],
              "explained_variance_ratio": t["explained_variance_ratio"],
              "timed_out": t["timed_out"]} for t in res["topics"]]
    tm = res["timings"]
    out = {"components": comps, "timings": tm, "process_seconds": time.perf_counter() - t_start,
           "import_seconds": t_import, "peak_rss_mb": _peak_rss_mb(),
           "pruning": res["pruning"].describe(),
           "table": format_topics(comps, corpus=res["name"], n_docs=res["n_docs"],
                                  n_words=res["n_words"], scaling=args.scaling,
                                  method="tpower (bounded)", legend=False),
           "phase_table": "\n".join(f"{k:8s} {v:8.3f} s" for k, v in tm.items())
                          + f"\n{res['pruning'].describe()}; working set {res['working_set'].size}"}
    print("RESULT " + json.dumps(out))


def _run_child(argv: list[str]) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", *argv]
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"child failed ({p.returncode}): {' '.join(cmd)}")
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    out = json.loads(line[len("RESULT "):])
    out["wall_seconds"] = wall
    return out


def _corpus(args):
    """The synthetic corpus (generated once, reused when its parameters match)."""
    d = args.dir
    meta_path = os.path.join(d, "planted.json")
    params = {"n_docs": args.docs, "n_words": args.words, "nnz_per_doc": args.nnz_per_doc,
              "random_state": args.seed, "generator": 2} if args.generator == "nytimes" else {
              "scale": args.scale, "random_state": args.seed, "generator": "zipf-2"}
    if args.pubmed:
        params = {"pubmed": args.pubmed, "random_state": args.seed, "generator": "pubmed-2"}
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("params") == params and os.path.exists(meta["docword"]) and os.path.exists(meta["vocab"]):
            print(f"corpus: reusing {meta['docword']} ({meta['nnz']} nonzeros)")
            return meta
    what = (f"a PubMed-shaped corpus x {args.pubmed:g}" if args.pubmed
            else f"{args.docs} documents x {args.words} words")
    print(f"corpus: generating {what} under {d} ...", flush=True)
    # in a child process, so that this one stays small (children inherit ru_maxrss)
    fn, name = (("make_synthetic_corpus", "nytsynth") if args.generator == "nytimes"
                else ("make_zipf_corpus", "zipf"))
    code = (f"import json, sys; from eigensparse.datasets.synthetic_corpus import {fn}; "
            f"a = json.loads(sys.argv[1]); c = {fn}(a.pop('dir'), name='{name}', **a); "
            "print('CORPUS ' + json.dumps({'docword': c.docword, 'vocab': c.vocab, 'nnz': c.nnz, "
            "'topics': [t.tolist() for t in c.topics], 'topic_words': c.topic_words, "
            "'topic_names': c.topic_names, 'seconds': c.seconds}))")
    spec = {"dir": d, "n_docs": args.docs, "n_words": args.words, "nnz_per_doc": args.nnz_per_doc,
            "random_state": args.seed, "progress": args.progress} if args.generator == "nytimes" else {
            "dir": d, "scale": args.scale, "random_state": args.seed, "progress": args.progress}
    if args.pubmed:
        spec = {"dir": d, "scale": args.pubmed, "mode": "pubmed", "random_state": args.seed,
                "progress": args.progress}
    p = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], stdout=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        raise SystemExit("corpus generation failed")
    meta = json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("CORPUS ")][-1][7:])
    meta["params"] = params
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    size = os.path.getsize(meta["docword"]) / 2**20
    print(f"corpus: {meta['nnz']} nonzeros, {size:.0f} MiB gzip, generated in {meta['seconds']:.1f} s")
    return meta


def _check(name, value, target, unit="s"):
    ok = value <= target
    print(f"  {'PASS' if ok else 'FAIL'}  {name}: {value:.2f} {unit} (target <= {target:g} {unit})")
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--docword")
    ap.add_argument("--vocab")
    ap.add_argument("--cache-dir", help="the runs' cache directory, emptied first (default: "
                    "DIR/cache); another directory leaves DIR/cache alone")
    ap.add_argument("--dir", default=None,
                    help="where the synthetic corpus is written (default: under the temp dir)")
    ap.add_argument("--generator", choices=("zipf", "nytimes"), default="zipf")
    ap.add_argument("--scale", type=float, default=1.0, help="zipf corpus size (1 = full)")
    ap.add_argument("--pubmed", type=float, default=None, metavar="F",
                    help="a PubMed-shaped corpus at this fraction of its 8.2M documents")
    ap.add_argument("--pipeline", choices=("pruned", "current"), default="current")
    ap.add_argument("--scaling", default="tfidf", help="pruned pipeline: the scaling")
    ap.add_argument("--uncentered", action="store_true", help="pruned pipeline: no centering")
    ap.add_argument("--pruning", default="df", help="pruned pipeline: a name of PRUNINGS")
    ap.add_argument("--docs", type=int, default=300_000)
    ap.add_argument("--words", type=int, default=102_660)
    ap.add_argument("--nnz-per-doc", type=float, default=233.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--small", action="store_true", help="30,000 documents x 20,000 words")
    ap.add_argument("-k", dest="k", type=int, default=5)
    ap.add_argument("-s", dest="s", type=int, default=5)
    ap.add_argument("--method", default=None, help="default: the registry's default method")
    ap.add_argument("--n-jobs", type=int, default=2, help="threads for pass 2 (default 2)")
    ap.add_argument("--progress", action="store_const", const=True, default=False,
                    help="tqdm bars (on stderr)")
    ap.add_argument("--skip-kos", action="store_true")
    ap.add_argument("--delete-corpus", action="store_true",
                    help="delete the generated corpus and caches at the end")
    ap.add_argument("--json", help="write all measurements to this file")
    args = ap.parse_args(argv)
    if args.child:
        return _child(args)
    if args.pubmed:
        TARGETS.update(total=30.0, warm_total=3.0)
    if args.small:
        args.docs, args.words, args.scale = 30_000, 20_000, 0.1
    if args.dir is None:
        tag = (f"nytsynth-{args.docs}" if args.generator == "nytimes" else f"zipf-{args.scale:g}")
        tag = f"pubmed-{args.pubmed:g}" if args.pubmed else tag
        args.dir = os.path.join(tempfile.gettempdir(), f"eigensparse-{tag}")

    meta = _corpus(args)
    cache_dir = args.cache_dir or os.path.join(args.dir, "cache")
    shutil.rmtree(cache_dir, ignore_errors=True)
    common = ["-k", str(args.k), "-s", str(args.s), "--n-jobs", str(args.n_jobs),
              "--cache-dir", cache_dir, "--pipeline", args.pipeline, "--scaling", args.scaling,
              "--pruning", args.pruning] + (["--uncentered"] if args.uncentered else [])
    if args.method:
        common += ["--method", args.method]
    if args.progress:
        common += ["--progress"]
    files = ["--docword", meta["docword"], "--vocab", meta["vocab"]]

    print("\n== cold run: from the .gz file, no cache ==", flush=True)
    cold = _run_child(files + common)
    print(cold["table"])
    print(cold["phase_table"])
    print("per-topic solve seconds: " + ", ".join(f"{c['seconds']:.3f}" for c in cold["components"]))
    print(f"process wall {cold['wall_seconds']:.2f} s (imports {cold['import_seconds']:.2f} s), "
          f"peak RSS {cold['peak_rss_mb']:.0f} MB")

    print("\n== cached run: same command, from the binary cache ==", flush=True)
    warm = _run_child(files + common)
    print(warm["phase_table"])
    print(f"process wall {warm['wall_seconds']:.2f} s (imports {warm['import_seconds']:.2f} s), "
          f"peak RSS {warm['peak_rss_mb']:.0f} MB")

    from eigensparse.datasets.synthetic_corpus import topic_precision

    found = [c["word_ids"] for c in cold["components"]]
    prec = topic_precision(found, meta["topics"])
    print("\n== planted topics ==")
    for i, c in enumerate(cold["components"]):
        j = prec["match"][i]
        name = meta["topic_names"][j] if j >= 0 else "-"
        print(f"  PC{i + 1}: {', '.join(c['words'])}  ->  planted '{name}' "
              f"precision {prec['precision'][i]:.2f} recall {prec['recall'][i]:.2f}")
    print(f"  mean precision {prec['mean_precision']:.3f}, mean recall {prec['mean_recall']:.3f}, "
          f"{prec['n_distinct_matched']} of {len(meta['topics'])} planted topics matched")

    kos = None
    if not args.skip_kos:
        print("\n== bundled KOS, k=5, s=5 (fresh process, imports included) ==", flush=True)
        kos = _run_child(["--docword", "kos", "-k", "5", "-s", "5", "--n-jobs", "1",
                          "--pipeline", args.pipeline, "--scaling", args.scaling,
                          "--pruning", args.pruning]
                         + (["--uncentered"] if args.uncentered else [])
                         + (["--method", args.method] if args.method else []))
        print(kos["table"])
        print(f"extract_topics {kos['timings']['total']:.2f} s, process wall "
              f"{kos['wall_seconds']:.2f} s (imports {kos['import_seconds']:.2f} s)")

    print("\n== acceptance ==")
    per_comp = max(c["seconds"] for c in cold["components"])
    per_comp_warm = max(c["seconds"] for c in warm["components"])
    oks = [
        _check("cold total (process wall, from .gz)", cold["wall_seconds"], TARGETS["total"]),
        _check("slowest component after the passes (cold)", per_comp, TARGETS["per_component"]),
        _check("slowest component after the passes (warm)", per_comp_warm, TARGETS["per_component"]),
        _check("warm total (process wall, from cache)", warm["wall_seconds"], TARGETS["warm_total"]),
        _check("peak RSS (cold)", cold["peak_rss_mb"], TARGETS["rss_mb"], "MB"),
        _check("peak RSS (warm)", warm["peak_rss_mb"], TARGETS["rss_mb"], "MB"),
    ]
    want = min(len(meta["topics"]), args.k)
    rec = prec["n_distinct_matched"] >= want and prec["mean_precision"] >= 0.8
    print(f"  {'PASS' if rec else 'FAIL'}  planted topics recovered: precision "
          f"{prec['mean_precision']:.3f}, {prec['n_distinct_matched']} distinct planted topics "
          f"matched by the {args.k} found (of {len(meta['topics'])} planted)")
    oks.append(rec)
    if kos is not None:
        print(f"  {'info'}  KOS extract_topics {kos['timings']['total']:.2f} s "
              f"(target < {TARGETS['kos_total']:g} s with the CLI; process {kos['wall_seconds']:.2f} s)")
    print("\n== summary (issue 30 targets at --pubmed 1: cold <= 30 s, warm <= 3 s, <= 1536 MB, "
          "precision >= 0.8) ==")
    load = os.getloadavg()
    print(f"  cold wall {cold['wall_seconds']:.2f} s (CPU {cold.get('cpu_timings', {}).get('total', 0):.1f} s), "
          f"warm wall {warm['wall_seconds']:.2f} s (CPU {warm.get('cpu_timings', {}).get('total', 0):.1f} s), "
          f"peak RSS cold {cold['peak_rss_mb']:.0f} MB / warm {warm['peak_rss_mb']:.0f} MB, "
          f"precision {prec['mean_precision']:.3f} ({prec['n_distinct_matched']} planted topics "
          f"matched); load average {load[0]:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        from eigensparse.io._atomic import atomic_open

        with atomic_open(args.json, "w") as f:
            json.dump({"cold": cold, "warm": warm, "kos": kos, "precision": prec,
                       "corpus": {k: v for k, v in meta.items() if k != "topics"}}, f, indent=1)
    if args.delete_corpus:
        shutil.rmtree(args.dir, ignore_errors=True)
        print(f"deleted {args.dir}")
    return 0 if all(oks) else 1


if __name__ == "__main__":
    sys.exit(main())

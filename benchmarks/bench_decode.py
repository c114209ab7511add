"""Reading a ``docword.*.txt.gz`` at disk speed: each decoder, and the whole read, in one run.

For one gzip file (``--docword``; default: a generated PubMed-shaped corpus at
``--scale`` of 8.2M documents × 141,043 words), rounds interleave the candidates so that
a busy machine slows them alike; the table gives the median wall and CPU seconds and
the spread (min–max) over the rounds:

- ``gzip -dc``: GNU gzip to /dev/null (reference, when installed);
- ``inflate zlib`` / ``inflate isal``: the decoder alone (1 MB reads, bytes dropped);
- ``read zlib`` / ``read isal``: :func:`eigensparse.io.iter_uci_chunks` with that decoder
  (decode in a background thread, the compiled parser and validation in this one);
- ``pass 1a``: the whole pass 1a (:func:`eigensparse.io._build.build_uci_cache`: the
  file into a fresh binary cache, decoded on one thread, parsed on two, written in
  order), what a cold ``topics`` run spends before its first pass over the cache;
- ``crc32`` / ``sha256`` of the raw file (the cache key; SHA-256 for reference).

Usage::

    python benchmarks/bench_decode.py --scale 0.0625 --rounds 3
    python benchmarks/bench_decode.py --docword docword.pubmed.txt.gz
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def _inflate(path, mod):
    n = 0
    with open(path, "rb") as f:
        d = mod.decompressobj(wbits=31)
        while True:
            raw = f.read(1 << 20)
            if not raw:
                return n
            buf = raw
            while buf:
                if d is None:
                    d = mod.decompressobj(wbits=31)
                n += len(d.decompress(buf))
                buf, d = (d.unused_data, None) if d.eof else (b"", d)


def _read(path, name):
    from eigensparse.io.uci import _UCIStream

    s = _UCIStream(path, decoder=name)
    try:
        return sum(ch.nnz for ch in s.chunks())
    finally:
        s.close()


def _pass_1a(path):
    from eigensparse.io._build import build_uci_cache

    tmp = tempfile.mkdtemp(prefix="eigensparse-pass1a-")
    try:
        build_uci_cache(path, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 24):
            h.update(b)
    return h.hexdigest()


def _corpus(scale, directory):
    from eigensparse.datasets.synthetic_corpus import make_zipf_corpus

    c = make_zipf_corpus(directory, name="pubmed", mode="pubmed", scale=scale)
    return c.docword


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docword")
    ap.add_argument("--scale", type=float, default=1 / 64)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    import zlib

    from eigensparse.io._source import DECODERS, file_crc32

    tmp = None
    path = args.docword
    if path is None:
        tmp = tempfile.mkdtemp(prefix="eigensparse-decode-")
        path = _corpus(args.scale, tmp)
    cands = {}
    if shutil.which("gzip"):
        cands["gzip -dc"] = lambda: subprocess.run(["gzip", "-dc", path], stdout=subprocess.DEVNULL,
                                                   check=True)
    for name, mod in sorted(DECODERS.items(), reverse=True):
        cands[f"inflate {name}"] = lambda mod=mod: _inflate(path, mod)
    for name in sorted(DECODERS, reverse=True):
        cands[f"read {name}"] = lambda name=name: _read(path, name)
    cands["pass 1a"] = lambda: _pass_1a(path)
    cands["crc32"] = lambda: file_crc32(path)
    cands["sha256"] = lambda: _sha256(path)
    _read(path, None)  # compile the parsers once
    _pass_1a(path)
    times = {k: [] for k in cands}
    for _ in range(args.rounds):
        for k, fn in cands.items():
            t, c = time.perf_counter(), time.process_time()
            fn()
            times[k].append((time.perf_counter() - t, time.process_time() - c))
    size = os.path.getsize(path)
    print(f"{path}: {size / 2**20:.0f} MiB gzip, {args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'candidate':14s} {'wall s':>8s} {'(min-max)':>15s} {'cpu s':>7s} {'MB/s gz':>8s}")
    for k, v in times.items():
        w = [a for a, _ in v]
        c = statistics.median(b for _, b in v)  # children's CPU (gzip) is not counted
        print(f"{k:14s} {statistics.median(w):8.2f} {min(w):7.2f}-{max(w):<7.2f} {c:7.2f} "
              f"{size / statistics.median(w) / 1e6:8.0f}")
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Compile the package's numba kernels into their on-disk cache (``cache=True``) while the
test session collects and runs its first tests.

The root ``conftest.py`` starts this script as a separate process at the start of a test
session (``EIGENSPARSE_NUMBA_WARMUP=0`` turns it off): on a fresh checkout every kernel is
compiled once, on the second core, before most tests need it, and a test that reaches a
kernel first compiles it itself as it would without this script. Only public entry points
are called, on small problems of the kinds the tests use (the same argument types, so the
same compiled signatures), roughly in the order the test session first needs them. Each
step is independent: one that fails is skipped in silence (the tests report errors). With
pytest-xdist the workers run the steps themselves, each step by one of them
(``pytest_collection_finish`` in the root ``conftest.py``).
"""
import contextlib
import os
import warnings


def steps():
    import numpy as np
    import scipy.sparse as sp

    import eigensparse as es

    rng = np.random.default_rng(0)
    dense = rng.standard_normal((60, 24))
    dense[:, :4] += 2 * rng.standard_normal((60, 1))
    wide = rng.standard_normal((40, 700))
    counts = sp.csr_matrix(rng.poisson(0.6, (300, 80)).astype(float))

    def small_auto():  # the default method on a small problem: certified by its search
        es.sparse_pca(dense, n_components=2, cardinality=4, random_state=0)

    def wide_auto():  # the wide route: partners, swaps, truncated power from supports
        es.sparse_pca(wide, n_components=2, cardinality=6, random_state=0)

    def topics():  # the topic engine on counts: passes, screening, gram accumulation
        from eigensparse.text import extract_topics

        extract_topics(counts, n_topics=2, cardinality=4, progress=False)

    def kos():  # the bundled corpus through its reader, its topics streamed from the file
        from eigensparse.datasets import load_kos
        from eigensparse.text import extract_topics

        kos = load_kos()
        extract_topics(*kos.filenames.values(), n_topics=1, cardinality=3, progress=False)

    def documents():  # the tokenizer: a table and compressed lines, as the readers pass them
        import gzip
        import tempfile

        import pyarrow as pa

        from eigensparse.io._tokenize import TokenCounter
        from eigensparse.io.documents import TextCorpus

        tc = TokenCounter()
        tc.count(pa.array(["Café naïve ΣΊΣΥΦΟΣ", "x_y 12 ab"]))
        tc.vocabulary()
        with tempfile.TemporaryDirectory() as tmp:
            table = os.path.join(tmp, "docs.csv")
            with open(table, "w", encoding="utf-8") as f:
                f.write("id,body\nd0,Sparse PCA finds topics\nd1,topics of text\n")
            lines = os.path.join(tmp, "docs.txt.gz")
            with open(lines, "wb") as f:
                f.write(gzip.compress(b"Sparse PCA\r\ntopics of text\n"))
            for corpus in (TextCorpus(table, text_column="body", id_column="id",
                                      cache_dir=os.path.join(tmp, "c")),
                           TextCorpus(lines, cache_dir=os.path.join(tmp, "c"))):
                for _ in corpus.iter_chunks():
                    pass

    def exact():
        es.sparse_pca(dense, n_components=1, cardinality=5, method="exact")

    def node_bounds():  # the Lanczos bound of a large block in the exact search
        from eigensparse.solvers._exact import _bounds

        G = rng.standard_normal((2 * _bounds.LANCZOS_MIN, 2 * _bounds.LANCZOS_MIN))
        B = G @ G.T
        _bounds.top_eig_upper(B, np.ones(B.shape[0]))
        _bounds.top_eig_upper(B, np.ones((B.shape[0], 2))[:, 0])  # a strided start

    def covariance():  # a covariance's checks (PSD Lanczos steps) and the default on it
        C = np.cov(wide[:, :300].T)
        es.sparse_pca(es.Covariance(C), n_components=1, cardinality=10, random_state=0)

    def exact_nodes():  # node bounds of a search that branches: dual block, Ritz splits
        C = np.cov(rng.standard_normal((300, 120)).T)
        es.sparse_pca(es.Covariance(C), n_components=1, cardinality=8, method="exact",
                      max_time=1.0)

    def relaxation():
        for method in ("bca", "bipartite"):
            es.sparse_pca(dense, n_components=2, cardinality=4, method=method)

    def corpus():
        import tempfile

        from eigensparse.datasets import make_synthetic_corpus

        with tempfile.TemporaryDirectory() as tmp:
            make_synthetic_corpus(tmp, n_docs=50, n_words=300, random_state=0)

    # the steps that run the default method need small_auto's kernels (a worker waits for
    # them rather than compile them a second time)
    for step in (kos, topics, wide_auto, exact, covariance, exact_nodes):
        step.after_first = True
    return [small_auto, documents, relaxation, node_bounds, corpus, kos, topics, wide_auto, exact,
            covariance, exact_nodes]


def run(step):
    """One step, its warnings and errors silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            step()
        except Exception:  # noqa: BLE001 - a warm-up, not a test
            pass


@contextlib.contextmanager
def private_folders(folder):
    """Never the user's cache or data folder: both under ``folder`` while the steps run."""
    saved = {k: os.environ.get(k) for k in ("EIGENSPARSE_CACHE_DIR", "EIGENSPARSE_DATA")}
    os.environ["EIGENSPARSE_CACHE_DIR"] = os.path.join(folder, "cache")
    os.environ["EIGENSPARSE_DATA"] = os.path.join(folder, "data")
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main():
    import tempfile

    if hasattr(os, "nice"):
        os.nice(5)  # the tests first
    with tempfile.TemporaryDirectory() as tmp, private_folders(tmp):
        for step in steps():
            run(step)


if __name__ == "__main__":
    main()

"""Support stability of topics refitted on the working set (``text/_stability.py``): the
working-set rows, each resample's covariance against NumPy, and a planted topic found
in every resample."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.io.corpus import open_corpus
from eigensparse.text import extract_topics
from eigensparse.text._passes import CorpusPasses
from eigensparse.text._stability import _resample_covariance, working_set_rows


@pytest.mark.parametrize("scaling, transform", [("count", lambda A: A),
                                                 ("binary", lambda A: (A > 0).astype(float)),
                                                 ("log", np.log1p)])
def test_working_set_rows_are_the_scaled_columns(corpus, scaling, transform):
    X, path = corpus
    ws = np.array([1, 4, 9, 10, 17, 29])
    for source in (X, path):  # in memory, and streamed from the file in small chunks
        passes = CorpusPasses(open_corpus(source, cache=False), scaling, chunk_nnz=997)
        Xw = working_set_rows(passes, ws)
        assert sp.issparse(Xw) and Xw.shape == (X.shape[0], ws.size)
        assert np.allclose(Xw.toarray(), transform(X.toarray())[:, ws])
        assert passes.passes[-1]["name"] == "stability: working-set rows"


@pytest.mark.parametrize("center", [True, False])
def test_resample_covariance_is_numpys_on_the_resampled_rows(center):
    rng = np.random.default_rng(7)
    Xw = sp.random(60, 7, density=0.4, random_state=1, format="csr") * 5
    rows = rng.integers(0, 60, size=60)  # a bootstrap resample: repeats, rows left out
    assert np.unique(rows).size < 60
    A = Xw.toarray()[rows]
    want = np.cov(A, rowvar=False, bias=True) if center else A.T @ A / rows.size
    got = _resample_covariance(Xw, rows, center)
    assert np.allclose(got, want) and np.array_equal(got, got.T)


def test_planted_topics_are_stable_over_resamples(corpus):
    X, _ = corpus
    res = extract_topics(X, n_topics=2, cardinality=5, scaling="count", min_df=1, max_df=1.0,
                         working_set=15, max_working_set=15, stability=6, random_state=0,
                         progress=False)
    st = res.info["stability"]
    assert st.n_resamples == 6 and st.frequencies.shape == (2, X.shape[1])
    planted = [set(range(16, 21)), set(range(8, 13))]  # the two strongest groups
    assert [set(t.word_ids.tolist()) for t in res.topics] == planted
    assert np.all(st.stability >= 0.9)
    # a word outside the working set is never selected; every frequency is a fraction
    outside = np.setdiff1d(np.arange(X.shape[1]), res.working_set)
    assert outside.size == X.shape[1] - 15
    assert not st.frequencies[:, outside].any()
    assert np.all((st.frequencies >= 0) & (st.frequencies <= 1))

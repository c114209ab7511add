"""Every route to words refuses blank and repeated words the same way (issue #33): a
vocabulary file, a list given to extract_topics / open_corpus, a table header, a
DataFrame's columns (sparse_pca and the estimator), a Covariance's feature_names, the
estimator's topics(vocabulary=...)."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from eigensparse import Covariance, InvalidParameterError, SparsePCA, sparse_pca
from eigensparse.io import open_corpus, read_vocabulary
from eigensparse.io._vocab import check_vocabulary
from eigensparse.io.tabular import read_table
from eigensparse.text import extract_topics

RULE = "every word (feature name) must be a distinct, non-blank string"


def _counts(n_words=4):
    rng = np.random.default_rng(0)
    return sp.csr_matrix(rng.integers(0, 3, size=(12, n_words)).astype(float))


@pytest.mark.parametrize("words, what", [
    (["a", "", "c", "d"], "entry 1: blank word ''"),
    (["a", "b", "  ", "d"], "entry 2: blank word '  '"),
    (["a", "b", "a", "a"], "entry 2: duplicate word 'a' (first at entry 0)"),
    (["a"] * 4, "entry 1: duplicate word 'a' (first at entry 0)"),
    (["a", None, "c", "d"], "entry 1: NoneType None is not a string"),
    (["a", "b", "\u200b", "d"], "entry 2: blank word '\\u200b'"),
    (["a", "b", "a ", "d"], "entry 2: duplicate word 'a ' (first at entry 0: 'a' up to white "
                            "space or Unicode normalization)"),
    (["\u00e9t\u00e9", "b", "e\u0301te\u0301", "d"],
     "entry 2: duplicate word 'e\u0301te\u0301' (first at entry 0: '\u00e9t\u00e9' up to white "
     "space or Unicode normalization)"),
])
def test_list_vocabulary_refused_by_every_topic_route(words, what):
    msg = f"parameter 'vocab': {what}; {RULE}"
    for call in (lambda: extract_topics(_counts(), words, n_topics=1, cardinality=2, progress=False),
                 lambda: open_corpus(_counts(), words)):
        with pytest.raises(InvalidParameterError) as err:
            call()
        assert str(err.value) == msg + "."


@pytest.mark.parametrize("text, line, what", [
    ("a\n\nc\n", 2, "blank word ''"),
    ("a\nb\n \n", 3, "blank word ' '"),
    ("a\nb\na\n", 3, "duplicate word 'a' (first on line 1)"),
])
def test_vocabulary_file_refuses_blanks_and_repeats(tmp_path, text, line, what):
    path = tmp_path / "vocab.txt"
    path.write_text(text)
    with pytest.raises(InvalidParameterError, match=rf"vocab.txt: line {line}: .*") as err:
        read_vocabulary(path)
    assert what in str(err.value) and RULE in str(err.value)


def test_dataframe_columns_and_feature_names_routes():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 3))
    dup = pd.DataFrame(X, columns=["a", "b", "a"])
    blank = pd.DataFrame(X, columns=["a", "", "c"])
    for call, msg in [
        (lambda: sparse_pca(dup, n_components=1, cardinality=2),
         "parameter 'data': column 2: duplicate word 'a' (first at column 0)"),
        (lambda: SparsePCA(n_components=1, cardinality=2).fit(dup),
         "parameter 'X': column 2: duplicate word 'a' (first at column 0)"),
        (lambda: SparsePCA(n_components=1, cardinality=2).fit(blank),
         "parameter 'X': column 1: blank word ''"),
        (lambda: Covariance(np.eye(3), feature_names=["a", "b", "b"]),
         "parameter 'feature_names': entry 2: duplicate word 'b' (first at entry 1)"),
        (lambda: SparsePCA(n_components=1, cardinality=2).fit(X).topics(["x", "y", "x"]),
         "parameter 'vocabulary': entry 2: duplicate word 'x' (first at entry 0)"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            call()
        assert str(err.value) == f"{msg}; {RULE}."
    # integer column names (a DataFrame's default) are names like any other
    assert sparse_pca(pd.DataFrame(X), n_components=1, cardinality=2).feature_names == ["0", "1", "2"]


@pytest.mark.parametrize("header, col, what", [
    ("a,b,a", 3, "duplicate word 'a' (first in column 1)"),
    ("id,a,,c", 3, "blank word ''"),
    ("id,a,b,b", 4, "duplicate word 'b' (first in column 3)"),
])
def test_table_header_refuses_blanks_and_repeats(tmp_path, header, col, what):
    path = tmp_path / "t.csv"
    rows = "x,1,2,3\ny,4,5,7\n" if header.count(",") == 3 else "1,2,3\n4,5,7\n"
    path.write_text(header + "\n" + rows)
    with pytest.raises(InvalidParameterError) as err:
        read_table(path)
    assert str(err.value) == f"{path}: line 1: column {col}: {what}; {RULE}."


def test_index_column_without_a_name_is_fine(tmp_path):
    path = tmp_path / "t.csv"  # as pandas' to_csv writes it
    path.write_text(",a,b\nr1,1,2\nr2,3,5\nr3,1,1\n")
    X, names = read_table(path)
    assert names == ["a", "b"] and X.shape == (3, 2)
    assert check_vocabulary(np.array(["u", "v"])) == ["u", "v"]


def test_uci_file_with_an_array_or_series_vocabulary(tmp_path):
    path = tmp_path / "docword.t.txt"
    path.write_text("3\n4\n5\n1 1 2\n1 3 1\n2 2 4\n3 4 1\n3 1 1\n")
    for words in (np.array(["a", "b", "c", "d"]), pd.Series(["a", "b", "c", "d"])):
        assert open_corpus(path, words, cache=False).words == ["a", "b", "c", "d"]
    with pytest.raises(InvalidParameterError) as err:
        open_corpus(path, np.array(["a", "b", "", "d"]), cache=False)
    assert str(err.value) == f"parameter 'vocab': entry 2: blank word ''; {RULE}."

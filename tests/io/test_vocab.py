"""The vocabulary reader (``io/_vocab.py``): line endings, a byte-order mark, and errors
that name the file, the line and the problem."""
import pytest

from eigensparse import InvalidParameterError
from eigensparse.io import UCICorpus, read_uci_bow
from eigensparse.io._vocab import read_vocabulary


def test_vocabulary(tmp_path, bow):
    assert read_vocabulary(bow.write(tmp_path / "v1", "a\nb\nc\n"), 3) == ["a", "b", "c"]
    assert read_vocabulary(bow.write(tmp_path / "v2", "a\r\nb\r\nc"), 3) == ["a", "b", "c"]
    assert read_vocabulary(bow.write(tmp_path / "v3", "\ufeffé\nb\n"), 2) == ["é", "b"]
    with pytest.raises(InvalidParameterError, match=r"v4: line 3: vocabulary ends after 2 words .*shorter than W"):
        read_vocabulary(bow.write(tmp_path / "v4", "a\nb\n"), 3)
    with pytest.raises(InvalidParameterError, match=r"v5: line 3: .*longer than W .*'c'"):
        read_vocabulary(bow.write(tmp_path / "v5", "a\nb\nc\nd\n"), 2)
    with pytest.raises(InvalidParameterError, match=r"v6: line 2: vocabulary is not valid UTF-8"):
        read_vocabulary(bow.write(tmp_path / "v6", b"ok\nbad\xff\xfe\n"), 2)
    with pytest.raises(InvalidParameterError, match=r"v7: line 1: empty vocabulary"):
        read_vocabulary(bow.write(tmp_path / "v7", ""), 2)


def test_uci_bow_with_wrong_vocabulary(tmp_path, bow):
    d = bow.write(tmp_path / "d.txt", "1\n3\n1\n1 1 1\n")
    with pytest.raises(InvalidParameterError, match=r"v.txt: line 3: .*shorter than W"):
        read_uci_bow(d, bow.write(tmp_path / "v.txt", "a\nb\n"))
    with pytest.raises(InvalidParameterError, match=r"v.txt: line 3: .*shorter than W"):
        UCICorpus(d, str(tmp_path / "v.txt"), cache=False)

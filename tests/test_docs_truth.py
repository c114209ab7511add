"""The docs say what the code does (issue #33)."""
from pathlib import Path

from eigensparse.selection import TOPIC_CARDINALITY_MAX, TOPIC_CARDINALITY_MIN, TOPIC_GRID

ROOT = Path(__file__).resolve().parents[1]


def test_readme_does_not_say_the_bundled_dataset_is_read_from_memory():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "`--dataset` is read from memory" not in text
    assert "and so is `--dataset kos`" in text


def test_topics_guide_does_not_promise_max_df_removes_function_words():
    text = " ".join((ROOT / "docs/user_guide/topics.rst").read_text(encoding="utf-8").split())
    assert "``max_df`` catches the frequent function words" not in text
    assert "``max_df`` does **not** replace it on raw text" in text


def test_help_of_the_estimator_documents_the_topics_rule():
    from eigensparse import SparsePCA, sparse_pca

    grid = ", ".join(str(s) for s in TOPIC_GRID)
    for doc in (SparsePCA.__doc__, sparse_pca.__doc__):
        flat = " ".join(doc.split())
        assert '"topics"' in flat and grid in flat
        assert f"[{TOPIC_CARDINALITY_MIN}, {TOPIC_CARDINALITY_MAX}]" in flat

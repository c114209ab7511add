import numpy as np

from eigensparse.io._rows import RowStore


def test_rows_spilled_to_scratch_come_back_in_order(tmp_path):
    rng = np.random.default_rng(0)
    store = RowStore(tmp_path, memory_entries=10)
    batches = []
    for _ in range(4):
        lens = rng.integers(0, 5, size=6)
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        idx = rng.integers(0, 50, size=indptr[-1]).astype(np.int32)
        cnt = rng.integers(1, 9, size=indptr[-1]).astype(np.int32)
        store.add(indptr, idx, cnt)
        batches.append((lens, idx, cnt))
    assert np.array_equal(store.lengths(), np.concatenate([b[0] for b in batches]))
    store.close()

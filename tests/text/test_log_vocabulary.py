"""The log and the table use one vocabulary for "proven" (issue #33): the swap test is
reported as local optimality ("no swap with a word left out improves it"), never as
"exact" or "proven"; only the table's ``certified`` says a topic is proven the best."""
import re

import numpy as np
import scipy.sparse as sp

from eigensparse.text import extract_topics
from eigensparse.text._working_set import LOCAL_OPTIMUM


def test_log_never_claims_what_the_table_does_not(capsys):
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(0.3, size=(400, 120)).astype(float))
    words = [f"w{i}" for i in range(120)]
    res = extract_topics(X, words, n_topics=2, cardinality=4, min_df=1, max_df=1.0,
                         progress=None, random_state=0)
    log = capsys.readouterr().err
    topic_lines = [ln for ln in log.splitlines() if re.match(r"eigensparse: topic \d", ln)]
    assert topic_lines and any(LOCAL_OPTIMUM in ln for ln in topic_lines)
    text = "\n".join([log] + list(res.messages))
    assert not re.search(r"\bexact by\b|\bproven\b|\bproves\b", text)

"""What every data command prints and writes (``cli/_report.py``): the header, the
component table, a total line whose percentage is the result's, and the JSON document."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

import eigensparse as es
from eigensparse.cli._report import print_timings, report


@pytest.fixture(scope="module")
def res():
    return es.sparse_pca(es.Covariance(es.datasets.load_pitprops().data), n_components=2,
                         cardinality=3, method="greedy")


def _args(**kw):
    return SimpleNamespace(**{"command": "fit", "json": None, "verbose": False, "plot": None, **kw})


def test_report_prints_header_table_and_total(res, capsys):
    report(res, _args(), header="HEADER", note="a note")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "HEADER"
    pct = 100 * float(np.sum(res.explained_variance_ratio))
    assert out[-1] == f"total: explained (adjusted) {pct:.2f}% of {res.total_variance:.4g}; a note"
    assert "\n".join(out[1:-1]) in (res.format_table(ascii=False), res.format_table(ascii=True))


def test_report_writes_the_result_document_with_extras(res, tmp_path, capsys):
    path = tmp_path / "out.json"
    report(res, _args(json=str(path), verbose=True), header="H", extra_json={"source": "pitprops"})
    out, err = capsys.readouterr()
    assert any(res.format_table(ascii=a) in out for a in (False, True)) and f"wrote {path}" in err
    doc = json.loads(path.read_text())
    assert doc["source"] == "pitprops"
    ref = json.loads(json.dumps(res.to_dict(), default=lambda o: o.tolist()))
    assert {k: doc[k] for k in ref} == ref


def test_timings_only_with_verbose(capsys):
    print_timings(_args(), load=0.5)
    assert capsys.readouterr().err == ""
    print_timings(_args(verbose=True), load=0.014, solve=1.0)
    assert capsys.readouterr().err == "timings: load 0.01s, solve 1.00s\n"

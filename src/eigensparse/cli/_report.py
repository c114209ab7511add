"""What every data command prints and writes: a header line, the component table of
:meth:`eigensparse.SparsePCAResult.format_table` (the cells of every table: signed
loadings, variance, explained %, upper bound, relative gap, ``certified``, and the
stability row and the cardinality choices when asked), a total line, the one JSON schema
(:meth:`eigensparse.SparsePCAResult.to_dict`) and the figures of ``--plot``
(:func:`eigensparse.plotting.plot_result`)."""
from __future__ import annotations

import sys

import numpy as np

__all__ = ["report", "print_timings"]


def report(res, args, *, header: str, extra_json: dict | None = None, note: str = "") -> None:
    """Print ``res`` (a SparsePCAResult) — its table (:meth:`format_table`: the one
    column layout of every component table; the topics table for a
    :class:`~eigensparse.text.TopicsResult`), ASCII only when the terminal cannot print
    ``−`` — and write ``--json`` when asked."""
    from .._printable import printable
    from .._result import write_json

    print(printable(header))
    print(res.format_table(ascii=_ascii()))
    total = f"total: explained (adjusted) {100 * float(np.sum(res.explained_variance_ratio)):.2f}% " \
            f"of {res.total_variance:.4g}"
    if res.total_line():
        total += f"; {res.total_line()}"
    print(total + (f"; {note}" if note else ""))
    if args.json:
        doc = res.to_dict()
        doc.update(extra_json or {})
        write_json(args.json, doc)
        if args.verbose:
            print(f"wrote {printable(args.json)}", file=sys.stderr)
    if getattr(args, "plot", None):  # the figures of -s auto and --stability; each
        from ..plotting import plot_result  # command writes its own diagnostics besides

        for path in plot_result(res, path=args.plot, loadings=False):
            print(f"wrote {printable(path)}", file=sys.stderr)


def _ascii() -> bool:
    enc = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return "utf" not in enc


def print_timings(args, **seconds) -> None:
    """With ``-v``: one line ``timings: load 0.01s, solve 0.20s`` on stderr."""
    if args.verbose:
        print("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in seconds.items()), file=sys.stderr)

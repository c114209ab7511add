"""What every data command prints and writes: a header line, the component table of
:meth:`eigensparse.SparsePCAResult.format_table` (with the stability row and the
cardinality choices when asked), a total line, the one JSON schema
(:meth:`eigensparse.SparsePCAResult.to_dict`) and the figures of ``--plot``
(:func:`eigensparse.plotting.plot_result`)."""
from __future__ import annotations

import sys

import numpy as np

__all__ = ["report", "print_timings"]


def report(res, args, *, header: str, extra_json: dict | None = None, note: str = "",
           table: str | None = None) -> None:
    """Print ``res`` (a SparsePCAResult) — its table, or ``table`` when the command has
    its own (the topics table) — and write ``--json`` when asked."""
    from .._result import write_json

    print(header)
    print(res.format_table(unit="words" if args.command == "topics" else None)
          if table is None else table)
    total = f"total: explained (adjusted) {100 * float(np.sum(res.explained_variance_ratio)):.2f}% " \
            f"of {res.total_variance:.4g}"
    print(total + (f"; {note}" if note else ""))
    if args.json:
        doc = res.to_dict()
        doc.update(extra_json or {})
        write_json(args.json, doc)
        if args.verbose:
            print(f"wrote {args.json}", file=sys.stderr)
    if getattr(args, "plot", None):  # the figures of -s auto and --stability; each
        from ..plotting import plot_result  # command writes its own diagnostics besides

        for path in plot_result(res, args.plot, loadings=False):
            print(f"wrote {path}", file=sys.stderr)


def print_timings(args, **seconds) -> None:
    """With ``-v``: one line ``timings: load 0.01s, solve 0.20s`` on stderr."""
    if args.verbose:
        print("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in seconds.items()), file=sys.stderr)

"""``python -m eigensparse``: the command line (:func:`eigensparse.cli.main`); Ctrl-C, even
during the imports, prints one line and exits 130."""
try:
    from .cli import main
except KeyboardInterrupt:  # pragma: no cover - a Ctrl-C within the first milliseconds
    import os
    import sys

    print("eigensparse: interrupted", file=sys.stderr, flush=True)
    os._exit(130)

raise SystemExit(main())

"""``python -m eigensparse``: the command line (:func:`eigensparse.cli.main`); Ctrl-C, even
during the imports, prints one line and exits 130."""
try:
    from .cli import main
except KeyboardInterrupt:  # pragma: no cover - a Ctrl-C within the first milliseconds
    import sys

    print("eigensparse: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())

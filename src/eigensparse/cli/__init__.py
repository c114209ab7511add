"""Command line: ``eigensparse`` / ``python -m eigensparse``.

Commands
--------
topics   sparse principal components of a bag-of-words corpus, printed as topics
fit      sparse principal components of a data file (CSV/TSV, .npy, .npz, Matrix Market)
         or of a precomputed covariance
methods  list the available methods (from the method registry)

Every data command builds its options from :mod:`._options` (components, method and
its registry-generated options, scaling and centering, output) and prints and writes
its result with :mod:`._report` (one table, one JSON schema).

Ctrl-C at any moment, the imports included, prints one line ``eigensparse: interrupted``
and exits with status 130; outputs are written atomically, so none is left half-written.
Whatever the terminal's encoding, printing never fails: the output streams escape what
they cannot encode (``\\udcff``, ``\\u2212``), set before any work starts.
"""
from __future__ import annotations

import sys

__all__ = ["main", "build_parser"]

#: exit status after Ctrl-C (128 + SIGINT, as a shell reports it)
INTERRUPTED = 130


def build_parser():
    """The ``eigensparse`` argument parser: one sub-command per module (``topics``, ``fit``,
    ``methods``), method options generated from the registry.

    Examples
    --------
    >>> from eigensparse.cli import build_parser
    >>> args = build_parser().parse_args(["fit", "data.csv", "-k", "2", "-s", "3"])
    >>> args.command, args.n_components, args.cardinality
    ('fit', 2, 3)
    """
    from . import _fit, _methods, _topics
    from ._options import OneLineParser

    parser = OneLineParser(
        prog="eigensparse",
        description="Sparse principal component analysis: readable components with an exact "
                    "number of nonzero loadings.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices
    for command in (_topics, _fit, _methods):
        command.add_parser(sub)
    return parser


def _version():
    from .. import __version__

    return __version__


def _one_line_warnings(argv=None):
    """Show warnings as one line each on stderr (``eigensparse: warning: ...``, names
    escaped as in errors); returns the previous ``warnings.showwarning`` to restore."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"eigensparse: warning: {_one_line(message, argv)}", file=sys.stderr)

    old, warnings.showwarning = warnings.showwarning, show
    return old


def safe_output_streams() -> list:
    """Make ``sys.stdout`` and ``sys.stderr`` escape what their encoding cannot write
    (``errors="backslashreplace"``): a file name that is not valid UTF-8 (``\\udcff``) or a
    word outside an ASCII terminal's alphabet then prints as an escape, never as an error
    after the work. Done before any work; streams that cannot be reconfigured are left.
    Returns ``(stream, previous errors)`` pairs, for :func:`_restore_streams`."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        reconfigure, errors = getattr(stream, "reconfigure", None), getattr(stream, "errors", None)
        if reconfigure is not None and errors is not None:
            try:
                reconfigure(errors="backslashreplace")
                changed.append((stream, errors))
            except (ValueError, OSError):  # pragma: no cover - a closed or detached stream
                pass
    return changed


def _restore_streams(changed) -> None:
    """The streams' error handlers as they were (``main`` called from Python)."""
    for stream, errors in changed:
        try:
            stream.reconfigure(errors=errors)
        except (ValueError, OSError):  # pragma: no cover - closed meanwhile
            pass


def interrupted() -> int:
    """Report Ctrl-C as one line on stderr; returns the exit status 130. A second Ctrl-C
    while reporting is ignored."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        pass
    try:
        print("eigensparse: interrupted", file=sys.stderr)
    except (OSError, ValueError):  # pragma: no cover - stderr closed
        pass
    return INTERRUPTED


def exit_now(status: int) -> None:
    """Flush the output streams and end the process with ``status`` at once: after Ctrl-C,
    neither a worker thread still busy nor the interpreter's own report of an interrupt
    that rose through a C extension's code (which makes CPython end by SIGINT, not 130)
    may change how the program ends. Outputs are already whole: they are written
    atomically."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # pragma: no cover - closed stream
            pass
    os._exit(status)


def _one_line(exc, argv) -> str:
    """The first line of an error's (or a warning's) message, every argument (a path, any
    text) with a line break or another control character escaped first, so that the line
    names it whole (:func:`eigensparse._printable.printable`)."""
    from .._printable import printable

    text = str(exc) or type(exc).__name__
    for arg in sys.argv[1:] if argv is None else argv:
        if isinstance(arg, str) and not arg.isprintable() and arg in text:
            text = text.replace(arg, printable(arg))
    return printable(text.splitlines()[0] if text.strip() else type(exc).__name__)


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit
    status (0; 2 after a one-line error on stderr; 130 after Ctrl-C at any moment).
    The program itself (``argv`` None) ends by :func:`finish`.

    Examples
    --------
    >>> from eigensparse.cli import main
    >>> main(["methods"])  # doctest: +ELLIPSIS
    method...auto...
    0
    """
    changed = []
    try:
        changed = safe_output_streams()
        status = _main(argv)
    except KeyboardInterrupt:
        status = interrupted()
        if argv is None:  # the program itself (``eigensparse``, ``python -m eigensparse``)
            exit_now(status)
        return status
    finally:
        _restore_streams(changed)
    if argv is None:
        finish(status)
    return status


def finish(status: int) -> None:
    """End the program with ``status`` once its work is done, without the interpreter's
    teardown (freeing every module's objects, numba's and LLVM's among them: a large
    part of a second's work after a topic run): the output streams flushed and the
    ``atexit`` functions run first, as a normal exit does. Returns (a normal exit then
    follows) while a thread other than daemons is still running or when a stream cannot
    be flushed (e.g. a closed pipe, which Python reports)."""
    import atexit
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    exit_now(status)


def _main(argv) -> int:
    from .._validation import InvalidParameterError
    from ._options import CLIError, check_output_paths

    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)  # usage errors: one line, exit 2
    if unknown:  # reported by the command's parser, as parse_args would by the top one
        command = parser.commands.get(args.command, parser)
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 0
    import warnings

    old_showwarning = _one_line_warnings(argv)
    try:
        check_output_paths(args)
        return args.run(args)
    except (CLIError, InvalidParameterError, ValueError, OSError) as exc:
        print(f"eigensparse: error: {_one_line(exc, argv)}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = old_showwarning

"""Ctrl-C without tracebacks, for every command of simcore and its analysis.

Two pieces:

- :class:`StopRequest` lets a long loop stop where its state is consistent: while it is
  active, the first SIGINT only records the request (``simcore run`` then finishes the
  step it is in, writes a checkpoint and exits); a second SIGINT raises
  :class:`KeyboardInterrupt` at once.
- :func:`run_main` wraps a command-line entry point so that a :class:`KeyboardInterrupt`
  ends it with one line on stderr and exit status 130 (:data:`EXIT_INTERRUPTED`), as a
  shell reports it for a program that Ctrl-C stopped: the process ends by SIGINT
  (:func:`exit_interrupted`), so a shell loop that ran it stops too.

Python runs signal handlers between bytecodes, so a compiled kernel (numba, a CUDA
launch waited on) finishes its call before either Ctrl-C takes effect.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import NoReturn

#: Exit status after Ctrl-C: 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 128 + int(signal.SIGINT)


class StopRequest:
    """While active (``with StopRequest() as stop:``), the first Ctrl-C sets
    :attr:`requested` instead of raising, so the caller can stop between two steps of
    its work; a second Ctrl-C raises :class:`KeyboardInterrupt` at once.

    Handlers can only be set in the main thread, so elsewhere (and where SIGINT is
    ignored, e.g. a job started in the background) it changes nothing and Ctrl-C keeps
    its usual effect.
    """

    def __init__(self) -> None:
        self.requested = False
        self._previous: Callable | int | None = None
        self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN:
                self._previous = previous
                signal.signal(signal.SIGINT, self._handle)
                self._installed = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False


def interrupted(prog: str) -> int:
    """Say on stderr that ``prog`` was interrupted (one line); the exit status to use."""
    print(f"{prog}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def exit_interrupted() -> NoReturn:
    """End the process as Ctrl-C ends a program that does not catch it: killed by SIGINT,
    which a shell reports as exit status 130 (``$?``).

    A plain ``exit(130)`` would tell a shell that the program handled Ctrl-C itself, and
    a shell loop or script (``for f in *.yaml; do simcore run ...; done``) would go on
    with its next command; killed by SIGINT, it stops as well.  Call it after the one
    line and the clean-up (nothing half-written is left: writes are atomic).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
    sys.exit(EXIT_INTERRUPTED)  # where SIGINT does not end the process


#: Exit status where the reader of standard output went away (``| head``): 128 + SIGPIPE,
#: what a shell reports for a program that the closed pipe ended.
EXIT_CLOSED_OUTPUT = 141


def closed_output() -> int:
    """Standard output's reader is gone: point stdout at the null device, so that
    Python's last flush raises nothing either, and return :data:`EXIT_CLOSED_OUTPUT`.
    Output cut short by its reader is what the user asked for: no message, no traceback."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    return EXIT_CLOSED_OUTPUT


def guarded_status(main: Callable[[], int | None], prog: str) -> int | None:
    """``main()``'s exit status, with Ctrl-C turned into one line (``PROG: interrupted``)
    and :data:`EXIT_INTERRUPTED`, and output cut by its reader (``| head``) into
    :func:`closed_output`'s quiet status, instead of a traceback."""
    try:
        status = main()
        sys.stdout.flush()
    except KeyboardInterrupt:
        status = interrupted(prog)
    except BrokenPipeError:
        status = closed_output()
    return status


def run_main(main: Callable[[], int | None], prog: str) -> NoReturn:
    """``sys.exit(main())`` for a command-line entry point, through
    :func:`guarded_status`; Ctrl-C ends the process by SIGINT (:func:`exit_interrupted`)."""
    status = guarded_status(main, prog)
    if status == EXIT_INTERRUPTED:
        exit_interrupted()
    sys.exit(status)

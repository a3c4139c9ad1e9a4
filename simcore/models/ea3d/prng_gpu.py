"""GPU helpers of the generator benchmark (``simcore bench prng``,
:mod:`simcore.models.ea3d.prng_bench`): the exception of a generator that cannot run here,
synchronisation, timing of kernel launches, and an exception as one short line."""

from __future__ import annotations

from collections.abc import Callable


class NotAvailable(Exception):
    """A generator that cannot run on this machine: its row's status says why."""


def sync() -> None:
    """Wait for the current GPU to finish its work."""
    import cupy as cp

    cp.cuda.Device().synchronize()


def error_summary(exc: BaseException) -> str:
    """An exception as one short line for a row's status (compiler logs are long)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    error = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    return f"{type(exc).__name__}: {error}"[:200]


def time_launches(launch: Callable[[], None], launches: int) -> list[float]:
    """Seconds of each of ``launches`` calls of ``launch`` (CUDA events), after one
    untimed call (module loading, caches)."""
    import cupy as cp

    launch()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(launches):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return out

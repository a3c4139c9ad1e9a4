"""Wall limits of batch allocations: when the jobs of a campaign must stop.

A campaign run inside a time-limited allocation (a Slurm job, an interactive GPU
session) stops its simulate jobs with a checkpoint before the allocation ends, and the
next allocation's identical command resumes them.  The workflow sets the time for all
jobs of one ``snakemake`` command through the environment variable :data:`STOP_AT_ENV`
(seconds since the epoch); ``simcore run`` reads it as the default of ``--stop-at``.
An environment variable, not a job parameter: the time differs in every allocation, and
a changed parameter would make Snakemake rerun finished jobs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from simcore.checks import ConfigError

#: The environment variable holding the time (seconds since the epoch) at which the
#: simulate jobs of a campaign stop with a checkpoint.
STOP_AT_ENV = "SIMCORE_STOP_AT"


def stop_at_from_env(environ: Mapping[str, str] | None = None) -> float | None:
    """The stop time of :data:`STOP_AT_ENV` (None when unset or empty); a ConfigError
    naming the variable when it is no number."""
    text = (os.environ if environ is None else environ).get(STOP_AT_ENV, "").strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise ConfigError(
            STOP_AT_ENV, text, "must be a time in seconds since the epoch, e.g. $(date +%s)"
        ) from None


def campaign_stop_at(max_wall: float | None, now: float | None = None) -> float | None:
    """When the jobs of a campaign command started at ``now`` stop: ``max_wall`` seconds
    later (None: no limit)."""
    if max_wall is None:
        return None
    return (time.time() if now is None else now) + float(max_wall)

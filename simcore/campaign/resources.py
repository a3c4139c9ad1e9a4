"""Resource requests of simulate jobs: the model says what a job costs
(:meth:`~simcore.models.spec.ModelSpec.work`), this module turns it into Snakemake's
``runtime``, ``mem_mb`` and ``gpu``, the same way for every model."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from simcore.campaign.schema import CampaignError, load_schema
from simcore.checks import closest
from simcore.models.spec import ModelSpec


def resource_parameters(spec: ModelSpec, given: Mapping[str, Any]) -> dict[str, float]:
    """The campaign's ``job_resources`` completed with defaults: the schema's common
    parameters (safety, min_runtime, base_mem_mb) and the model's rates."""
    common = load_schema()["properties"]["job_resources"]["properties"]
    known = {**{k: v["default"] for k, v in common.items()},
             **{k: default for k, (default, _) in spec.resource_rates.items()}}  # fmt: skip
    for key, value in given.items():
        if key not in known:
            raise CampaignError(
                f"job_resources.{key}: unknown key{closest(key, known)} (value: {value!r}; "
                f"known for model {spec.name}: {', '.join(known)})"
            )
    return {**known, **given}


def job_resources(
    spec: ModelSpec, job: Mapping[str, Any], attempt: int = 1,
    parameters: Mapping[str, float] | None = None,
) -> dict[str, int]:  # fmt: skip
    """Resource request of one simulate job (a run config): a simple, documented guess.

    * ``runtime`` [min] = ``max(min_runtime, ceil(safety * seconds / 60))``, with the
      job's seconds from the model's work estimate at the campaign's rates;
    * ``mem_mb`` = ``base_mem_mb`` + 3 x (state + results) + scratch, in MiB;
    * ``gpu`` = 1 for backend gpu;

    runtime and memory multiplied by ``2**(attempt - 1)``, so a retry after a timeout or
    an out-of-memory kill asks for more.  ``parameters``: the campaign's ``job_resources``
    (checked and completed with defaults here).
    """
    return estimate(spec, job, attempt, resource_parameters(spec, parameters or {}))


#: Minutes a job's runtime request exceeds the campaign's ``max_wall`` by: the step under
#: way when the limit passes, the checkpoint write and the start-up.
WALL_MARGIN_MIN = 5


def estimate(
    spec: ModelSpec,
    job: Mapping[str, Any],
    attempt: int,
    par: Mapping[str, float],
    max_wall: float | None = None,
) -> dict[str, int]:
    """:func:`job_resources` with parameters already completed by
    :func:`resource_parameters` (a campaign completes them once, not per job).  With a
    campaign ``max_wall`` (seconds) the runtime is capped at it plus
    :data:`WALL_MARGIN_MIN`: the job stops there with a checkpoint and a retry resumes
    it, so no request needs to be longer."""
    work = spec.work(job, par)
    scale = 2 ** max(int(attempt) - 1, 0)
    runtime = max(int(par["min_runtime"]), math.ceil(par["safety"] * work.seconds / 60.0))
    mem_mb = (
        int(par["base_mem_mb"])
        + math.ceil(3 * (work.state_bytes + work.result_bytes) / 2**20)
        + math.ceil(work.scratch_bytes / 2**20)
    )
    runtime *= scale
    if max_wall is not None:
        runtime = min(runtime, math.ceil(float(max_wall) / 60.0) + WALL_MARGIN_MIN)
    return {
        "runtime": runtime,
        "mem_mb": mem_mb * scale,
        "gpu": int(job["backend"] == "gpu"),
    }

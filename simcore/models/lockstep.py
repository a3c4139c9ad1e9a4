"""Progress of a job whose samples all advance together: the state's ``ti`` counts the
sampling times done of ``self.times`` (and ``t_now``, where there is one, the time reached
between them).  Used by the EA3D, kmc2d and fcc jobs and by the
GPU KPZ job."""

from __future__ import annotations

import numpy as np

from simcore.models.spec import ModelSpec
from simcore.sampling import time_reached


class LockstepProgress:
    """``done``, ``fraction_done`` and ``describe`` for jobs with ``self.times``, a state
    ``ti`` and ``self.spec``, the spec that built the job."""

    times: np.ndarray
    samples: int
    cfg: dict
    spec: ModelSpec

    @property
    def time_unit(self) -> str:
        """Unit of the sampling times in progress lines: the spec's for this config."""
        return self.spec.time_units(self.cfg)[0]

    def done(self, st: dict) -> bool:
        """True when the last sampling time has been measured."""
        return int(st["ti"]) >= self.times.size

    def fraction_done(self, st: dict) -> float:
        """Fraction of the job's time (MCS or sweeps) that is done."""
        return time_reached(st, self.times) / float(self.times[-1])

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines (needs ``samples`` and ``scheme``)."""
        t_now = time_reached(st, self.times)
        unit = f" {self.time_unit}" if self.time_unit else ""
        scheme = getattr(self, "scheme", "")
        return f"t = {t_now}/{int(self.times[-1])}{unit}, {self.samples} samples, {scheme}"

"""The RD job: ``samples`` rings advanced together, W^2 at log-spaced times.

Deposition a of MCS t of sample j falls on column (r0 L) >> 32 of Philox counter
(a, t, j, STREAM << 24), key = the job seed: any split or resume draws the same columns.
"""

from __future__ import annotations

import numba
import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.io.dataset import HEIGHT2, in_model_units, sample_coord, time_attributes
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.rng import philox4x32
from simcore.sampling import sampling_times
from simcore.seeding import philox_key

#: Stream tag, from the block that simcore leaves to other packages (0x80-0xff).
STREAM = 0x80


@numba.njit(cache=True)
def deposit(h, t0, n_mcs, sample, k0, k1):
    """``n_mcs`` MCS of L depositions each on the ring ``h``, from MCS ``t0``."""
    L = h.size
    tag = np.uint32(STREAM << 24)
    for t in range(t0, t0 + n_mcs):
        for a in range(L):
            r0, _, _, _ = philox4x32(a, t, sample, tag, k0, k1)
            h[(np.uint64(r0) * np.uint64(L)) >> np.uint64(32)] += 1


class RD1DSimulation(OnCPU, LockstepProgress):
    """Random deposition on the CPU for one validated run config, built by its spec
    (``spec``: the time unit of the run file and of progress lines)."""

    def __init__(self, cfg: dict, spec: ModelSpec):
        self.cfg, self.spec = cfg, spec
        self.L, self.samples = int(cfg["L"]), int(cfg["samples"])
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], [])
        self.k0, self.k1 = philox_key(cfg["seed"])
        self.scheme = "random deposition"

    def initial_state(self) -> dict:
        """Flat rings, nothing measured."""
        return {
            "ti": 0,
            "h": np.zeros((self.samples, self.L), dtype=np.int64),
            "W2": np.full((self.samples, self.times.size), np.nan),
        }

    def step(self, st: dict) -> None:
        """Deposit up to the next sampling time; record W^2 of every sample."""
        ti = int(st["ti"])
        t_from = int(self.times[ti - 1]) if ti > 0 else 0
        t_to = int(self.times[ti])
        for j in range(self.samples):
            deposit(st["h"][j], t_from, t_to - t_from, j, self.k0, self.k1)
        st["W2"][:, ti] = st["h"].var(axis=1)
        st["ti"] = ti + 1

    def to_dataset(self, st: dict) -> xr.Dataset:
        """W^2(sample, t) with CF attributes (the time unit from the spec)."""
        return xr.Dataset(
            {"W2": (("sample", "t"), st["W2"],
                    in_model_units("squared surface width W^2", HEIGHT2))},
            coords={
                "sample": sample_coord(self.cfg, self.samples),
                "t": ("t", self.times, time_attributes(self.spec, self.cfg)),
            },
        )  # fmt: skip

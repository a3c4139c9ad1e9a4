"""One KPZ job on the GPU: all samples of the job advance together under a DD scheme.

The lattices of the S samples live on the GPU as one (S, words) array, so one
launch per phase covers every domain of every sample (small lattices still fill
the GPU).  Heights, W^2, C_h and C_s are reduced on the GPU
(:mod:`.gpu_observables`); only per-sample numbers come back to the host.
At a waiting time s the job keeps the packed lattice and the event count, not the
heights: the heights at s are rebuilt from them whenever C_h needs them (bit for bit
the same, :func:`.gpu_observables.heights`), which keeps the GPU memory and the
checkpoint at 2 bits instead of 32 per site and waiting time (a 32-sample job at
L = 2^13 checkpoints 1.5 GiB instead of 17.5).
The dataset is the CPU simulation's, bit for bit, for the same config with
``backend: cpu`` (the numba twin); so are the height snapshots of ``snapshot_samples``,
which come back from the heights the job measures at t_max, one sample at a time.
"""

from __future__ import annotations

import numpy as np

from simcore.backends.cuda import StateOnGPU
from simcore.models.kpz import gpu_observables as obs
from simcore.models.kpz.geometry import geometry_from_config
from simcore.models.kpz.gpu import DDKernel
from simcore.models.kpz.lattice import flat_lattice
from simcore.models.kpz.simulation import KPZSimulation
from simcore.models.kpz.spec import SPEC
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.sampling import step_toward_sampling_time


class KPZGPUSimulation(StateOnGPU, LockstepProgress, KPZSimulation):
    """Octahedron model, two-layer DD scheme, on the current CUDA device: the CPU job with
    the sweeps, the observables and the state on the GPU, all samples in lockstep."""

    on_device = ("lat", "net", "snap_net", "snap_lat")

    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        super().__init__(cfg, spec)
        self.scheme = str(cfg["scheme"])
        self.kernel = DDKernel(geometry_from_config(cfg), self.params)

    def initial_state(self) -> dict:
        """State before the first update: every sample flat, at t = 0."""
        import cupy as cp

        S, nt, ns = self.samples, self.times.size, self.waits.size
        flat = cp.asarray(flat_lattice(2, self.L))
        return {
            "ti": 0,
            "t_now": 0,
            "W2": np.full((S, nt), np.nan),
            "mean_h": np.full((S, nt), np.nan),
            "C_h": np.full((S, ns, nt), np.nan),
            "C_s": np.full((S, ns, nt), np.nan),
            "lat": cp.tile(flat, (S, 1)),
            "net": cp.zeros(S, dtype=cp.int64),
            "snap_net": cp.zeros((ns, S), dtype=cp.int64),
            "snap_lat": cp.zeros((ns, S, flat.size), dtype=cp.uint32),
            **self._initial_snapshot(),  # on the host: filled once, at t_max
        }

    def step(self, st: dict) -> None:
        """Advance all samples toward the next sampling time (at most
        :attr:`STEP_ATTEMPTS` attempts) and record the observables once they are there."""
        ti = int(st["ti"])

        def sweeps(t: int, n: int) -> None:
            self.kernel.sweeps(st["lat"], st["net"], t, n, 0, self.k0, self.k1)

        attempts = self.samples * self.n_sites
        t_to = step_toward_sampling_time(st, self.times, attempts, self.STEP_ATTEMPTS, sweeps)
        if t_to is None:
            return
        h = obs.heights(st["lat"], self.L, st["net"])
        st["W2"][:, ti], st["mean_h"][:, ti] = obs.width_and_mean(h)
        if ti + 1 == self.times.size:  # t_max: the snapshots, one sample's heights at a time
            for j in range(self.n_snapshots):
                self._keep_snapshot(st, j, h[j].get())
        for k, s in enumerate(self.waits):
            if s == t_to:
                st["snap_net"][k] = st["net"]
                st["snap_lat"][k] = st["lat"]
            if s <= t_to:
                h_s = h if s == t_to else obs.heights(st["snap_lat"][k], self.L, st["snap_net"][k])
                st["C_h"][:, k, ti] = obs.height_autocorrelation(h, h_s)
                del h_s
                st["C_s"][:, k, ti] = obs.slope_autocorrelation(st["lat"], st["snap_lat"][k])
        st["ti"] = ti + 1

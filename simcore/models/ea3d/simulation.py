"""One EA3D job: 64 k disorder samples x 4 replicas quenched from a random start to T.

All samples advance together (they are the bits of the coded words); the energy per
spin of every replica and the six replica overlaps of every sample are recorded at
log-spaced sweeps.  The same class runs on the CPU (numba) and on the GPU (CUDA): the
state's spin words live on the device of the backend, everything else on the host.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from simcore.io.dataset import sample_coord
from simcore.models.ea3d.kernels import PRNG_CODE, n_generators, sweeps_philox, sweeps_stateful
from simcore.models.ea3d.lattice import (
    LAYOUT_ID,
    N_REPLICAS,
    init_couplings,
    init_spins,
    neighbour_table,
    physical_table,
)
from simcore.models.ea3d.observables import PAIRS, energy_per_spin, overlaps
from simcore.models.ea3d.rule import thresholds
from simcore.models.lockstep import LockstepProgress
from simcore.sampling import sampling_times


class EA3DSimulation(LockstepProgress):
    """The EA3D model for one validated run config (``backend`` cpu or gpu)."""

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.L, self.layout = int(cfg["L"]), str(cfg["layout"])
        self.lid = LAYOUT_ID[self.layout]
        self.k = int(cfg["samples"]) // 64
        self.samples = 64 * self.k
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], [])
        self.thr = thresholds(float(cfg["T"]))
        seed = int(cfg["seed"])
        self.k0, self.k1 = seed & 0xFFFFFFFF, seed >> 32
        self.J = init_couplings(self.lid, self.L, self.k, self.k0, self.k1)
        self.nbr = neighbour_table(self.lid, self.L)
        self.phys = physical_table(self.lid, self.L)
        self.prng = str(cfg["prng"])
        self.gpu = cfg["backend"] == "gpu"
        if self.gpu:
            import cupy as cp

            from simcore.models.ea3d.gpu import EA3DKernel

            self._kernel = EA3DKernel(self.layout, self.L, self.k, prng=self.prng)
            self._J_dev = cp.asarray(self.J)

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """The random start (a quench from infinite temperature), nothing measured yet."""
        nt = self.times.size
        host = {
            "ti": 0,
            "S": init_spins(self.lid, self.L, self.k, self.k0, self.k1),
            "energy": np.full((self.samples, N_REPLICAS, nt), np.nan),
            "q": np.full((self.samples, len(PAIRS), nt), np.nan),
        }
        if self.prng != "philox":
            from simcore.rng.classic import init_state

            seed = (self.k1 << 32) | self.k0
            host["prng_state"], host["prng_aux"] = init_state(
                self.prng, seed, n_generators(self.L, self.k)
            )
        return self.from_host(host)

    def to_host(self, st: dict) -> dict:
        """The state as host arrays, for a checkpoint (couplings are rebuilt from the seed)."""
        if not self.gpu:
            return st
        import cupy as cp

        return {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in st.items()}

    def from_host(self, st: dict) -> dict:
        """The state restored from host arrays (spins moved to the GPU for backend gpu)."""
        if not self.gpu:
            return st
        import cupy as cp

        on_gpu = ("S", "prng_state", "prng_aux")
        return {k: (cp.asarray(v) if k in on_gpu else v) for k, v in st.items()}

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines."""
        ti = int(st["ti"])
        t_now = int(self.times[ti - 1]) if ti > 0 else 0
        return f"sweep {t_now}/{int(self.times[-1])}, {self.samples} samples x 4 replicas"

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Sweep to the next sampling time and record energies and overlaps."""
        ti = int(st["ti"])
        t_to = int(self.times[ti])
        t_from = int(self.times[ti - 1]) if ti > 0 else 0
        n = t_to - t_from
        if n > 0 and self.prng != "philox":
            if self.gpu:
                self._kernel.sweeps_stateful(
                    st["S"], self._J_dev, n, st["prng_state"], st["prng_aux"], self.thr
                )
            else:
                sweeps_stateful(st["S"], self.J, self.nbr, PRNG_CODE[self.prng],
                                st["prng_state"], st["prng_aux"], n, *self.thr)  # fmt: skip
        elif n > 0:
            if self.gpu:
                self._kernel.sweeps(st["S"], self._J_dev, t_from, n, self.k0, self.k1, self.thr)
            else:
                sweeps_philox(
                    st["S"], self.J, self.nbr, self.phys, t_from, n, self.k0, self.k1, *self.thr
                )
        S = self.to_host(st)["S"] if self.gpu else st["S"]
        st["energy"][:, :, ti] = energy_per_spin(S, self.J, self.nbr).T
        st["q"][:, :, ti] = overlaps(S).T
        st["ti"] = ti + 1

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """The job's results with CF-style attributes (global attributes by the runner)."""
        coords = {
            "sample": sample_coord(
                self.cfg,
                self.samples,
                long_name="disorder sample index",
                comment="bit b of coded word w is sample 64 w + b",
            ),
            "time": (
                "time",
                self.times,
                {
                    "long_name": "time",
                    "units": "sweeps",
                    "comment": "1 sweep = one Metropolis update of every spin (red, then blue)",
                },
            ),  # fmt: skip
            "replica": ("replica", np.arange(N_REPLICAS), {"long_name": "replica", "units": "1"}),
            "pair": (
                "pair",
                np.array([f"{a}{b}" for a, b in PAIRS]),
                {"long_name": "replica pair ab of the overlap q_ab"},
            ),
        }
        data = {
            "energy": (
                ("sample", "replica", "time"),
                st["energy"],
                {
                    "long_name": "energy per spin e = H / L^3",
                    "units": "1",
                    "comment": "in units of |J|; H = -sum over bonds J sigma sigma",
                },
            ),  # fmt: skip
            "q": (
                ("sample", "pair", "time"),
                st["q"],
                {
                    "long_name": "replica overlap q_ab = (1/L^3) sum_i sigma_i^a sigma_i^b",
                    "units": "1",
                },
            ),  # fmt: skip
        }
        return xr.Dataset(data, coords=coords)

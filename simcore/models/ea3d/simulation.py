"""One EA3D job: 64 k disorder samples x 4 replicas quenched from a random start to T.

All samples advance together (they are the bits of the coded words); the energy per
spin of every replica and the six replica overlaps of every sample are recorded at
log-spaced sweeps.  The same class runs on the CPU (numba) and on the GPU (CUDA): the
state's spin words live on the device of the backend, everything else on the host.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.backends.cuda import StateOnGPU
from simcore.io.dataset import in_model_units, sample_coord, time_attributes
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
from simcore.models.ea3d.spec import SPEC
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.sampling import sampling_times, step_toward_sampling_time, time_reached
from simcore.seeding import philox_key


class EA3DSimulation(OnCPU, LockstepProgress):
    """The EA3D model on the CPU (numba) for one validated run config; the GPU job is the
    subclass :class:`EA3DGPUSimulation`, which overrides the sweep and where the spins live.
    The couplings are not part of the state: they are rebuilt from the seed."""

    # spec: the spec that builds the job (ModelSpec.simulation passes itself), for its
    # units; the model's own for a job built directly (a test, a bench kernel).
    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        self.cfg, self.spec = cfg, spec
        self.L, self.layout = int(cfg["L"]), str(cfg["layout"])
        self.lid = LAYOUT_ID[self.layout]
        self.k = int(cfg["samples"]) // 64
        self.samples = 64 * self.k
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], [])
        self.thr = thresholds(float(cfg["T"]))
        self.k0, self.k1 = philox_key(cfg["seed"])
        self.J = init_couplings(self.lid, self.L, self.k, self.k0, self.k1)
        self.nbr = neighbour_table(self.lid, self.L)
        self.phys = physical_table(self.lid, self.L)
        self.prng = str(cfg["prng"])

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """The random start (a quench from infinite temperature), nothing measured yet."""
        nt = self.times.size
        host = {
            "ti": 0,
            "t_now": 0,
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

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines."""
        t_now = time_reached(st, self.times)
        return f"sweep {t_now}/{int(self.times[-1])}, {self.samples} samples x 4 replicas"

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Sweep toward the next sampling time (at most :attr:`STEP_ATTEMPTS` spin updates)
        and record energies and overlaps once there."""
        ti = int(st["ti"])
        attempts = N_REPLICAS * self.samples * self.L**3

        def sweeps(t: int, n: int) -> None:
            self._sweeps(st, t, n)

        if step_toward_sampling_time(st, self.times, attempts, self.STEP_ATTEMPTS, sweeps) is None:
            return
        S = self._host_spins(st)
        st["energy"][:, :, ti] = energy_per_spin(S, self.J, self.nbr).T
        st["q"][:, :, ti] = overlaps(S).T
        st["ti"] = ti + 1

    def _sweeps(self, st: dict, t_from: int, n: int) -> None:
        """``n`` sweeps from sweep ``t_from`` (numba, in place)."""
        if self.prng != "philox":
            sweeps_stateful(st["S"], self.J, self.nbr, PRNG_CODE[self.prng],
                            st["prng_state"], st["prng_aux"], n, *self.thr)  # fmt: skip
        else:
            sweeps_philox(
                st["S"], self.J, self.nbr, self.phys, t_from, n, self.k0, self.k1, *self.thr
            )

    def _host_spins(self, st: dict) -> np.ndarray:
        """The spin words on the host, for the measurement."""
        return st["S"]

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
            "t": (
                "t",
                self.times,
                time_attributes(
                    self.spec,
                    self.cfg,
                    comment="1 sweep = one Metropolis update of every spin (red, then blue)",
                ),
            ),
            "replica": ("replica", np.arange(N_REPLICAS), {"long_name": "replica", "units": "1"}),
            "pair": (
                "pair",
                np.array([10 * a + b for a, b in PAIRS], dtype=np.int64),
                {
                    "long_name": "replica pair ab of the overlap q_ab, as the number 10 a + b",
                    "units": "1",
                    "comment": "pairs 01 02 03 12 13 23 (a numeric coordinate: CF coordinates "
                    "are numbers)",
                },
            ),
        }
        data = {
            "energy": (
                ("sample", "replica", "t"),
                st["energy"],
                in_model_units(
                    "energy per spin e = H / L^3",
                    self.spec.energy_unit,
                    comment="H = -sum over bonds J sigma sigma, couplings J = +-1",
                ),
            ),
            "q": (
                ("sample", "pair", "t"),
                st["q"],
                {
                    "long_name": "replica overlap q_ab = (1/L^3) sum_i sigma_i^a sigma_i^b",
                    "units": "1",
                },
            ),  # fmt: skip
        }
        return xr.Dataset(data, coords=coords)


class EA3DGPUSimulation(StateOnGPU, EA3DSimulation):
    """The EA3D job on the current CUDA device: the spins (and stateful generators) live on
    the GPU between sampling times; the same lattices as the CPU job bit for bit."""

    on_device = ("S", "prng_state", "prng_aux")

    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        super().__init__(cfg, spec)
        import cupy as cp

        from simcore.models.ea3d.gpu import EA3DKernel

        self._kernel = EA3DKernel(self.layout, self.L, self.k, prng=self.prng)
        self._J_dev = cp.asarray(self.J)

    def _sweeps(self, st: dict, t_from: int, n: int) -> None:
        if self.prng != "philox":
            self._kernel.sweeps_stateful(
                st["S"], self._J_dev, n, st["prng_state"], st["prng_aux"], self.thr
            )
        else:
            self._kernel.sweeps(st["S"], self._J_dev, t_from, n, self.k0, self.k1, self.thr)

    def _host_spins(self, st: dict) -> np.ndarray:
        import cupy as cp

        return cp.asnumpy(st["S"])

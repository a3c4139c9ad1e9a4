"""One fcc binary-alloy job (kelling2012 sec. 2.2): ``samples`` independent L^3 boxes, each
quenched from a random mixture of B concentration c to the bond energy epsilon (in units
of k_B T), run to t_max MCS under one schedule, observables recorded at log-spaced times.

Schemes (conventions: :mod:`simcore.models.fcc`): ``sequential`` (random-sequential, the
reference), ``dt`` (two-layer double tiling with blocks of side ``block_side``; the CPU DD
on all the cores numba is given, or the GPU kernel with all samples in lockstep) and
``slabs`` (one-dimensional dead border with ``n_slabs`` slabs, a slab per core: the MPI
code's twin).  The dt CPU and GPU runs give the same lattices bit for bit.

Sample j of a job uses sample number j in every Philox counter (the random mixture and the
dynamics); the job seed differs between the blocks of a point, so ``sample_offset`` only
labels the samples in the run file (as for kmc2d and kpz).  The state is plain arrays (the
lattice words, the exchange counters, the observables so far and ``ti``), so a checkpoint
resumes bit-identically; on the GPU the lattices stay on the device between sampling
times and are copied back at each one (the observables are measured on the host).
"""

from __future__ import annotations

import time

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.backends.cuda import OnGPU
from simcore.io.dataset import in_model_units, lockstep_wall_time, sample_coord, time_attributes
from simcore.models.fcc import SLICE
from simcore.models.fcc.decomposed import dt_sweeps
from simcore.models.fcc.kernels import sequential_sweeps
from simcore.models.fcc.lattice import random_mixture
from simcore.models.fcc.observables import (
    bond_observables,
    domain_size,
    shells,
    slice_picture,
    structure_factor,
)
from simcore.models.fcc.rule import thresholds
from simcore.models.fcc.slabs import slab_sweeps
from simcore.models.fcc.spec import SPEC
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.sampling import sampling_times, step_toward_sampling_time, time_reached
from simcore.seeding import philox_key

#: Lengths are in lattice spacings of the simple cubic lattice (the fcc sites are those
#: with x + y + z even).
LENGTH = "lattice spacing"
#: Per (sample, time) observables: name -> (long name, model units; None: dimensionless).
OBSERVABLES = {
    "open_bonds": ("A-B bonds per B particle, 12 - 2 (B-B bonds) / N_B", None),
    "energy": (
        "energy per site -(B-B bonds) / N in units of the bond energy epsilon, N = L^3/2 fcc sites",
        "epsilon",
    ),
    "domain_size": (
        "domain size 2 pi / k1, k1 the first moment of the spherically averaged S(k)",
        LENGTH,
    ),
}


class FCCSimulation(OnCPU, LockstepProgress):
    """The fcc alloy on the CPU for one validated run config (scheme sequential, dt on all
    cores, or slabs); the GPU job is the subclass :class:`FCCGPUSimulation`, which
    overrides the sweeps and where the lattices live."""

    # spec: the spec that builds the job (ModelSpec.simulation passes itself), for its
    # units; the model's own for a job built directly (a test, a bench kernel).
    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        self.cfg, self.spec = cfg, spec
        self.L, self.samples = int(cfg["L"]), int(cfg["samples"])
        self.c, self.epsilon = float(cfg["c"]), float(cfg["epsilon"])
        self.thr = thresholds(self.epsilon)
        self.both = cfg["active"] == "both"
        self.scheme = str(cfg["scheme"])
        self.block_side = int(cfg.get("block_side") or 0)
        self.n_slabs = int(cfg.get("n_slabs") or 0)
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], [])
        self.k0, self.k1 = philox_key(cfg["seed"])

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """Every sample a random mixture (sample j from Philox sample number j), nothing
        measured yet; ``k`` holds the wavenumber shells of S(k)."""
        S, nt = self.samples, self.times.size
        lat = np.stack([random_mixture(self.L, self.c, self.k0, self.k1, j) for j in range(S)])
        k = shells(self.L)
        st = {
            "ti": 0,
            "t_now": 0,
            "lat": lat,
            "moves": np.zeros(S, dtype=np.int64),
            "k": k,
            "wall": np.zeros(nt),
            "obs_moves": np.zeros((S, nt), dtype=np.int64),
            "obs_structure_factor": np.full((S, nt, k.size), np.nan),
        }
        for name in OBSERVABLES:
            st[f"obs_{name}"] = np.full((S, nt), np.nan)
        return st

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Advance every sample toward the next sampling time (at most
        :attr:`STEP_ATTEMPTS` attempts) and record the observables once there; ``wall``
        adds up the seconds of the steps to each sampling time."""
        ti = int(st["ti"])
        if time_reached(st, self.times) == (int(self.times[ti - 1]) if ti > 0 else 0):
            st["wall"][ti] = st["wall"][ti - 1] if ti > 0 else 0.0

        def sweeps(t: int, n: int) -> None:
            start = time.perf_counter()
            self._sweeps(st, t, n)
            st["wall"][ti] += time.perf_counter() - start

        attempts = self.samples * self.L**3 // 2
        if step_toward_sampling_time(st, self.times, attempts, self.STEP_ATTEMPTS, sweeps) is None:
            return
        self._measure(st, ti)
        st["ti"] = ti + 1

    def _sweeps(self, st: dict, t0: int, mcs: int) -> None:
        """MCS t0 .. t0 + mcs - 1 of each sample under the job's scheme (numba, in place)."""
        L, k0, k1, thr, both = self.L, self.k0, self.k1, self.thr, self.both
        for j in range(self.samples):
            lat = st["lat"][j]
            if self.scheme == "dt":
                _, moves = dt_sweeps(lat, L, self.block_side, t0, mcs, j, k0, k1, thr, both)
            elif self.scheme == "slabs":
                _, moves = slab_sweeps(lat, L, self.n_slabs, t0, mcs, j, k0, k1, thr, both)
            else:
                _, moves = sequential_sweeps(lat, L, t0, mcs, j, k0, k1, thr, both)
            st["moves"][j] += moves

    def _measure(self, st: dict, ti: int) -> None:
        for j in range(self.samples):
            lat = st["lat"][j]
            st["obs_open_bonds"][j, ti], st["obs_energy"][j, ti] = bond_observables(lat, self.L)
            k, S = structure_factor(lat, self.L)
            st["obs_structure_factor"][j, ti] = S
            st["obs_domain_size"][j, ti] = domain_size(k, S)
        st["obs_moves"][:, ti] = st["moves"]

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """The job's results with CF-style attributes (global attributes by the runner)."""
        n = min(self.L, SLICE)
        coords = {
            "sample": sample_coord(self.cfg, self.samples),
            "t": (
                "t",
                self.times.astype(np.int64),
                time_attributes(
                    self.spec,
                    self.cfg,
                    comment="1 MCS = N = L^3/2 exchange attempts (every schedule)",
                ),
            ),
            "k": (
                "k",
                np.asarray(st["k"], dtype=np.float64),
                in_model_units(
                    "wavenumber |k| of the spherical shell (width 2 pi / L)",
                    f"1/{LENGTH}",
                    comment="lattice spacing of the simple cubic lattice; 0 < |k| < pi",
                ),
            ),
            "row": ("row", np.arange(n, dtype=np.int64), {"long_name": "y", "units": "1"}),
            "col": ("col", np.arange(n, dtype=np.int64), {"long_name": "x", "units": "1"}),
        }
        dims = ("sample", "t")
        data = {
            name: (
                dims,
                st[f"obs_{name}"],
                {"long_name": long_name, "units": "1"}
                if units is None
                else in_model_units(long_name, units),
            )
            for name, (long_name, units) in OBSERVABLES.items()
        }
        data["moves"] = (
            dims,
            st["obs_moves"],
            {"long_name": "exchanges (accepted moves) since t = 0", "units": "1"},
        )
        data["wall_time"] = lockstep_wall_time(st["wall"], self.samples)
        data["structure_factor"] = (
            ("sample", "t", "k"),
            st["obs_structure_factor"],
            {
                "long_name": "spherically averaged structure factor S(k) of the B "
                "concentration on the fcc sites, |FT(occupation - c)|^2 / N",
                "units": "1",
            },
        )
        data["slice"] = (
            ("sample", "row", "col"),
            np.stack(
                [slice_picture(st["lat"][j], self.L)[:n, :n] for j in range(self.samples)]
            ).astype(np.int8),
            {
                "long_name": f"plane z = 0 of the simple cubic picture at t_max (top-left "
                f"{n} x {n}): 1 B, 0 A or a non-fcc site",
                "units": "1",
            },
        )
        return xr.Dataset(data, coords=coords)


class FCCGPUSimulation(OnGPU, FCCSimulation):
    """Scheme dt on the current CUDA device, all samples in lockstep; the lattices come
    back to the host at every sampling time (the observables are measured there), the same
    lattices as the CPU job bit for bit."""

    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        super().__init__(cfg, spec)
        from simcore.models.fcc.gpu import DTKernel

        self._kernel = DTKernel(
            self.L, self.block_side, self.samples, self.k0, self.k1, self.thr, self.both
        )
        self._on_device = False
        self._moves_at_upload = np.zeros(self.samples, dtype=np.int64)

    def from_host(self, st: dict) -> dict:
        """The state restored from host arrays (uploaded to the GPU at the next step)."""
        self._on_device = False
        return st

    def _sweeps(self, st: dict, t0: int, mcs: int) -> None:
        """All samples in lockstep on the GPU (scheme dt); the lattices come back to the
        host for the measurement."""
        k = self._kernel
        if not self._on_device:
            k.upload(st["lat"])
            self._moves_at_upload = st["moves"].copy()
            self._on_device = True
        k.sweeps(t0, mcs)
        st["lat"] = np.ascontiguousarray(k.download())
        st["moves"] = self._moves_at_upload + np.asarray(k.moves, dtype=np.int64)

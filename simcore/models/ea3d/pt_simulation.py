"""One parallel-tempering job of the EA3D spin glass: 64 k disorder samples, two real
replicas at each of n_T temperatures, multispin Metropolis sweeps and replica exchange.

The job loop: ``exchange_every`` sweeps of every slot, the energies of every slot and
sample, one exchange step (:mod:`simcore.models.ea3d.pt_exchange`), the spins swapped to
follow the accepted exchanges, then the measurement of e, q and |q(k_min)|^2 at every
temperature, added to its logarithmic bin.  The same class runs on the CPU (numba) and, as
:class:`PTGPUSimulation`, on the GPU: only the spins live on the device; energies and
overlaps come back as per-sample integers (|q(k_min)|^2 as the float64 that the CPU
computes, bit for bit), and everything else is host code common to
both, so a GPU run equals its CPU twin bit for bit.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.backends.cuda import StateOnGPU
from simcore.io.dataset import in_model_units, sample_coord, time_attributes
from simcore.models.ea3d.lattice import (
    LAYOUT_ID,
    init_couplings,
    init_spins,
    neighbour_table,
    physical_table,
)
from simcore.models.ea3d.observables import agreeing_spins, satisfied_bonds
from simcore.models.ea3d.planes import overlap_qk2, qk2_norm, qk2_weights, site_coordinates
from simcore.models.ea3d.pt_exchange import accumulate, energies, exchange_step, exchange_tables
from simcore.models.ea3d.pt_kernels import pair_slots, swap_slots, sweeps_pt
from simcore.models.ea3d.pt_ladder import temperatures
from simcore.models.ea3d.pt_spec import SPEC
from simcore.models.ea3d.rule import thresholds
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.rng.streams import STREAM_EA_PT_SPINS
from simcore.seeding import philox_key

#: Checkpointable steps of a job at most: each is a whole number of exchange steps.
MAX_STEPS = 64


def log_bin(m: int) -> int:
    """Bin of the m-th measurement (m >= 1): bin 0 holds m = 1 and bin j >= 1 holds
    2^(j-1) < m <= 2^j, so the last bin is the second half of the run."""
    return int(m - 1).bit_length()


class PTSimulation(OnCPU, LockstepProgress):
    """Parallel tempering of the EA3D model on the CPU for one validated run config; the
    GPU job is the subclass :class:`PTGPUSimulation`.  The couplings are rebuilt from the
    seed (the same as those of an ``ea3d`` job with the same seed, size and layout)."""

    # spec: the spec that builds the job (ModelSpec.simulation passes itself), for its
    # units; the model's own for a job built directly (a test, a bench kernel).
    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        self.cfg, self.spec = cfg, spec
        self.L, self.layout = int(cfg["L"]), str(cfg["layout"])
        self.V = self.L**3
        self.lid = LAYOUT_ID[self.layout]
        self.k = int(cfg["samples"]) // 64
        self.samples = 64 * self.k
        self.T = temperatures(cfg["T_min"], cfg["T_max"], int(cfg["n_T"]))
        self.n_T, self.n_slots = self.T.size, 2 * self.T.size
        self.dbeta, self.accept_table = exchange_tables(1.0 / self.T)
        self.thr = np.array([thresholds(float(T)) for T in self.T], dtype=np.uint64)
        self.every = int(cfg["exchange_every"])
        self.M = int(cfg["t_max"]) // self.every  # exchange steps (a power of two)
        self.n_bins = self.M.bit_length()
        steps = min(self.M, MAX_STEPS)
        self.chunk = self.M // steps
        self.times = self.every * self.chunk * np.arange(1, steps + 1, dtype=np.int64)
        self.k0, self.k1 = philox_key(cfg["seed"])
        self.J = init_couplings(self.lid, self.L, self.k, self.k0, self.k1)
        self.nbr = neighbour_table(self.lid, self.L)
        self.phys = physical_table(self.lid, self.L)
        self.pa, self.pb = pair_slots(self.n_T)
        self.xyz = site_coordinates(self.lid, self.L)
        self.wgt, self.norm = qk2_weights(self.L), qk2_norm(self.L)

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """Random starts of every slot, walker i at temperature i, nothing measured."""
        n, nT, nb = self.samples, self.n_T, self.n_bins
        S = init_spins(self.lid, self.L, self.k, self.k0, self.k1, 0, -1, self.n_slots,
                       STREAM_EA_PT_SPINS)  # fmt: skip
        host = {
            "ti": 0,
            "m": 0,
            "S": S,
            "walker": np.repeat(np.arange(self.n_slots) // 2, n).reshape(self.n_slots, n),
            "trip_state": np.zeros((2, nT, n), dtype=np.int8),
            "round_trips": np.zeros((n, 2, nT), dtype=np.int64),
            "accepted": np.zeros((n, nT - 1), dtype=np.int64),
            "e_sum": np.zeros((nb, nT, n)),
            "q2_sum": np.zeros((nb, nT, n)),
            "q4_sum": np.zeros((nb, nT, n)),
            "qk2_sum": np.zeros((nb, nT, n)),
        }
        return self.from_host(host)

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines."""
        ti = int(st["ti"])
        t_now = int(self.times[ti - 1]) if ti > 0 else 0
        return (
            f"sweep {t_now}/{int(self.times[-1])}, {self.samples} samples x {self.n_T} "
            f"temperatures x 2 replicas"
        )

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """The next chunk of exchange steps (a checkpointable step of the runner)."""
        self.exchange_steps(st, self.chunk)
        st["ti"] = int(st["ti"]) + 1

    def exchange_steps(self, st: dict, count: int) -> None:
        """``count`` exchange steps: ``exchange_every`` sweeps, the exchange, and the
        measurement added to its logarithmic bin, each."""
        masks = np.zeros((2, self.n_T - 1, self.k), dtype=np.uint64)
        for _ in range(count):
            m = int(st["m"])
            self.sweeps(st, m * self.every, self.every)
            E = energies(self._satisfied(st), self.V)
            exchange_step(E, self.dbeta, self.accept_table, masks, st["walker"], st["trip_state"],
                          st["round_trips"], st["accepted"], m,
                          int(self.cfg["sample_offset"]), self.k0, self.k1)  # fmt: skip
            self._swap(st, masks)
            j = log_bin(m + 1)
            accumulate(E, self._agreeing(st), self.V, j, st["e_sum"], st["q2_sum"],
                       st["q4_sum"])  # fmt: skip
            st["qk2_sum"][j] += self._qk2(st)
            st["m"] = m + 1

    def sweeps(self, st: dict, t_from: int, n: int) -> None:
        """``n`` sweeps of every slot from sweep ``t_from`` (no exchange, no measurement;
        the benchmark times them alone)."""
        sweeps_pt(st["S"], self.J, self.nbr, self.phys, t_from, n, self.k0, self.k1, self.thr)

    def _satisfied(self, st: dict) -> np.ndarray:
        """Satisfied bonds of every slot and sample, (n_slots, samples) int64."""
        return satisfied_bonds(st["S"], self.J, self.nbr).reshape(self.n_slots, self.samples)

    def _swap(self, st: dict, masks: np.ndarray) -> None:
        swap_slots(st["S"], masks)

    def _agreeing(self, st: dict) -> np.ndarray:
        """Sites where the two replicas at each temperature agree, (n_T, samples) int64."""
        return agreeing_spins(st["S"], self.pa, self.pb).reshape(self.n_T, self.samples)

    def _qk2(self, st: dict) -> np.ndarray:
        """|q(k_min)|^2 of the two replicas at each temperature, (n_T, samples) float64."""
        qk2 = overlap_qk2(st["S"], self.pa, self.pb, self.xyz, self.wgt, self.norm)
        return qk2.reshape(self.n_T, self.samples)

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """Bin means of e, q^2, q^4 and |q(k_min)|^2 per sample and temperature, exchange
        acceptances and round trips, with CF-style attributes (global attributes by the runner)."""
        spec = self.spec
        bins = np.arange(self.n_bins)
        m_last = 1 << bins
        m_first = np.where(bins == 0, 1, (m_last >> 1) + 1)
        count = m_last - m_first + 1  # measurements per bin
        sweeps = time_attributes(spec, self.cfg)
        coords = {
            "sample": sample_coord(self.cfg, self.samples, long_name="disorder sample index",
                                   comment="bit b of coded word w is sample 64 w + b"),
            "T": ("T", self.T, in_model_units("temperature", spec.energy_unit,
                                              comment="k_B = 1; geometric ladder")),
            "t": ("t", m_last * self.every,
                  {**sweeps, "long_name": "last sweep of the logarithmic bin",
                   "comment": "a bin holds the measurements after the sweeps t_first..t "
                   "(one per exchange step); the last bin is the second half of the run"}),
            "t_first": ("t", m_first * self.every,
                        {**sweeps, "long_name": "first sweep measured in the bin"}),
            "measurements": ("t", count,
                             {"long_name": "measurements in the bin", "units": "1"}),
            "T_pair": ("T_pair", np.arange(self.n_T - 1),
                       {"long_name": "exchange pair i: temperatures T_i and T_(i+1)",
                        "units": "1"}),
            "replica": ("replica", np.arange(2), {"long_name": "real replica", "units": "1"}),
            "walker": ("walker", np.arange(self.n_T),
                       {"long_name": "configuration, labelled by the temperature it "
                        "started at", "units": "1"}),
        }  # fmt: skip
        attempts = self.M * 2
        data = {
            "energy": (("sample", "T", "t"), st["e_sum"].transpose(2, 1, 0) / count,
                       in_model_units("energy per spin e = H / L^3, mean over the bin and "
                                      "the two replicas", spec.energy_unit,
                                      comment="H = -sum over bonds J sigma sigma, J = +-1")),
            "q2": (("sample", "T", "t"), st["q2_sum"].transpose(2, 1, 0) / count,
                   {"long_name": "q^2 of the two replicas' overlap, mean over the bin",
                    "units": "1"}),
            "q4": (("sample", "T", "t"), st["q4_sum"].transpose(2, 1, 0) / count,
                   {"long_name": "q^4 of the two replicas' overlap, mean over the bin",
                    "units": "1"}),
            "qk2": (("sample", "T", "t"), st["qk2_sum"].transpose(2, 1, 0) / count,
                    {"long_name": "|q(k_min)|^2 of the two replicas' overlap field, k_min = "
                     "2 pi / L along x, y and z (mean of the three), mean over the bin",
                     "units": "1",
                     "comment": "q(k) = (1/V) sum_x q_x exp(i k.x), q_x = sigma^a_x "
                     "sigma^b_x, V = L^3; at k = 0 it is q"}),
            "exchange_acceptance": (("sample", "T_pair"), st["accepted"] / attempts,
                                    {"long_name": "accepted fraction of the exchange "
                                     "attempts between T_i and T_(i+1), both replicas",
                                     "units": "1", "attempts": attempts}),
            "round_trips": (("sample", "replica", "walker"), st["round_trips"],
                            {"long_name": "round trips T_min -> T_max -> T_min of each "
                             "configuration", "units": "1"}),
        }  # fmt: skip
        return xr.Dataset(data, coords=coords)


class PTGPUSimulation(StateOnGPU, PTSimulation):
    """The parallel-tempering job with the spins on the current CUDA device; the same
    results as the CPU job bit for bit."""

    on_device = ("S",)

    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        super().__init__(cfg, spec)
        import cupy as cp

        from simcore.models.ea3d.pt_gpu import PTKernels

        self._kernels = PTKernels(self.layout, self.L, self.k, self.n_slots, self.thr)
        self._J_dev = cp.asarray(self.J)

    def sweeps(self, st: dict, t_from: int, n: int) -> None:
        """:meth:`PTSimulation.sweeps` on the GPU."""
        self._kernels.sweeps(st["S"], self._J_dev, t_from, n, self.k0, self.k1)

    def _satisfied(self, st: dict) -> np.ndarray:
        return self._kernels.satisfied(st["S"], self._J_dev).reshape(self.n_slots, self.samples)

    def _swap(self, st: dict, masks: np.ndarray) -> None:
        self._kernels.swap(st["S"], masks)

    def _agreeing(self, st: dict) -> np.ndarray:
        return self._kernels.agreeing(st["S"]).reshape(self.n_T, self.samples)

    def _qk2(self, st: dict) -> np.ndarray:
        return self._kernels.qk2(st["S"]).reshape(self.n_T, self.samples)

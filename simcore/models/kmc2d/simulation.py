"""One exact-KMC job (darkins2024): ``samples`` independent L x L lattices from t = 0 to
t_max, observables recorded at log-spaced times.

Schemes: ``tiles`` (the tile algorithm; backend cpu, one sample after another with its
tiles on all cores, or gpu, all samples in lockstep), ``serial`` (the serial
waiting-time integrator) and ``bkl`` (BKL with a sum tree; the CPU default, the fastest
per core).  serial and bkl advance the samples in parallel, one per core (numba's
threads), every sample's numbers keyed by its index: the same lattices for any thread
count.  tiles and serial give the same lattices bit for bit; bkl is another exact
integrator of the same master equation (other random numbers).  The state is plain
arrays (checkpointable); on the GPU it lives on the device between sampling times.

``wall_time`` is the job's wall-clock time of its advances since t = 0, the same for
each sample (all samples reach a sampling time together, whichever scheme and however
many threads): events / wall_time of a sample is its share of the job's speed, their sum
over the job's samples the job's speed, and that divided by the job's threads its speed
per core.
"""

from __future__ import annotations

import time

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.backends.cuda import OnGPU
from simcore.io.dataset import (
    HEIGHT,
    HEIGHT2,
    in_model_units,
    lockstep_wall_time,
    sample_coord,
    time_attributes,
)
from simcore.models.kmc2d import SNAPSHOT
from simcore.models.kmc2d.gpu import HISTORY  # steps of (dt, accepted) kept per sample
from simcore.models.kmc2d.rates import (
    ENERGY_UNIT,
    ISING,
    MODELS,
    PARAMS,
    SOS,
    rate_table,
    rate_tables,
)
from simcore.models.kmc2d.spec import SPEC
from simcore.models.lockstep import LockstepProgress
from simcore.models.spec import ModelSpec
from simcore.sampling import sampling_times
from simcore.seeding import philox_key

#: Wall seconds a bkl step aims at: its samples run through every sampling time the pace
#: of the last step reaches in that time without waiting for each other (one parallel
#: region per step, whose start and end cost milliseconds on a loaded machine), while
#: progress lines, checkpoints and wall-time stops still come about this often.
BATCH_SECONDS = 1.0


def model_params(cfg: dict) -> tuple[float, ...]:
    """The rate model's parameters from a validated run config."""
    return tuple(float(cfg[k]) for k in PARAMS[cfg["rates"]])


def initial_lattice(cfg: dict, sample: int) -> np.ndarray:
    """The start of one sample: ``flat`` is a flat surface (height 0) for sos and all
    spins up for ising; ``random`` is spins +-1 with probability 1/2 each (from the job
    seed and the sample index; heights 0 or 1 for sos)."""
    L = int(cfg["L"])
    if cfg["start"] == "flat":
        return np.full((L, L), 0 if cfg["rates"] == "sos" else 1, dtype=np.int32)
    rng = np.random.default_rng([int(cfg["seed"]), int(cfg["sample_offset"]) + sample, 0x2D])
    values = [0, 1] if cfg["rates"] == "sos" else [-1, 1]
    return rng.choice(np.array(values, dtype=np.int32), size=(L, L))


def step_density(x: np.ndarray) -> float:
    """Fraction of cells with a higher nearest neighbour (darkins2024 sec. 5)."""
    higher = np.zeros(x.shape, dtype=bool)
    for axis in (0, 1):
        for shift in (1, -1):
            higher |= np.roll(x, shift, axis=axis) > x
    return float(higher.mean())


def ising_energy(x: np.ndarray, J: float, h: float) -> float:
    """Energy per spin -J/N sum_<ij> s_i s_j - h/N sum_i s_i (periodic bonds)."""
    bonds = x * (np.roll(x, 1, axis=0) + np.roll(x, 1, axis=1))
    return float(-J * bonds.mean() - h * x.mean())


class KMC2DSimulation(OnCPU, LockstepProgress):
    """Exact 2D KMC on the CPU for one validated run config (scheme tiles, its tiles on
    all cores; serial or bkl, the samples on all cores); the GPU job is the subclass
    :class:`KMC2DGPUSimulation`, which overrides the advance and where the state lives."""

    # spec: the spec that builds the job (ModelSpec.simulation passes itself), for its
    # units; the model's own for a job built directly (a test, a bench kernel).
    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        self.cfg, self.spec = cfg, spec
        self.L, self.samples = int(cfg["L"]), int(cfg["samples"])
        self.model = MODELS[cfg["rates"]]
        self.params = model_params(cfg)
        self.inv, self.ratio = rate_tables(self.model, self.params)
        self.rates = rate_table(self.model, self.params)
        self.scheme, self.tile = str(cfg["scheme"]), int(cfg.get("tile", 8))
        #: Cells of halo of scheme tiles (None: tile - 1); the lattices do not depend on it.
        self.halo = cfg.get("halo")
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], [])
        self.k0, self.k1 = philox_key(cfg["seed"])
        #: Model time per wall second of the last step (bkl's batches), None before one.
        self._pace: float | None = None
        #: The integrator of the scheme, chosen once: (state, targets) -> (lattices at
        #: the targets, events so far at the targets); only bkl gets several targets.
        self._advance = {"tiles": self._step_tiles, "serial": self._step_serial,
                         "bkl": self._step_bkl}[self.scheme]  # fmt: skip

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """All samples at t = 0 with their first waiting times (eq. 5 for dt)."""
        from simcore.models.kmc2d.serial import initial_times
        from simcore.models.kmc2d.tiles import first_dt

        S, nt = self.samples, self.times.size
        x = np.stack([initial_lattice(self.cfg, s) for s in range(S)])
        tau = np.empty(x.shape)
        cnt = np.empty(x.shape, dtype=np.uint32)
        for s in range(S):
            tau[s], cnt[s] = initial_times(x[s], self.model, self.inv, s, self.k0, self.k1)
        st = {
            "ti": 0,
            "x": x,
            "tau": tau,
            "cnt": cnt,
            "t": np.zeros(S),
            "dt": np.array([first_dt(tau[s], 0.0) for s in range(S)]),
            "rejected_once": np.zeros(S, dtype=np.int64),
            "events": np.zeros(S, dtype=np.int64),
            "accepted": np.zeros(S, dtype=np.int64),
            "rejected": np.zeros(S, dtype=np.int64),
            "bkl_step": np.zeros(S, dtype=np.int64),
            "hist_dt": np.full((S, HISTORY), np.nan),
            "hist_ok": np.zeros((S, HISTORY), dtype=np.int64),
            "wall": np.zeros(nt),
        }
        for name in self._observables():
            st[f"obs_{name}"] = np.full((S, nt), np.nan)
        for name in ("events", "accepted", "rejected"):
            st[f"obs_{name}"] = np.zeros((S, nt), dtype=np.int64)
        st["obs_dt"] = np.full((S, nt), np.nan)
        return st

    def _observables(self) -> tuple[str, ...]:
        if self.model == SOS:
            return ("mean_h", "W2", "step_density")
        return ("magnetization", "energy", "step_density")

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Advance every sample to the next sampling time (bkl: to the sampling times
        about :data:`BATCH_SECONDS` of wall time ahead, each sample through them without
        waiting for the others) and record the observables there."""
        ti = int(st["ti"])
        stop = self._batch_stop(st, ti)
        before = int(st["events"].sum())
        start = time.perf_counter()
        lattices, events = self._advance(st, self.times[ti:stop])
        elapsed = time.perf_counter() - start
        wall0 = st["wall"][ti - 1] if ti > 0 else 0.0
        # a batch's wall time is shared among its sampling times by the events up to each
        done = events.sum(axis=1) - before
        n = stop - ti
        share = done / done[-1] if done[-1] > 0 else np.arange(1, n + 1) / n
        for j, k in enumerate(range(ti, stop)):
            st["wall"][k] = wall0 + elapsed * share[j]
            self._measure(st, k, lattices[j], events[j])
        st["ti"] = stop
        advanced = self.times[stop - 1] - (self.times[ti - 1] if ti else 0.0)
        if elapsed > 0 and advanced > 0:
            self._pace = advanced / elapsed

    def _batch_stop(self, st: dict, ti: int) -> int:
        """One past the last sampling time of the next step: the next one, except under
        bkl, whose step covers the sampling times that the last step's pace (model time
        per wall second) reaches in :data:`BATCH_SECONDS`, at least one."""
        if self.scheme != "bkl" or self._pace is None:
            return ti + 1
        t_now = self.times[ti - 1] if ti else 0.0
        horizon = t_now + self._pace * BATCH_SECONDS
        return max(ti + 1, int(np.searchsorted(self.times, horizon, side="right")))

    def _step_tiles(self, st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from simcore.models.kmc2d.tiles import StepControl, TileIntegrator

        (target,) = targets

        for s in range(self.samples):
            n0 = int(st["accepted"][s] + st["rejected"][s])
            ctl = StepControl(
                t=float(st["t"][s]),
                dt=float(st["dt"][s]),
                rejected_once=bool(st["rejected_once"][s]),
                accepted=int(st["accepted"][s]),
                rejected=int(st["rejected"][s]),
            )
            integ = TileIntegrator(
                st["x"][s],
                st["tau"][s],
                st["cnt"][s],
                self.tile,
                self.model,
                self.inv,
                self.ratio,
                s,
                self.k0,
                self.k1,
                ctl,
                self.halo,
            )
            integ.run_to(target)
            st["x"][s], st["tau"][s], st["cnt"][s] = integ.x, integ.tau, integ.cnt
            st["t"][s], st["dt"][s] = ctl.t, ctl.dt
            st["rejected_once"][s] = int(ctl.rejected_once)
            st["accepted"][s], st["rejected"][s] = ctl.accepted, ctl.rejected
            st["events"][s] += integ.events
            for j, (dt, ok) in enumerate(ctl.history):
                if n0 + j < HISTORY:
                    st["hist_dt"][s, n0 + j] = dt
                    st["hist_ok"][s, n0 + j] = int(ok)
        return st["x"][None], st["events"][None]

    def _step_serial(self, st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from simcore.models.kmc2d.serial import serial_run_samples

        (target,) = targets
        serial_run_samples(
            st["x"],
            st["tau"],
            st["cnt"],
            st["t"],
            target,
            st["events"],
            self.model,
            self.inv,
            self.ratio,
            self.k0,
            self.k1,
        )
        return st["x"][None], st["events"][None]

    def _step_bkl(self, st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from simcore.models.kmc2d.bkl import bkl_run_samples

        lattices = np.empty((targets.size, *st["x"].shape), dtype=st["x"].dtype)
        events = np.empty((targets.size, self.samples), dtype=np.int64)
        bkl_run_samples(
            st["x"],
            st["t"],
            np.ascontiguousarray(targets, dtype=np.float64),
            st["bkl_step"],
            st["events"],
            self.model,
            self.rates,
            self.k0,
            self.k1,
            lattices,
            events,
        )
        return lattices, events

    def _measure(self, st: dict, ti: int, lattices: np.ndarray, events: np.ndarray) -> None:
        """Record sampling time ti: the observables of ``lattices`` (one per sample) and
        ``events``, and the step counts of the state (tiles; zero otherwise)."""
        J, h = (self.params[0], self.params[1]) if self.model == ISING else (0.0, 0.0)
        for s in range(self.samples):
            x = lattices[s]
            if self.model == SOS:
                st["obs_mean_h"][s, ti] = x.mean()
                st["obs_W2"][s, ti] = x.var()
            else:
                st["obs_magnetization"][s, ti] = x.mean()
                st["obs_energy"][s, ti] = ising_energy(x, J, h)
            st["obs_step_density"][s, ti] = step_density(x)
        st["obs_events"][:, ti] = events
        st["obs_accepted"][:, ti] = st["accepted"]
        st["obs_rejected"][:, ti] = st["rejected"]
        st["obs_dt"][:, ti] = st["dt"] if self.scheme == "tiles" else np.nan

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """The job's results with CF-style attributes (global attributes by the runner):
        the observables (:meth:`_observable_variables`), then the tile algorithm's
        counters and steps and the snapshot (:meth:`_algorithm_variables`)."""
        data = {**self._observable_variables(st), **self._algorithm_variables(st)}
        return xr.Dataset(data, coords=self._coordinates())

    def _coordinates(self) -> dict:
        """The run file's coordinates: samples, sampling times, the steps of the dt
        history and the rows and columns of the snapshot."""
        n = min(self.L, SNAPSHOT)
        return {
            "sample": sample_coord(self.cfg, self.samples),
            "t": ("t", self.times.astype(np.float64), time_attributes(self.spec, self.cfg)),
            "step": (
                "step",
                np.arange(HISTORY, dtype=np.int64),
                {
                    "long_name": "time step of the tile algorithm (accepted or rejected)",
                    "units": "1",
                },
            ),
            "row": (
                "row",
                np.arange(n, dtype=np.int64),
                {"long_name": "lattice row", "units": "1"},
            ),
            "col": (
                "col",
                np.arange(n, dtype=np.int64),
                {"long_name": "lattice column", "units": "1"},
            ),
        }

    def _observable_variables(self, st: dict) -> dict:
        """The rate model's observables per (sample, t), in :meth:`_observables` order."""
        meta = {  # name: (long name, model units; None: dimensionless)
            "mean_h": ("mean surface height <h>", HEIGHT),
            "W2": ("squared surface width W^2 = <h^2> - <h>^2", HEIGHT2),
            "magnetization": ("magnetization per spin", None),
            "energy": ("energy per spin -J <s_i s_j> - h <s>", ENERGY_UNIT),
            "step_density": ("fraction of cells with a higher nearest neighbour", None),
        }
        data = {}
        for name in self._observables():
            long_name, model_units = meta[name]
            attrs = (
                {"long_name": long_name, "units": "1"}
                if model_units is None
                else in_model_units(long_name, model_units)
            )
            data[name] = (("sample", "t"), st[f"obs_{name}"], attrs)
        return data

    def _algorithm_variables(self, st: dict) -> dict:
        """Events, accepted and rejected steps, dt and wall time per (sample, t); the dt
        history of the first steps; the snapshot of the lattice's corner at t_max."""
        dims, n = ("sample", "t"), min(self.L, SNAPSHOT)
        data = {}
        data["events"] = (
            dims,
            st["obs_events"],
            {
                "long_name": "real events since t = 0 (central tiles only under the tile scheme)",
                "units": "1",
            },
        )
        data["steps_accepted"] = (
            dims,
            st["obs_accepted"],
            {"long_name": "accepted time steps of the tile algorithm since t = 0", "units": "1"},
        )
        data["steps_rejected"] = (
            dims,
            st["obs_rejected"],
            {"long_name": "rejected time steps of the tile algorithm since t = 0", "units": "1"},
        )
        data["dt"] = (
            dims,
            st["obs_dt"],
            time_attributes(
                self.spec,
                self.cfg,
                long_name="adaptive time step of the tile algorithm at the sampling time",
            ),
        )
        data["wall_time"] = lockstep_wall_time(st["wall"], self.samples)
        data["dt_history"] = (
            ("sample", "step"),
            st["hist_dt"],
            time_attributes(
                self.spec, self.cfg, long_name="time step tried (first steps of the run)"
            ),
        )
        data["dt_accepted"] = (
            ("sample", "step"),
            st["hist_ok"].astype(np.int8),
            {"long_name": "1 if the step was accepted, 0 if rejected", "units": "1"},
        )
        data["snapshot"] = (
            ("sample", "row", "col"),
            st["x"][:, :n, :n].astype(np.int32),
            {"long_name": f"state of the top-left {n} x {n} cells at t_max", "units": "1"},
        )
        return data


class KMC2DGPUSimulation(OnGPU, KMC2DSimulation):
    """The tile algorithm on the current CUDA device, all samples in lockstep; the state
    lives on the device between sampling times, the same lattices as the CPU job bit for
    bit."""

    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        super().__init__(cfg, spec)
        from simcore.models.kmc2d.gpu import TileKernel

        self._kernel = TileKernel(
            self.L,
            self.tile,
            self.model,
            self.inv,
            self.ratio,
            self.samples,
            self.k0,
            self.k1,
            halo=self.halo,
        )
        self._on_device = False
        self._advance = self._step_gpu

    def to_host(self, st: dict) -> dict:
        """The state as host arrays (the GPU's front buffers and counters copied back)."""
        if self._on_device:
            self._pull(st, full=True)
        return st

    def from_host(self, st: dict) -> dict:
        """The state restored from host arrays (moved to the GPU at the next step)."""
        self._on_device = False
        return st

    def _pull(self, st: dict, full: bool) -> None:
        """Copy the GPU state into ``st``: the lattice, counters and dt history always
        (what a sampling time measures and the run file keeps), the waiting times and
        draw counters only with ``full`` (a checkpoint)."""
        k = self._kernel
        names = ("x", "tau", "cnt") if full else ("x",)
        for name in names:
            st[name] = k.front(name).get()
        st["t"], st["dt"] = k.t.get(), k.dt.get()
        st["rejected_once"] = k.rejected_once.get().astype(np.int64)
        for n in ("events", "accepted", "rejected"):
            st[n] = getattr(k, n).get().astype(np.int64)
        st["hist_dt"], st["hist_ok"] = k.hist_dt.get(), k.hist_ok.get().astype(np.int64)
        n_steps = st["accepted"] + st["rejected"]
        for s in range(self.samples):
            st["hist_dt"][s, min(int(n_steps[s]), HISTORY) :] = np.nan

    def _step_gpu(self, st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        (target,) = targets
        k = self._kernel
        if not self._on_device:
            k.upload_state(st, np.nan_to_num(st["hist_dt"]), st["hist_ok"])
            self._on_device = True
        k.run_to(target)
        self._pull(st, full=False)
        return st["x"][None], st["events"][None]

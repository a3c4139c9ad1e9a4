"""One KPZ job on the CPU: samples x sampling times, random-sequential or a DD scheme.

The job state is a dict of plain arrays and integers (see :meth:`initial_state`)
so that the runner can checkpoint and restore it without knowing the model.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.io.dataset import HEIGHT, HEIGHT2, in_model_units, sample_coord, time_attributes
from simcore.models.kpz.decomposed import dd_sweeps
from simcore.models.kpz.geometry import geometry_from_config, parse_scheme
from simcore.models.kpz.kernels import sequential_sweeps
from simcore.models.kpz.lattice import flat_lattice, n_words, snapshot_dtype
from simcore.models.kpz.observables import (
    height_autocorrelation,
    measure_heights,
    slope_autocorrelation,
    width_and_mean,
)
from simcore.models.kpz.spec import SPEC
from simcore.models.spec import ModelSpec
from simcore.rng import uniform_threshold
from simcore.sampling import sampling_times, step_toward_sampling_time, time_reached
from simcore.seeding import philox_key


def kpz_time_attributes(spec: ModelSpec, cfg: dict) -> dict[str, str | float]:
    """CF attributes of the time axis (in MCS, from the ``spec``); under DB/cDB they state
    the eq. 9 accounting."""
    if parse_scheme(cfg["scheme"]) is None:
        return time_attributes(spec, cfg, comment="1 MCS = L^d update attempts")
    return time_attributes(
        spec,
        cfg,
        comment=f"1 MCS = L^d site selections of scheme {cfg['scheme']}; the fraction "
        "active_fraction of them are performed (kelling2017 eq. 9)",
        active_fraction=geometry_from_config(cfg).active_fraction,
    )


class KPZSimulation(OnCPU):
    """Octahedron (d=2) / single-step (d=1) model on the CPU, for one job config.

    Random-sequential, or any DD scheme through its numba twin (domains of a
    phase run in parallel on all cores numba is given, NUMBA_NUM_THREADS).
    """

    # spec: the spec that builds the job (ModelSpec.simulation passes itself), for its
    # units; the model's own for a job built directly (a test, a bench kernel).
    def __init__(self, cfg: dict, spec: ModelSpec = SPEC):
        self.cfg, self.spec = cfg, spec
        self.dim, self.L = int(cfg["dim"]), int(cfg["L"])
        self.n_sites = self.L**self.dim
        self.samples = int(cfg["samples"])
        self.times = sampling_times(cfg["t_max"], cfg["points_per_decade"], cfg["waiting_times"])
        self.waits = np.asarray(cfg["waiting_times"], dtype=np.int64)
        self.params = (
            np.uint64(uniform_threshold(cfg["p"])),
            np.uint64(uniform_threshold(cfg["q"])),
        )
        self.k0, self.k1 = philox_key(cfg["seed"])
        self._h: np.ndarray | None = None  # height buffer, allocated on first use
        # the first n_snapshots samples keep their heights at t_max (key snapshot_samples)
        self.n_snapshots = min(int(cfg.get("snapshot_samples", 0)), self.samples)
        self.snapshot_dtype = snapshot_dtype(self.dim, self.L, int(cfg["t_max"]))
        self._geo = geometry_from_config(cfg).as_array() if parse_scheme(cfg["scheme"]) else None

    def _sweeps(self, lat: np.ndarray, t_from: int, n: int, sample: int) -> int:
        """Advance one sample by ``n`` MCS from ``t_from``; returns the net events."""
        if self._geo is None:
            return sequential_sweeps(
                lat, self.dim, self.L, t_from, n, self.k0, self.k1, sample, self.params
            )
        return dd_sweeps(lat, self._geo, t_from, n, sample, self.k0, self.k1, self.params)

    # -- state ---------------------------------------------------------------
    def initial_state(self) -> dict:
        """State before the first update of the first sample."""
        S, nt, ns = self.samples, self.times.size, self.waits.size
        return {
            "sample": 0,
            "ti": 0,
            "t_now": 0,
            "W2": np.full((S, nt), np.nan),
            "mean_h": np.full((S, nt), np.nan),
            "C_h": np.full((S, ns, nt), np.nan),
            "C_s": np.full((S, ns, nt), np.nan),
            "lat": flat_lattice(self.dim, self.L),
            "net": 0,
            "snap_h": np.zeros((ns, self.n_sites), dtype=np.int32),
            "snap_lat": np.zeros((ns, n_words(self.dim, self.L)), dtype=np.uint32),
            **self._initial_snapshot(),
        }

    def _initial_snapshot(self) -> dict:
        """The state's ``snapshot`` array (n_snapshots x N heights of :attr:`snapshot_dtype`),
        or nothing where no snapshot is asked for: a job without snapshots keeps the state,
        checkpoints and run files it had before the key existed."""
        if not self.n_snapshots:
            return {}
        return {"snapshot": np.zeros((self.n_snapshots, self.n_sites), dtype=self.snapshot_dtype)}

    def _keep_snapshot(self, st: dict, row: int, h: np.ndarray) -> None:
        """Store the host heights ``h`` (L^d, index x + L y) of sample ``row`` at t_max as
        its snapshot.  The heights are the run's own measurement (the slopes summed by
        :func:`.lattice.heights`, the constant fixed by the event count), so the snapshot
        is the surface whose W^2 the run records at t_max.  A height outside
        :attr:`snapshot_dtype` would mean :func:`.lattice.height_bound` is wrong: a
        RuntimeError rather than a wrapped value."""
        info = np.iinfo(self.snapshot_dtype)
        lo, hi = int(h.min()), int(h.max())
        if lo < info.min or hi > info.max:
            raise RuntimeError(
                f"heights {lo}..{hi} of sample {row} exceed the snapshot type "
                f"{self.snapshot_dtype} (height bound broken)"
            )
        st["snapshot"][row] = h

    def done(self, st: dict) -> bool:
        """True when every sample has reached t_max."""
        return int(st["sample"]) >= self.samples

    def fraction_done(self, st: dict) -> float:
        """Fraction of all update attempts of the job that are done."""
        i, t_max = int(st["sample"]), self.times[-1]
        return min(1.0, (i * t_max + time_reached(st, self.times)) / (self.samples * t_max))

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines (the last sample reached and its time)."""
        i, ti = int(st["sample"]), int(st["ti"])
        if ti == 0 and i > 0:  # sample i - 1 has just reached t_max
            i, t_now = i - 1, self.times[-1]
        else:
            t_now = time_reached(st, self.times)
        return f"sample {i + 1}/{self.samples}, t = {t_now} {self.spec.time_unit}"

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Advance the current sample toward its next sampling time (at most
        :attr:`STEP_ATTEMPTS` attempts) and record the observables once it is there."""
        i, ti = int(st["sample"]), int(st["ti"])
        lat = st["lat"]

        def sweeps(t: int, n: int) -> None:
            st["net"] = int(st["net"]) + self._sweeps(lat, t, n, i)

        t_to = step_toward_sampling_time(st, self.times, self.n_sites, self.STEP_ATTEMPTS, sweeps)
        if t_to is None:
            return
        if self._h is None:
            self._h = np.empty(self.n_sites, dtype=np.int64)
        h = measure_heights(lat, self.dim, self.L, st["net"], self._h)
        st["W2"][i, ti], st["mean_h"][i, ti] = width_and_mean(h)
        for k, s in enumerate(self.waits):
            if s == t_to:
                st["snap_h"][k] = h
                st["snap_lat"][k] = lat
            if s <= t_to:
                st["C_h"][i, k, ti] = height_autocorrelation(h, st["snap_h"][k])
                st["C_s"][i, k, ti] = slope_autocorrelation(lat, st["snap_lat"][k])
        if ti + 1 == self.times.size and i < self.n_snapshots:
            self._keep_snapshot(st, i, h)
        if ti + 1 < self.times.size:
            st["ti"] = ti + 1
        else:
            st["sample"], st["ti"], st["t_now"] = i + 1, 0, 0
            st["lat"] = flat_lattice(self.dim, self.L)
            st["net"] = 0

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """The job's results with CF-style variable attributes (global attributes by the runner)."""
        coords = {
            "sample": sample_coord(self.cfg, self.samples),
            "t": ("t", self.times, kpz_time_attributes(self.spec, self.cfg)),
            "s": (
                "s",
                self.waits,
                time_attributes(self.spec, self.cfg, long_name="waiting time s"),
            ),
        }
        hunit = "heights in units of the elementary step (lattice units)"
        data = {
            "W2": (
                ("sample", "t"),
                st["W2"],
                in_model_units("squared interface width W^2", HEIGHT2, comment=hunit),
            ),
            "mean_h": (
                ("sample", "t"),
                st["mean_h"],
                in_model_units("mean height", HEIGHT, comment=hunit),
            ),
            "C_h": (
                ("sample", "s", "t"),
                st["C_h"],
                in_model_units(
                    "height autocorrelation C_h(t, s)",
                    HEIGHT2,
                    comment="mean(h(t)h(s)) - mean(h(t))mean(h(s)) over sites; NaN for t < s",
                ),
            ),
            "C_s": (
                ("sample", "s", "t"),
                st["C_s"],
                {
                    "long_name": "slope autocorrelation C_s(t, s)",
                    "units": "1",
                    "comment": "mean(n(t)n(s)) - mean(n(t))mean(n(s)), n in {0,1}; NaN for t < s",
                },
            ),
        }
        if self.n_snapshots:
            snap_coords, snap_data = self._snapshot_variables(st["snapshot"])
            coords.update(snap_coords)
            data.update(snap_data)
        ds = xr.Dataset(data, coords=coords)
        if self.n_snapshots:
            ds["snapshot"].encoding = {"zlib": True, "complevel": 4}
        return ds

    def _snapshot_variables(self, snapshot: np.ndarray) -> tuple[dict, dict]:
        """(coordinates, variables) of the snapshot: ``snapshot(snapshot_sample, y, x)``
        (d = 1: ``(snapshot_sample, x)``), the heights at t_max of the job's first samples
        as integers of :attr:`snapshot_dtype` (zlib-compressed by :meth:`to_dataset`: the
        pipeline compresses only floats by itself), with the global sample index and the
        job seed of each as coordinates of ``snapshot_sample``, so that aggregation
        concatenates the snapshots of a point's jobs along that dimension as it does the
        samples, and a figure can name the run a surface comes from."""
        L, n, offset = self.L, self.n_snapshots, int(self.cfg["sample_offset"])
        site = {"units": "1", "model_units": "lattice sites"}
        coords = {
            "snapshot_sample": (
                "snapshot_sample",
                np.arange(offset, offset + n, dtype=np.int64),
                {"long_name": "sample index of the height snapshot", "units": "1"},
            ),
            "snapshot_seed": (
                "snapshot_sample",
                np.full(n, int(self.cfg["seed"]), dtype=np.uint64),
                {"long_name": "job seed of the run of the height snapshot", "units": "1"},
            ),
            "x": ("x", np.arange(L, dtype=np.int64), {"long_name": "site x", **site}),
        }
        dims: tuple[str, ...] = ("snapshot_sample", "x")
        if self.dim == 2:
            coords["y"] = ("y", np.arange(L, dtype=np.int64), {"long_name": "site y", **site})
            dims = ("snapshot_sample", "y", "x")
        t_max, unit = int(self.cfg["t_max"]), self.spec.time_unit
        attrs = in_model_units(
            f"surface height h at t = t_max = {t_max} {unit}",
            HEIGHT,
            comment="heights in units of the elementary step (lattice units), the slopes "
            "summed from site 0 (kelling2012 eq. 5) plus the constant that the net "
            "depositions fix (the flat start has mean height 1/2)",
        )
        values = snapshot.reshape((n, *(L,) * self.dim))
        return coords, {"snapshot": (dims, values, attrs)}

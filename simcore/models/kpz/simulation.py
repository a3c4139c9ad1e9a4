"""One KPZ job on the CPU: samples x sampling times, random-sequential or a DD scheme.

The job state is a dict of plain arrays and integers (see :meth:`initial_state`)
so that the runner can checkpoint and restore it without knowing the model.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from simcore.backends.cpu import OnCPU
from simcore.io.dataset import HEIGHT, HEIGHT2, in_model_units, sample_coord, time_attributes
from simcore.models import registry
from simcore.models.kpz.decomposed import dd_sweeps
from simcore.models.kpz.geometry import geometry_from_config, parse_scheme
from simcore.models.kpz.kernels import sequential_sweeps
from simcore.models.kpz.lattice import flat_lattice, n_words
from simcore.models.kpz.observables import (
    height_autocorrelation,
    measure_heights,
    slope_autocorrelation,
    width_and_mean,
)
from simcore.rng import uniform_threshold
from simcore.sampling import sampling_times
from simcore.seeding import philox_key


def _spec():
    """The kpz spec (its time and energy units), from the registry: the spec builds this
    module's jobs, so this module does not import it."""
    return registry.get("kpz")


def kpz_time_attributes(cfg: dict) -> dict[str, str | float]:
    """CF attributes of the time axis (in MCS, from the spec); under DB/cDB they state
    the eq. 9 accounting."""
    if parse_scheme(cfg["scheme"]) is None:
        return time_attributes(_spec(), cfg, comment="1 MCS = L^d update attempts")
    return time_attributes(
        _spec(),
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

    def __init__(self, cfg: dict):
        self.cfg = cfg
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
            "W2": np.full((S, nt), np.nan),
            "mean_h": np.full((S, nt), np.nan),
            "C_h": np.full((S, ns, nt), np.nan),
            "C_s": np.full((S, ns, nt), np.nan),
            "lat": flat_lattice(self.dim, self.L),
            "net": 0,
            "snap_h": np.zeros((ns, self.n_sites), dtype=np.int32),
            "snap_lat": np.zeros((ns, n_words(self.dim, self.L)), dtype=np.uint32),
        }

    def done(self, st: dict) -> bool:
        """True when every sample has reached t_max."""
        return int(st["sample"]) >= self.samples

    def fraction_done(self, st: dict) -> float:
        """Fraction of all update attempts of the job that are done."""
        i, ti = int(st["sample"]), int(st["ti"])
        t_now = self.times[ti - 1] if ti > 0 else 0
        t_max = self.times[-1]
        return min(1.0, (i * t_max + t_now) / (self.samples * t_max))

    def describe(self, st: dict) -> str:
        """Where the job stands, for progress lines (the last sample reached and its time)."""
        i, ti = int(st["sample"]), int(st["ti"])
        if ti == 0 and i > 0:  # sample i - 1 has just reached t_max
            i, t_now = i - 1, self.times[-1]
        else:
            t_now = self.times[ti - 1] if ti > 0 else 0
        return f"sample {i + 1}/{self.samples}, t = {t_now} {_spec().time_unit}"

    # -- dynamics ------------------------------------------------------------
    def step(self, st: dict) -> None:
        """Advance the current sample to its next sampling time and record the observables."""
        i, ti = int(st["sample"]), int(st["ti"])
        t_to = int(self.times[ti])
        t_from = int(self.times[ti - 1]) if ti > 0 else 0
        lat = st["lat"]
        if t_to > t_from:
            st["net"] = int(st["net"]) + self._sweeps(lat, t_from, t_to - t_from, i)
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
        if ti + 1 < self.times.size:
            st["ti"] = ti + 1
        else:
            st["sample"], st["ti"] = i + 1, 0
            st["lat"] = flat_lattice(self.dim, self.L)
            st["net"] = 0

    # -- output --------------------------------------------------------------
    def to_dataset(self, st: dict) -> xr.Dataset:
        """The job's results with CF-style variable attributes (global attributes by the runner)."""
        coords = {
            "sample": sample_coord(self.cfg, self.samples),
            "t": ("t", self.times, kpz_time_attributes(self.cfg)),
            "s": ("s", self.waits, time_attributes(_spec(), self.cfg, long_name="waiting time s")),
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
        return xr.Dataset(data, coords=coords)

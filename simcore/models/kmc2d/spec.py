"""The exact 2D KMC model's spec: its run-config keys, checks, point names, costs, figures."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_choice, check_int, check_real
from simcore.models.kmc2d.gpu import GPU_TILES, gpu_halo
from simcore.models.kmc2d.rates import PARAMS
from simcore.models.spec import Key, ModelSpec, PaperFigure, Work, format_number
from simcore.sampling import sampling_times

SCHEMES = ("tiles", "serial", "bkl")
#: The scheme of each backend when ``scheme`` is not given: the fastest exact integrator
#: there.  On the CPU that is BKL (its samples in parallel over the job's cores; per
#: core about 10 times the serial waiting-time integrator and 50 times the tile
#: algorithm's CPU twin, which exists to check the GPU kernel: BENCHMARKS.md); the GPU
#: runs the tile algorithm only.
DEFAULT_SCHEME = {"cpu": "bkl", "gpu": "tiles"}
#: The ``job_resources`` rate of a CPU job of each scheme (tiles: the job's; serial and
#: bkl: one core's).
RATE_KEY = {"tiles": "events_per_second", "serial": "serial_events_per_second",
            "bkl": "bkl_events_per_second"}  # fmt: skip
STARTS = ("flat", "random")
#: The start of each rate model when ``start`` is not given.
DEFAULT_START = {"sos": "flat", "ising": "random"}
#: Campaign figures of each rate model present among the points, then the common ones.
RATE_FIGURES = {
    "sos": {"W2": "Squared surface width W^2(t) of the sos points against time, log-log, "
                  "one line per point; for random deposition points (phi = 0) the exact "
                  "W^2 = k2 t dashed.",
            "beta_eff": "Effective growth exponent beta_eff(t) of the sos points, the local "
                        "slope of ln W against ln t, with jackknife errors; random "
                        "deposition's 1/2 for reference."},
    "ising": {"energy": "Energy per spin e(t) of the ising points against time, one line "
                        "per point.",
              "magnetization": "Absolute magnetization per spin of the ising points against "
                               "time, one line per point."},
}  # fmt: skip
COMMON_FIGURES = {
    "step_density": "Step density, the fraction of cells with a higher nearest neighbour, "
    "against time, one line per point.",
    "events_rate": "Real events per cell and unit of model time since t = 0, events / (L^2 t), "
    "against time, one line per point.",
}
_DARKINS = "darkins2024"
#: Each rate model's unit of time (the ``model_units`` of ``t``) and the long name of the
#: time axis: sos rates are k2 exp((2 n_b - 4) phi), Glauber rates w0 / (1 + exp(dE / T))
#: with the rate constant w0 = 1 (:mod:`simcore.models.kmc2d.rates`).
TIME_UNITS = {
    "sos": ("1/k2", "continuous time in units of 1/k2"),
    "ising": ("1/w0", "continuous time in units of 1/w0, w0 the Glauber rate constant"),
}


def _rates_is(rates: str):
    return lambda cfg: cfg.get("rates") == rates


def scheme_of(cfg: Mapping[str, Any]) -> str:
    """The scheme of settings ``cfg``: its ``scheme``, else its backend's default."""
    return cfg.get("scheme") or DEFAULT_SCHEME[cfg.get("backend") or "cpu"]


class KMC2DSpec(ModelSpec):
    """Exact 2D kinetic Monte Carlo (darkins2024): the waiting-time method on an L x L
    lattice with pluggable rate models, serial, BKL or the tile algorithm (CPU cores or
    the GPU, bit-identical to the serial integrator).  BKL is the CPU default, the tile
    algorithm the GPU's."""

    name = "kmc2d"
    title = "exact 2D kinetic Monte Carlo: SOS crystal growth, Glauber Ising (darkins2024)"
    backends = ("cpu", "gpu")
    #: The CPU job (tiles, serial or bkl) and its GPU subclass (tiles), imported when built.
    jobs = {
        "cpu": "simcore.models.kmc2d.simulation:KMC2DSimulation",
        "gpu": "simcore.models.kmc2d.simulation:KMC2DGPUSimulation",
    }
    keys = {
        "rates": Key("rate model: sos (crystal growth) or ising (Glauber)", type="str",
                     choices=tuple(PARAMS)),
        "L": Key("side of the periodic L x L lattice (tiles: a multiple of tile, >= 3 tiles)",
                 type="int"),
        "k2": Key("attachment rate k2 of a cell with 2 bonds (> 0)", default=1.0, type="float",
                  applies=_rates_is("sos"), applies_to="rates sos"),
        "phi": Key("bond parameter phi: rate k2 exp((2 n_b - 4) phi)", type="float",
                   applies=_rates_is("sos"), applies_to="rates sos"),
        "J": Key("coupling J", default=1.0, type="float", applies=_rates_is("ising"),
                 applies_to="rates ising"),
        "h": Key("field h", default=0.0, type="float", applies=_rates_is("ising"),
                 applies_to="rates ising"),
        "T": Key("temperature T > 0", type="float", applies=_rates_is("ising"),
                 applies_to="rates ising"),
        "scheme": Key("integrator: tiles (darkins2024), serial or bkl; default bkl on the "
                      "cpu (the fastest there), tiles on the gpu", default=None, type="str",
                      choices=SCHEMES),
        "tile": Key("tile side B, a power of two >= 2 (gpu: 4, 8, or 16 with a halo <= 7)",
                    default=8, type="int", applies=lambda cfg: scheme_of(cfg) == "tiles",
                    applies_to="scheme tiles"),
        "halo": Key("cells of halo around each tile in its patch, 1 .. tile - 1 (default "
                    "tile - 1: the tile's 3 x 3-tile neighbourhood; gpu: (tile + 2 halo)^2 < "
                    "1024); every halo gives the same lattices, a thinner one fires fewer "
                    "events twice (tile 16, halo 7: the fastest on the gpu at phi >= 2)",
                    default=None, type="int", applies=lambda cfg: scheme_of(cfg) == "tiles",
                    applies_to="scheme tiles"),
        "start": Key("flat (sos: heights 0, ising: all up) or random (sos: heights 0/1, "
                     "ising: +-1); default flat for sos, random for ising", default=None,
                     type="str"),
    }  # fmt: skip
    time_unit = ""  # per rate model: time_units
    resource_rates = {
        "events_per_second": (3e4, "real events per second of one CPU job of scheme tiles "
                              "(the CPU twin of the GPU kernel; measured 3e4 to 6.5e4 on 2 "
                              "cores at L = 32 .. 256)"),
        "serial_events_per_second": (2e5, "events per second of one core under scheme serial "
                                     "(measured 4e5 to 7e5 at L = 32 .. 256)"),
        "bkl_events_per_second": (7e5, "events per second of one core under scheme bkl "
                                  "(measured 1.1e6 to 3.6e6 at L = 32 .. 256; slower on "
                                  "larger lattices, 6.5e5 at L = 4096)"),
        "gpu_events_per_second": (1e7, "events per second of one GPU job (darkins2024: up to "
                                  "1e8 on large lattices)"),
    }  # fmt: skip
    analysis = "analysis.kmc2d"
    paper_figures = (
        PaperFigure("darkins2024_fig2", _DARKINS, "Fig. 2: the adaptive time step and its "
                    "error zone", "analysis.darkins2024:fig2", bench=("kmc2d-timestep",)),
        PaperFigure("darkins2024_fig3", _DARKINS, "Fig. 3: real events per second of the GPU "
                    "tile algorithm and serial BKL, with relaxed surfaces",
                    "analysis.darkins2024:fig3", bench=("kmc2d", "kmc2d-surfaces")),
    )  # fmt: skip
    bench_kernels = {
        "kmc2d": "simcore.models.kmc2d.bench:TILES",
        "kmc2d-timestep": "simcore.models.kmc2d.bench_timestep:TIMESTEP",
        "kmc2d-surfaces": "simcore.models.kmc2d.bench_surfaces:SURFACES",
        "kmc2d-cpu": "simcore.models.kmc2d.bench_cpu:CPU",
    }
    example = {"rates": "sos", "phi": 1.0, "L": 24, "samples": 2, "t_max": 3}

    def validate(self, cfg: dict[str, Any]) -> None:
        """The rate model's parameters, lattice, scheme, tile, start and backend."""
        rates = cfg["rates"]
        if rates == "sos":
            cfg["k2"], cfg["phi"] = check_real(cfg, "k2", positive=True), check_real(cfg, "phi")
            try:  # the fastest class: every rate of the table must be a finite double
                fastest = cfg["k2"] * math.exp(4.0 * abs(cfg["phi"]))
            except OverflowError:
                fastest = math.inf
            if not math.isfinite(fastest):
                raise ConfigError("phi", cfg["phi"], "k2 exp(4 |phi|) overflows a double")
        else:
            cfg["J"], cfg["h"] = check_real(cfg, "J"), check_real(cfg, "h")
            cfg["T"] = check_real(cfg, "T", positive=True)
        scheme = cfg["scheme"] = scheme_of(cfg)
        L = check_int(cfg, "L", lo=2)
        if L * L >= 2**32:
            raise ConfigError(
                "L", L, "L^2 must be < 2^32 (the cell index is a 32-bit counter word)"
            )
        if scheme == "tiles":
            tile = check_int(cfg, "tile", lo=2)
            if tile & (tile - 1):
                raise ConfigError("tile", tile, "must be a power of two")
            if L % tile or L < 3 * tile:
                raise ConfigError(
                    "L", L, f"scheme tiles needs a multiple of the tile {tile} that is >= 3 tiles"
                )
            given_halo = cfg["halo"] is not None
            if given_halo:
                check_int(cfg, "halo", lo=1, hi=tile - 1)
            else:
                cfg["halo"] = tile - 1
        if cfg["start"] is None:
            cfg["start"] = DEFAULT_START[rates]
        check_choice(cfg, "start", STARTS)
        if cfg["backend"] == "gpu":
            if scheme != "tiles":
                raise ConfigError("scheme", scheme, "the gpu backend runs scheme tiles only")
            try:
                gpu_halo(cfg["tile"], cfg["halo"])
            except ValueError:
                if not given_halo or cfg["tile"] not in GPU_TILES:
                    raise ConfigError(
                        "tile",
                        cfg["tile"],
                        "the gpu backend needs tile 4 or 8, or 16 with a halo of at most 7",
                    ) from None
                raise ConfigError(
                    "halo",
                    cfg["halo"],
                    "the gpu backend needs (tile + 2 halo)^2 < 1024: at most 7 for tile 16",
                ) from None

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``kmc2d_sos_L64_phi1_k21_tiles8_cpu`` (phi, then k2),
        ``kmc2d_ising_L32_T2.2_J1_h0_serial_cpu``; scheme tiles carries its tile side, and a
        start other than the rate model's default is appended (``..._cpu_random-start``)."""
        rates = cfg["rates"]
        if rates == "sos":
            par = f"phi{format_number(cfg['phi'])}_k2{format_number(cfg['k2'])}"
        else:
            par = (
                f"T{format_number(cfg['T'])}_J{format_number(cfg['J'])}_h{format_number(cfg['h'])}"
            )
        how = cfg["scheme"]
        if how == "tiles":
            tile, halo = int(cfg["tile"]), cfg.get("halo")
            how = f"tiles{tile}" + (f"h{halo}" if halo not in (None, tile - 1) else "")
        name = f"kmc2d_{rates}_L{int(cfg['L'])}_{par}_{how}_{cfg['backend']}"
        if cfg["start"] != DEFAULT_START[rates]:
            name += f"_{cfg['start']}-start"
        return name

    def time_units(self, cfg: Mapping[str, Any]) -> tuple[str, str]:
        """The rate model's unit of time (:data:`TIME_UNITS`)."""
        return TIME_UNITS.get(str(cfg.get("rates")), (self.time_unit, "continuous time"))

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """The tile algorithm advances its patches in parallel on the CPU; serial and bkl
        run a job's samples in parallel, one per core, so they take the cores only when
        a job has more than one sample (a GPU job runs on the GPU: one core)."""
        if cfg.get("backend") != "cpu":
            return False
        return scheme_of(cfg) == "tiles" or int(cfg.get("samples", 1)) > 1

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``L^2 t_max samples r`` events, r the rate per cell of a flat surface: k2
        exp(4 max(-phi, 0)) for sos (exactly k2 at phi = 0, random deposition; bonds, phi >
        0, slow the growth down), 1 for ising (Glauber rates are <= 1); at the rate of the
        scheme: a job's for tiles, one core's for serial and bkl (their samples run in
        parallel over the job's cores, so this over-asks by up to the thread count, on the
        safe side: the work does not know the threads).  The memory is :meth:`_memory`'s
        count of the arrays the job allocates."""
        L, samples, t_max = int(job["L"]), int(job["samples"]), int(job["t_max"])
        scale = 1.0
        if job["rates"] == "sos":
            scale = float(job.get("k2", 1.0)) * math.exp(4.0 * max(-float(job["phi"]), 0.0))
        gpu = job["backend"] == "gpu"
        rate = rates["gpu_events_per_second" if gpu else RATE_KEY[scheme_of(job)]]
        # (state, results, scratch, device) bytes: Work's fields in that order
        return Work(L * L * t_max * samples * scale / rate, *self._memory(job))

    @staticmethod
    def _memory(job: Mapping[str, Any]) -> tuple[int, int, int, int]:
        """(state, results, scratch, device) bytes of a job, counted from the arrays its code
        allocates (:mod:`.simulation`, :mod:`.tiles`, :mod:`.serial`, :mod:`.bkl`,
        :mod:`.gpu`); N = L^2 cells, S samples, n_t sampling times.

        State (host, either backend): the heights or spins (int32), waiting times
        (float64) and draw counters (uint32) of every cell, 16 N S, and 7 numbers per
        sample.  Results: 7 observables per sample and time (float64 and int64), the wall
        times, and the dt history of :data:`~.gpu.HISTORY` steps (float64 and int64).
        Scratch, the largest of these (never held at once): seeding one sample's waiting
        times (its float64 times, uint32 counters and int64 classes, 20 N); a step of
        scheme bkl, the lattices at its sampling time (int32, 4 N S) and a sum tree of
        float64 over the cells padded to a power of two P (16 P), of serial the int64
        classes and an int64 min-tree (8 N + 16 P), of tiles the back buffers (16 N) and
        edge sums (136 bytes per tile) of two samples' integrators (the next is built
        while the last is held); a measurement's float64 deviations (8 N); and
        :meth:`~.simulation.KMC2DSimulation.to_dataset`'s copies (the wall times, dt
        flags as int8, the int32 snapshot).  serial and bkl hold one tree per thread: the
        count is for one, a deliberate lower bound (the work does not know the threads;
        each further thread adds its tree).  bkl keeps a lattice for every sampling time
        its step passes: counted for one, as a step of a large lattice passes one.

        GPU (all samples in lockstep): the device holds per sample x, tau and cnt in a
        front and a back buffer (32 N), per tile the minimum waiting time twice, the
        live flag, 16 edge sums and the central events (149 bytes), the dt history (12
        bytes per step) and 13 counters (84 bytes), plus the temporaries of an upload or a
        checkpoint's download, a host-shaped and a tile-major copy of tau (16 N S).  The
        host holds the state and results as on the CPU; its scratch is the seeding, a
        pull that replaces the host tau while the old one is held (8 N S), the dt
        history's refresh and the output copies, whichever is largest.
        """
        from simcore.models.kmc2d import SNAPSHOT
        from simcore.models.kmc2d.gpu import HISTORY

        L, samples = int(job["L"]), int(job["samples"])
        n, gpu = L * L, job["backend"] == "gpu"
        n_t = sampling_times(int(job["t_max"]), int(job["points_per_decade"]), []).size
        state = 16 * n * samples + 56 * samples
        results = 56 * samples * n_t + 8 * n_t + 16 * HISTORY * samples
        output = 8 * samples * n_t + HISTORY * samples + 4 * samples * min(L, SNAPSHOT) ** 2
        padded = 1 << max(n - 1, 0).bit_length()
        tiles = (L // int(job.get("tile", 8))) ** 2
        if gpu:
            step = max(8 * n * samples, 20 * HISTORY * samples)
        else:
            step = {
                "bkl": 4 * n * samples + 16 * padded,
                "serial": 8 * n + 16 * padded,
                "tiles": min(samples, 2) * (16 * n + 136 * tiles),
            }[scheme_of(job)]
        scratch = max(20 * n, step, 8 * n, output)
        if not gpu:
            return state, results, scratch, 0
        per_sample = 32 * n + 149 * tiles + 12 * HISTORY + 84
        device = samples * per_sample + max(16 * n * samples, 8 * HISTORY * samples)
        return state, results, scratch, device

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """W^2 and beta_eff for sos points, energy and magnetization for ising points,
        then the step density and the event rate."""
        present = {pt["rates"] for pt in points}
        out: dict[str, str] = {}
        for rates, figures in RATE_FIGURES.items():
            if rates in present:
                out.update(figures)
        return {**out, **COMMON_FIGURES}


SPEC = KMC2DSpec()

"""The fcc binary alloy's spec: its run-config keys, checks, point names, costs, figures."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_int, check_real
from simcore.models.spec import Key, ModelSpec, PaperFigure, Work, format_number
from simcore.sampling import n_times_estimate, sampling_times

#: Which species move (B only: the physics; both: the paper's GPU code).
ACTIVE = ("B", "both")
#: The schedules (simcore.models.fcc): random-sequential, two-layer double tiling, slabs.
SCHEMES = ("sequential", "dt", "slabs")
#: The key of each decomposed schedule's geometry (a run config holds only its own).
SCHEME_KEYS = {"dt": "block_side", "slabs": "n_slabs"}
#: Smallest L: one slab of 8 planes (scheme dt needs 16: two blocks of side 8 per axis).
MIN_L = 8
#: Sites of the L^3 box per second that the observables (S(k) by FFT, bond counts) get
#: through on one core (measured: 1.7e-7 s per site at L = 64).
MEASURE_SITES_PER_SECOND = 5e6
#: Scratch bytes per site of the L^3 box at the peak of measuring S(k)
#: (:func:`simcore.models.fcc.observables.structure_factor`, with numpy's elision of
#: temporaries): the occupation as float64 (8), the index grids (int64, 24), the fcc mask
#: (1), the field (8), |FT|^2 (8), the wavevector grids (24), |k| (8), the shell indices
#: (int64, 8) and the mask of kept shells (1); the kept shells' indices and powers add 16
#: bytes per kept wavevector (:data:`KEPT_BYTES`).  The FFT itself peaks lower (73: the
#: first six, a complex copy of the field and the complex result).
MEASURE_BYTES_PER_SITE = 90
#: Bytes per wavevector inside the kept shells, |k| < pi (int64 index and float64 power).
KEPT_BYTES = 16
_KELLING = "kelling2012"


def _scheme_is(scheme: str):
    return lambda cfg: cfg.get("scheme") == scheme


class FCCSpec(ModelSpec):
    """fcc binary alloy (kelling2012): Kawasaki exchange KMC on the fcc sites of a periodic
    L^3 box after a quench from a random mixture; random-sequential, two-layer double
    tiling (CPU cores or the GPU, the same lattices) or slabs with dead borders."""

    name = "fcc"
    title = "fcc binary alloy, Kawasaki exchange KMC after a quench (kelling2012)"
    backends = ("cpu", "gpu")
    #: The CPU job (sequential, dt or slabs) and its GPU subclass (dt), imported when built.
    jobs = {
        "cpu": "simcore.models.fcc.simulation:FCCSimulation",
        "gpu": "simcore.models.fcc.simulation:FCCGPUSimulation",
    }
    keys = {
        "L": Key("side of the periodic L^3 simple cubic box of the fcc sites, even, >= 8",
                 type="int"),
        "c": Key("B concentration, 0 < c < 1 (random mixture at t = 0)", type="float"),
        "epsilon": Key("B-B bond energy over k_B T, >= 0 (quench depth)", type="float"),
        "active": Key("species that move: B (the physics) or both (the paper's GPU code); "
                      "default B for scheme sequential, both for dt and slabs (which need it)",
                      default=None, type="str"),
        "scheme": Key("schedule: sequential, dt (two-layer double tiling: the GPU kernel and "
                      "the CPU DD) or slabs (1D dead border: the MPI code's twin)",
                      default="sequential", type="str", choices=SCHEMES),
        "block_side": Key("block side b, a power of two >= 8 (gpu: <= 64), L a multiple of 2 b",
                          default=32, type="int", applies=_scheme_is("dt"),
                          applies_to="scheme dt"),
        "n_slabs": Key("number of slabs P, L % P == 0, L / P >= 8", default=4, type="int",
                       applies=_scheme_is("slabs"), applies_to="scheme slabs"),
    }  # fmt: skip
    time_unit = "MCS"
    resource_rates = {
        "alloy_attempts_per_second": (1e7, "exchange attempts per second of one CPU job, "
                                      "whatever its scheme (measured: 1.4e7 on one core)"),
        "gpu_alloy_attempts_per_second": (1e9, "exchange attempts per second of one GPU job"),
    }  # fmt: skip
    analysis = "analysis.fcc"
    paper_figures = (
        PaperFigure("kelling2012_fig6", _KELLING, "Fig. 6: speed of every implementation "
                    "relative to the fastest single core", "analysis.kelling2012:fig6",
                    bench=("fcc",)),
        PaperFigure("kelling2012_fig7", _KELLING, "Fig. 7: run time along a quench vs open "
                    "bonds", "analysis.kelling2012:fig7", bench=("fcc",)),
    )  # fmt: skip
    bench_kernels = {"fcc": "simcore.models.fcc.bench:FCC"}
    example = {"L": 16, "c": 0.3, "epsilon": 1.0, "scheme": "dt", "block_side": 8, "samples": 2,
               "t_max": 5}  # fmt: skip

    def validate(self, cfg: dict[str, Any]) -> None:
        """Lattice, concentration, bond energy, active species, the scheme's geometry and
        the backend."""
        L = check_int(cfg, "L", lo=MIN_L)
        if L % 2:
            raise ConfigError("L", L, "must be even (the fcc sublattice of the periodic L^3 box)")
        if L**3 // 2 > 2**32:
            raise ConfigError("L", L, "L^3 / 2 sites must be <= 2^32 (32-bit Philox counter words)")
        c = check_real(cfg, "c")
        if not 0.0 < c < 1.0:
            raise ConfigError("c", cfg["c"], "must lie in (0, 1), strictly")
        cfg["c"] = c
        eps = check_real(cfg, "epsilon")
        if eps < 0:
            raise ConfigError("epsilon", cfg["epsilon"], "must be a number >= 0")
        cfg["epsilon"] = eps
        scheme = cfg["scheme"]
        if cfg["active"] is None:
            cfg["active"] = "B" if scheme == "sequential" else "both"
        if cfg["active"] not in ACTIVE:
            raise ConfigError("active", cfg["active"], f"must be one of {', '.join(ACTIVE)}")
        if cfg["active"] == "B" and scheme != "sequential":
            raise ConfigError(
                "active",
                "B",
                f"scheme {scheme} needs both species active (with only B active a particle can "
                "leave the region being updated but not come back: biased equilibrium)",
            )
        if scheme == "dt":
            from simcore.models.fcc.decomposed import MAX_BLOCK, MIN_BLOCK

            b = check_int(cfg, "block_side", lo=MIN_BLOCK)
            if b & (b - 1) or b > MAX_BLOCK:
                raise ConfigError("block_side", b, f"must be a power of two <= {MAX_BLOCK}")
            if L % (2 * b):
                raise ConfigError("L", L, f"scheme dt needs a multiple of 2 x block_side = {2 * b}")
        elif scheme == "slabs":
            from simcore.models.fcc.slabs import MIN_LZ

            P = check_int(cfg, "n_slabs", lo=1)
            if L % P:
                raise ConfigError("L", L, f"scheme slabs needs a multiple of n_slabs = {P}")
            if L // P < MIN_LZ:
                raise ConfigError(
                    "n_slabs", P, f"slabs of L / n_slabs = {L // P} < {MIN_LZ} planes"
                )
        if cfg["backend"] == "gpu" and scheme != "dt":
            raise ConfigError("scheme", scheme, "the gpu backend runs scheme dt only")

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``fcc_L64_c0.325_eps1.5_B_sequential_cpu``; scheme dt carries its block side
        (``..._both_dt32_gpu``), scheme slabs its number of slabs (``..._both_slabs4_cpu``)."""
        how = cfg["scheme"]
        if how == "dt":
            how = f"dt{int(cfg['block_side'])}"
        elif how == "slabs":
            how = f"slabs{int(cfg['n_slabs'])}"
        par = f"L{int(cfg['L'])}_c{format_number(cfg['c'])}_eps{format_number(cfg['epsilon'])}"
        return f"fcc_{par}_{cfg['active']}_{how}_{cfg['backend']}"

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """dt (the CPU DD) and slabs run their blocks or slabs in parallel on the CPU (a GPU
        job runs on the GPU: one core)."""
        return cfg.get("backend") == "cpu" and cfg.get("scheme") in SCHEME_KEYS

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``L^3/2 t_max samples`` exchange attempts (CPU: at one core's rate, whatever the
        scheme, a conservative guess for dt and slabs), plus the observables: every sampling
        time measures S(k) by an FFT of the L^3 box at :data:`MEASURE_SITES_PER_SECOND`.
        The memory is :meth:`_memory`'s count of the arrays the job allocates."""
        L, samples, t_max = int(job["L"]), int(job["samples"]), int(job["t_max"])
        gpu = job["backend"] == "gpu"
        rate = rates["gpu_alloy_attempts_per_second" if gpu else "alloy_attempts_per_second"]
        n_times = n_times_estimate(t_max, int(job["points_per_decade"]), 0)
        seconds = L**3 // 2 * t_max * samples / rate
        seconds += n_times * samples * L**3 / MEASURE_SITES_PER_SECOND
        # (state, results, scratch, device) bytes: Work's fields in that order
        return Work(seconds, *self._memory(job))

    @staticmethod
    def _memory(job: Mapping[str, Any]) -> tuple[int, int, int, int]:
        """(state, results, scratch, device) bytes of a job, counted from the arrays its code
        allocates (:mod:`.simulation`, :mod:`.observables`, :mod:`.gpu`); L^3 sites of the
        simple cubic box, S samples, n_t sampling times, n_k = L/2 - 1 shells of S(k).

        State (host, either backend): the packed lattices, L^2 rows of ceil(L/128) uint64
        words per sample, the exchange counts and the shells' |k|.  Results: open bonds,
        energy, domain size and exchanges per sample and time, S(k) per sample, time and
        shell (float64), the wall times.  Scratch, the largest of these (never held at
        once): measuring S(k) of one sample (:data:`MEASURE_BYTES_PER_SITE` per site of
        the box and :data:`KEPT_BYTES` per wavevector with |k| < pi, about 98 bytes per
        site); the random mixtures of the start, listed and then stacked (one lattice per
        sample); :meth:`~.simulation.FCCSimulation.to_dataset`'s slices, each of which
        keeps its sample's uint8 L^3 occupation box until they are stacked (the last one's
        box made with its 4 bytes per site of gathered words), and the wall-time copy.
        The schedules' buffers (a block window per thread) are a few KiB.

        GPU (scheme dt, all samples in lockstep): the device holds the lattices, a done
        flag (int32) per block and sample, the set orders of the longest step between
        sampling times (8 int32 per MCS and sample) and the counters; the host holds the
        state and results as on the CPU and its scratch also covers those set orders and
        the downloaded lattices, made while the last ones are held.
        """
        from simcore.models.fcc import SLICE

        L, samples = int(job["L"]), int(job["samples"])
        box, gpu = L**3, job["backend"] == "gpu"
        lattice = 8 * L * L * ((L // 2 + 63) // 64)  # simcore.models.fcc.lattice's rows
        times = sampling_times(int(job["t_max"]), int(job["points_per_decade"]), [])
        n_t, n_k = times.size, L // 2 - 1
        state = samples * (lattice + 8) + 8 * n_k
        results = samples * n_t * 8 * (4 + n_k) + 8 * n_t
        kept = 4.0 / 3.0 * math.pi * (L / 2 - 0.5) ** 3
        measure = MEASURE_BYTES_PER_SITE * box + int(KEPT_BYTES * kept)
        output = (samples + 4) * box + 2 * samples * min(L, SLICE) ** 2 + 8 * samples * n_t
        scratch = max(measure, samples * lattice, output)
        if not gpu:
            return state, results, scratch, 0
        longest = int((times[1:] - times[:-1]).max()) if times.size > 1 else 0
        orders = 32 * longest * samples
        blocks = (L // int(job["block_side"])) ** 3
        device = samples * (lattice + 4 * blocks + 16) + orders + 108  # + 13 thresholds
        return state, results, max(scratch, orders), device

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """Domain growth, its exponent, open bonds, the scaled S(k, t) and the slice."""
        return {
            "domain_size": "Domain size L(t) against MCS, log-log, with jackknife errors, one "
            "line per point; a dashed t^(1/3) guide.",
            "x_eff": "Effective coarsening exponent x_eff(t) = d ln L / d ln t with jackknife "
            "errors, one line per point; Lifshitz-Slyozov's 1/3 for reference.",
            "open_bonds": "A-B bonds per B particle against MCS (log t), one line per point.",
            "structure_factor": "Dynamic scaling of the structure factor: S(k, t) / L(t)^3 "
            "against k L(t) at a few late times, one panel per point; curves that collapse "
            "show L(t) is the only length.",
            "slice": "The plane z = 0 at t_max of the first sample of each point (B black), "
            "one panel per point.",
        }


SPEC = FCCSpec()

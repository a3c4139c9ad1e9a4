"""The KPZ model's spec: its run-config keys, checks, point names, costs and figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_pair, check_probability
from simcore.models.kpz.geometry import (
    all_schemes,
    geometry_from_config,
    geometry_problem,
    parse_scheme,
)
from simcore.models.kpz.lattice import snapshot_dtype
from simcore.models.spec import Key, ModelSpec, PaperFigure, Work, format_number
from simcore.sampling import sampling_times

#: Smallest lateral size per dimension (one full uint32 word along each axis of the
#: packed lattice, see simcore.models.kpz.lattice).
MIN_L = {1: 32, 2: 4}
SCHEMES = ("sequential", *all_schemes())


def is_dd(cfg: Mapping[str, Any]) -> bool:
    """Whether the settings use a domain-decomposition scheme (the DD keys apply)."""
    return parse_scheme(str(cfg.get("scheme"))) is not None


_DD = "the DD schemes"


class KPZSpec(ModelSpec):
    """Octahedron model (d = 2) and single-step model (d = 1) of KPZ growth (kelling2012,
    kelling2017): random-sequential or domain decomposition, on CPU cores or the GPU."""

    name = "kpz"
    title = "KPZ growth: octahedron model (d = 2), single-step model (d = 1)"
    backends = ("cpu", "gpu")
    #: The CPU job and its GPU subclass (samples in lockstep), imported when a job is built.
    jobs = {
        "cpu": "simcore.models.kpz.simulation:KPZSimulation",
        "gpu": "simcore.models.kpz.gpu_simulation:KPZGPUSimulation",
    }
    keys = {
        "dim": Key("substrate dimension", type="int", choices=(1, 2)),
        "L": Key("lateral size, a power of two (d = 1: >= 32, d = 2: >= 4)", type="int"),
        "p": Key("deposition probability", default=1.0, type="float"),
        "q": Key("removal probability, p + q <= 1", default=0.0, type="float"),
        "scheme": Key(
            "site selection: sequential, or a DD scheme <device><block> (e.g. DTrDB; d = 2)",
            default="sequential",
            type="str",
            choices=SCHEMES,
        ),
        "tc": Key("DD thread cell: 4*2^a x 4*2^b sites (block layer)", default=[1, 1],
                  type="[int, int]", applies=is_dd, applies_to=_DD, kind="pair"),
        "domain": Key("DD device-layer domain Dx, Dy in sites (powers of two >= 8)",
                      default=[128, 128], type="[int, int]", applies=is_dd, applies_to=_DD,
                      kind="pair"),
        "t_async": Key("DD asynchronous interval in MCS (1, 1/2, 1/4, ...)", default=1.0,
                       type="float", applies=is_dd, applies_to=_DD),
        "border": Key("DB/cDB dead-border width in sites (default 5 for DB, 1 for cDB)",
                      default=None, type="int", applies=is_dd, applies_to=_DD),
        "waiting_times": Key("waiting times s of C(t, s), MCS (1 <= s <= t_max)", default=[],
                             type="list[int]", point=False, kind="list"),
        "snapshot_samples": Key("height snapshots: the first N samples of a job store h at "
                                "t_max as snapshot(snapshot_sample, y, x) (d = 1: x); 0: none",
                                default=0, type="int", point=False),
    }  # fmt: skip
    time_unit = "MCS"
    resource_rates = {
        "updates_per_second": (1e7, "site-update attempts per second of one CPU job"),
        "gpu_updates_per_second": (2e10, "site-update attempts per second of one GPU job"),
    }
    analysis = "analysis.kpz"
    paper_figures = (
        PaperFigure("fig3a", "kelling2017", "Fig. 3(a): height autocorrelation C_h(t, s) vs "
                    "t/s per device-layer scheme against the sequential reference",
                    "analysis.kelling2017_corr:fig3a"),
        PaperFigure("fig3b", "kelling2017", "Fig. 3(b): slope autocorrelation C_s(t, s) vs "
                    "t/s per scheme", "analysis.kelling2017:fig3b"),
        PaperFigure("fig3b_noise", "kelling2017", "Fig. 3(b), its noise: rms of C_s(t, s) "
                    "over t/s > 30 per scheme and t_async at equal n, measured and expected "
                    "from the jackknife errors", "analysis.kelling2017_corr:fig3b_noise"),
        PaperFigure("fig4", "kelling2017", "Figs. 4/5: autocorrelation C_h(t, s) and "
                    "lambda_h/z, or C_s and lambda_s/z (option exponent=s), per scheme and "
                    "thread cell", "analysis.kelling2017:fig4"),
        PaperFigure("fig5b", "kelling2017", "Fig. 5(b): local slopes lambda_h/z of C_h(t, s) "
                    "for every waiting time", "analysis.kelling2017:fig5b"),
        PaperFigure("fig6", "kelling2017", "Fig. 6: effective growth exponent beta_eff(t) "
                    "with the asymptotic beta", "analysis.kelling2017:fig6"),
        PaperFigure("performance", "kelling2017", "Fig. 7 (kelling2012 Figs. 4/5): update "
                    "attempts per ns and time per MCS vs L", "analysis.kelling2017:performance",
                    bench=("dd",)),
        PaperFigure("kelling2012_fig1", "kelling2012", "Fig. 1: snapshot of a 2+1D KPZ surface "
                    "(octahedron model), h - <h> of one sample at t_max in colour, with a line "
                    "cut; one point run with snapshot_samples >= 1",
                    "analysis.kelling2012_kpz:fig1"),
    )  # fmt: skip
    bench_kernels = {
        "sequential": "simcore.models.kpz.bench:SEQUENTIAL",
        "dd": "simcore.models.kpz.bench:DD",
    }
    example = {"dim": 2, "L": 16, "scheme": "DTrDT", "domain": [8, 8], "waiting_times": [5],
               "samples": 2, "t_max": 20}  # fmt: skip

    def validate(self, cfg: dict[str, Any]) -> None:
        """Size, probabilities, waiting times, scheme and decomposition."""
        dim = cfg["dim"]
        L = cfg["L"]
        if isinstance(L, bool) or not isinstance(L, int) or L < MIN_L[dim] or L & (L - 1):
            raise ConfigError("L", L, f"must be a power of two >= {MIN_L[dim]} (dim {dim})")
        if L**dim > 2**32:
            raise ConfigError("L", L, f"L^{dim} must not exceed 2^32 sites")
        p, q = check_probability(cfg, "p"), check_probability(cfg, "q")
        if p + q > 1.0 + 1e-12:
            raise ConfigError("q", q, f"p + q = {p + q:g} must not exceed 1")
        cfg["p"], cfg["q"] = p, q
        wt = cfg["waiting_times"]
        if not isinstance(wt, list):
            raise ConfigError("waiting_times", wt, "must be a list of integers")
        for s in wt:
            if isinstance(s, bool) or not isinstance(s, int) or s < 1:
                raise ConfigError("waiting_times", s, "each waiting time must be an integer >= 1")
            if s > cfg["t_max"]:
                raise ConfigError(
                    "waiting_times", s, f"waiting time exceeds t_max = {cfg['t_max']}"
                )
        cfg["waiting_times"] = sorted(set(wt))
        self._check_snapshots(cfg)
        parsed = parse_scheme(cfg["scheme"])
        if parsed is None:
            if cfg["backend"] != "cpu":
                raise ConfigError(
                    "backend", cfg["backend"], "the sequential scheme runs on cpu only"
                )
            return
        self._check_decomposition(cfg, parsed)

    @staticmethod
    def _check_snapshots(cfg: dict[str, Any]) -> None:
        """``snapshot_samples``: an integer >= 0.  0 (the default) is dropped from the
        config, so that a run without snapshots has the run config, job file, point name,
        seeds and run-file attributes it had before the key existed (a campaign's existing
        jobs stay up to date)."""
        n = cfg.get("snapshot_samples", 0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(
                "snapshot_samples",
                n,
                "must be an integer >= 0 (samples per job whose heights at t_max are stored)",
            )
        if n == 0:
            cfg.pop("snapshot_samples", None)

    @staticmethod
    def _check_decomposition(cfg: dict[str, Any], parsed: tuple[str, str]) -> None:
        """The DD keys (see simcore.models.kpz.geometry) against scheme, backend and L."""
        cfg["tc"], cfg["domain"] = check_pair(cfg, "tc"), check_pair(cfg, "domain")
        ta = cfg["t_async"]
        if isinstance(ta, bool) or not isinstance(ta, int | float) or not 0 < ta <= 1:
            raise ConfigError("t_async", ta, "must be a number in (0, 1] (MCS)")
        cfg["t_async"] = float(ta)
        b = cfg["border"]
        if b is not None and (isinstance(b, bool) or not isinstance(b, int)):
            raise ConfigError("border", b, "must be an integer number of sites")
        if cfg["dim"] != 2:
            raise ConfigError(
                "scheme", cfg["scheme"], "domain decomposition is implemented for dim 2"
            )
        if cfg["backend"] == "gpu" and not parsed[1]:
            raise ConfigError(
                "scheme", cfg["scheme"], "the gpu backend needs a block layer (e.g. DTrDT, DTrDB)"
            )
        certain = (cfg["p"], cfg["q"]) in ((1.0, 0.0), (0.0, 1.0))
        if parsed[1] == "DBs" and not certain:
            raise ConfigError(
                "scheme", cfg["scheme"], "snapshot hits (DBs) need p = 1, q = 0 or p = 0, q = 1; "
                f"for p = {cfg['p']:g}, q = {cfg['q']:g} use {parsed[0]}DB"
            )  # fmt: skip
        geo = geometry_from_config(cfg)
        problem = geometry_problem(geo)
        if problem is not None:
            raise ConfigError(*problem)
        if cfg["t_max"] * geo.phases >= 2**32:
            raise ConfigError("t_max", cfg["t_max"], f"t_max x {geo.phases} phases must be < 2^32")

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``kpz_d2_L256_p1_q0_sequential_cpu``; DD schemes append their decomposition,
        ``..._DTrDT_gpu_D128x128_tc1-1`` (plus ``_ta0.5`` and ``_w5`` where t_async and
        border are set), since runs of different decompositions are different points.
        Runs with height snapshots end in ``_snap<N>``: their files hold more than those of
        the same settings without, so a campaign keeps both apart (kelling2012 Fig. 1's
        short run beside kelling2017's long reference of the same L), and names without
        snapshots stay as they were."""
        name = (
            f"kpz_d{int(cfg['dim'])}_L{int(cfg['L'])}_p{format_number(cfg['p'])}"
            f"_q{format_number(cfg['q'])}_{cfg['scheme']}_{cfg['backend']}"
        )
        snap = f"_snap{int(cfg['snapshot_samples'])}" if cfg.get("snapshot_samples") else ""
        parsed = parse_scheme(cfg["scheme"])
        if parsed is None:
            return name + snap
        name += f"_D{cfg['domain'][0]}x{cfg['domain'][1]}"
        if parsed[1]:
            name += f"_tc{cfg['tc'][0]}-{cfg['tc'][1]}"
        if float(cfg["t_async"]) != 1.0:
            name += f"_ta{format_number(cfg['t_async'])}"
        if cfg.get("border") is not None:
            name += f"_w{int(cfg['border'])}"
        return name + snap

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """The DD schemes run their domains in parallel on the CPU (a GPU job runs on the
        GPU: one core)."""
        return cfg.get("backend") == "cpu" and is_dd(cfg)

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``L^dim t_max samples`` attempts; the memory is :meth:`_memory`'s count of the
        arrays the job allocates."""
        n_sites = int(job["L"]) ** int(job["dim"])
        samples, t_max = int(job["samples"]), int(job["t_max"])
        rate = rates["gpu_updates_per_second" if job["backend"] == "gpu" else "updates_per_second"]
        # (state, results, scratch, device) bytes: Work's fields in that order
        return Work(n_sites * t_max * samples / rate, *self._memory(job))

    @staticmethod
    def _memory(job: Mapping[str, Any]) -> tuple[int, int, int, int]:
        """(state, results, scratch, device) bytes of a job, counted from the arrays its code
        allocates; N = L^d sites, S samples, n_s waiting times, n_t sampling times, a packed
        lattice P = N/4 bytes (d = 2) or N/8 (d = 1).

        CPU (:mod:`.simulation`, one sample at a time, any scheme): state = the lattice
        and its n_s snapshots, (1 + n_s) P, and the int32 heights at the waiting times,
        4 N n_s; results = W^2, mean h (S x n_t) and C_h, C_s (S x n_s x n_t), float64;
        scratch = the int64 height buffer, 8 N, and the next sample's flat lattice, made
        while the last one is still held, P.  The schedules' own buffers (a batch of
        draws, a thread's Philox words per domain) are a few KiB.

        GPU (:mod:`.gpu_simulation`, all samples at once, d = 2): device = the lattices,
        their snapshots and the event counts, S ((1 + n_s) P + 8 (1 + n_s)), plus the
        larger of (they are never held at once) the round table of the longest step
        between sampling times (:func:`.geometry.round_table`: origins and set orders,
        24 bytes per MCS, round and sample) and the int32 heights of every sample (4 S N),
        twice where C_h rebuilds the heights at an earlier waiting time, with the first
        row's scratch of :func:`.gpu_observables.heights` (16 S L).  Host: state = the
        checkpoint's copy of the device state, results as on the CPU, scratch = the host
        round table beyond that copy (the two are never held at once).

        Height snapshots (``snapshot_samples``, n = min(N_snap, S) of them): n N heights of
        :func:`.lattice.snapshot_dtype` in the host state of either backend (the run file's
        variable is a view of them); a GPU job copies each sample's int32 heights back at
        t_max through a host row of 4 N bytes, when the round table is no longer held.
        """
        dim, L = int(job["dim"]), int(job["L"])
        n, samples = L**dim, int(job["samples"])
        waits = [int(s) for s in job.get("waiting_times", ())]
        n_s = len(waits)
        times = sampling_times(int(job["t_max"]), int(job["points_per_decade"]), waits)
        lattice = n // 4 if dim == 2 else n // 8
        results = 8 * samples * times.size * (2 + 2 * n_s)
        n_snap = min(int(job.get("snapshot_samples", 0)), samples)
        snap = n_snap * n * snapshot_dtype(dim, L, int(job["t_max"])).itemsize
        if job["backend"] != "gpu":
            return (1 + n_s) * lattice + 4 * n * n_s + snap, results, 8 * n + lattice, 0
        state = samples * ((1 + n_s) * lattice + 8 * (1 + n_s))
        longest = int((times[1:] - times[:-1]).max()) if times.size > 1 else 0
        table = 24 * longest * geometry_from_config(dict(job)).rounds * samples
        rebuilt = any(s < int(job["t_max"]) for s in waits)
        heights = 4 * samples * n * (2 if rebuilt else 1) + 16 * samples * L
        scratch = max(0, table - state, 4 * n if n_snap else 0)
        return state + snap, results, scratch, state + max(table, heights)

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """W^2, beta_eff, C_h, C_s and lambda/z of every point."""
        return {
            "W2": "Squared interface width W^2(t) against time (MCS), log-log, one line per "
            "point and one panel per substrate dimension.",
            "beta_eff": "Effective growth exponent beta_eff(t), the local slope of ln W against "
            "ln t, with jackknife errors; the asymptotic KPZ beta of each dimension dashed.",
            "C_h": "Height autocorrelation C_h(t, s) against t/s, log-log, one panel per point "
            "and one line per waiting time s.",
            "C_s": "Autocorrelation C_s(t, s) of the 0/1 slope variables against t/s, "
            "log-log, one panel per point and one line per waiting time s.",
            "lambda_eff": "Effective autocorrelation exponents lambda_h/z (heights, left) and "
            "lambda_s/z (slopes, right) against t/s, one row per point and one line per "
            "waiting time s.",
        }


SPEC = KPZSpec()

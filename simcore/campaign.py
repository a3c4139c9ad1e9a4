"""Campaign files -> parameter points -> jobs -> run configs (pure Python, no Snakemake).

A campaign (``config/<campaign>.yaml``, schema ``workflow/schemas/config.schema.yaml``)
lists grid entries; every entry expands to the Cartesian product of its lists into
parameter *points*, each with a canonical name such as
``kpz_d2_L256_p1_q0_sequential_cpu``.  A point's samples are split into *blocks* of
``samples_per_job`` samples (the last block holds the remainder); one block is one job,
i.e. one run config and one ``simcore run``.

The Snakemake rules only ask this module for names, blocks, run configs and resources,
so the expansion can be tested without Snakemake, and the rules stay thin.

Incrementality: a job's run config depends only on its own point's parameters, its
block index and the campaign seed/name (the seed comes from
:func:`simcore.seeding.job_seed`), so adding samples (new blocks) or points leaves every
existing job's config -- and so its output -- unchanged.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from simcore.config import (
    FCC_SCHEME_KEYS,
    KMC2D_DEFAULT_START,
    KMC2D_PARAMS,
    MODEL_KEYS,
    RUN_KEYS,
    ConfigError,
    point_keys,
    validate_run_config,
)
from simcore.schedules.decomposed import parse_scheme
from simcore.seeding import job_seed

#: The campaign schema shipped with the workflow (repository layout).
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "workflow" / "schemas" / "config.schema.yaml"

#: Keys of a job's run config after the point keys, in the order they are written.
_JOB_TAIL = (
    "samples",
    "seed",
    "t_max",
    "waiting_times",
    "points_per_decade",
    "sample_offset",
    "campaign",
    "point",
    "block",
)


def job_keys(model: str) -> tuple[str, ...]:
    """Keys of a job's run config of ``model``, in the order they are written
    (ARCHITECTURE.md); DD keys only for DD schemes, waiting_times only for kpz; a kmc2d job
    has the parameters of its own rate model only, and ``tile`` only for scheme tiles; an
    fcc job ``block_side`` only for scheme dt and ``n_slabs`` only for scheme slabs."""
    tail = _JOB_TAIL if model == "kpz" else tuple(k for k in _JOB_TAIL if k != "waiting_times")
    return (*point_keys(model), *tail)


#: The job keys of a KPZ run (the first model; kept for the tests and docs).
JOB_KEYS = job_keys("kpz")


#: ``simcore bench`` kernels a campaign's ``benchmarks`` lines may name first.
BENCH_KERNELS = ("dd", "ea3d", "mgpu", "kmc2d", "fcc")
#: Comparison figures drawn from a benchmark table, and the kernel whose table it is.
BENCH_FIGURE_KERNEL = {"performance": "dd", "psflip_k": "ea3d", "psflip_L": "ea3d",
                       "psflip_prng": "ea3d", "strong_scaling": "mgpu",
                       "scaling_collapse": "mgpu", "darkins2024_fig3": "kmc2d",
                       "kelling2012_fig6": "fcc", "kelling2012_fig7": "fcc"}  # fmt: skip
#: Comparison figures that compute their own data (no points, no benchmark table):
#: darkins2024 Fig. 2, the adaptive time step of one CPU run (analysis.kmc2d_performance).
COMPUTED_FIGURES = ("darkins2024_fig2",)

#: The campaign figures (file stems in results/<campaign>/figures/) of kpz and ea3d: those
#: analysis.figures and analysis.spin_glass draw (their FIGURE_NAMES).
#: The campaign figures of fcc (analysis.fcc draws them, its FIGURE_NAMES): domain growth
#: L(t), its effective exponent x_eff(t), open bonds per B particle, the scaled structure
#: factor and the z = 0 slice at t_max.
FCC_FIGURES = ("domain_size", "x_eff", "open_bonds", "structure_factor", "slice")
MODEL_FIGURES = {
    "kpz": ("W2", "beta_eff", "C_h", "C_s", "lambda_eff"),
    "ea3d": ("energy", "q2", "binder"),
    "fcc": FCC_FIGURES,
}
#: The campaign figures of kmc2d (analysis.kmc2d draws them): those of each rate model
#: present among the campaign's points, then :data:`KMC2D_COMMON_FIGURES`.
KMC2D_FIGURES = {"sos": ("W2", "beta_eff"), "ising": ("energy", "magnetization")}
KMC2D_COMMON_FIGURES = ("step_density", "events_rate")

#: Run-config keys of the domain decomposition, written only for DD schemes.
DD_KEYS = ("tc", "domain", "t_async", "border")

#: Characters allowed in point and campaign names (also the Snakemake wildcard constraint).
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"


# --------------------------------------------------------------------------- validation


@lru_cache(maxsize=4)
def _load_schema(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _default_filling_validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator that fills ``default`` values, like ``snakemake.utils.validate``.

    Defaults are deep-copied so a mutable default (``{}``) is never shared between configs.
    """
    from jsonschema import Draft202012Validator, validators

    validate_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema_):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from validate_properties(validator, properties, instance, schema_)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema)


def _path_text(path: Any) -> str:
    """``points[1].L`` style location of a schema error."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<campaign>"


def _error_text(err: Any) -> str:
    """One line naming the offending key and its value."""
    where = _path_text(err.absolute_path)
    prefix = "" if where == "<campaign>" else where + "."
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        if extra:
            key = extra[0]
            return f"{prefix}{key}: unknown key (value: {err.instance[key]!r})"
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        if missing:
            return f"{prefix}{missing[0]}: required key is missing"
    return f"{where}: {err.message} (value: {err.instance!r})"


def validate_config(
    config: Mapping[str, Any], schema_path: str | os.PathLike[str] | None = None
) -> dict[str, Any]:
    """Validate a campaign dict against the schema and return a copy with defaults filled.

    Raises ``ValueError`` with a one-line message naming the offending key and value,
    so a typo in a campaign file is found before any job is planned.
    """
    import jsonschema

    schema = _load_schema(str(schema_path or SCHEMA_PATH))
    data = copy.deepcopy(dict(config))
    validator = _default_filling_validator(schema)
    errors = list(validator.iter_errors(data))
    if errors:
        raise ValueError(
            f"campaign config: {_error_text(jsonschema.exceptions.best_match(errors))}"
        )
    return data


# --------------------------------------------------------------------------- names


def format_number(x: float) -> str:
    """Shortest exact positional text of a number for names: 1.0 -> "1", 0.5 -> "0.5".

    Uses the shortest round-tripping repr, so distinct floats always give distinct names
    (1e-05 -> "0.00001", never scientific notation).
    """
    d = Decimal(repr(float(x)))
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def point_name(
    model: str,
    dim: int,
    L: int,
    p: float,
    q: float,
    scheme: str,
    backend: str,
    dd: Mapping[str, Any] | None = None,
) -> str:
    """Canonical point name, e.g. ``kpz_d2_L256_p1_q0_sequential_cpu``.

    DD schemes append their decomposition (``dd``: tc, domain, t_async, border):
    ``..._DTrDT_gpu_D128x128_tc1-1``, plus ``_ta0.5`` and ``_w5`` where t_async
    and border are set, since runs of different decompositions are different points.
    """
    name = (
        f"{model}_d{int(dim)}_L{int(L)}_p{format_number(p)}_q{format_number(q)}_{scheme}_{backend}"
    )
    parsed = parse_scheme(scheme)
    if parsed is None or dd is None:
        return name
    name += f"_D{dd['domain'][0]}x{dd['domain'][1]}"
    if parsed[1]:
        name += f"_tc{dd['tc'][0]}-{dd['tc'][1]}"
    if float(dd["t_async"]) != 1.0:
        name += f"_ta{format_number(dd['t_async'])}"
    if dd.get("border") is not None:
        name += f"_w{int(dd['border'])}"
    return name


def ea3d_point_name(L: int, T: float, layout: str, prng: str, backend: str) -> str:
    """Canonical EA3D point name, e.g. ``ea3d_L16_T0.8_sliced_philox_gpu``."""
    return f"ea3d_L{int(L)}_T{format_number(T)}_{layout}_{prng}_{backend}"


def kmc2d_point_name(
    rates: str,
    L: int,
    params: Mapping[str, float],
    scheme: str,
    tile: int | None,
    start: str,
    backend: str,
) -> str:
    """Canonical kmc2d point name: ``kmc2d_sos_L64_phi1_k21_tiles8_cpu`` (phi, then k2),
    ``kmc2d_ising_L32_T2.2_J1_h0_serial_cpu``; scheme tiles carries its tile side, and a
    start other than the rate model's default is appended (``..._cpu_random-start``)."""
    num = {k: format_number(v) for k, v in params.items()}
    if rates == "sos":
        par = f"phi{num['phi']}_k2{num['k2']}"
    else:
        par = f"T{num['T']}_J{num['J']}_h{num['h']}"
    how = f"tiles{int(tile)}" if scheme == "tiles" and tile is not None else scheme
    name = f"kmc2d_{rates}_L{int(L)}_{par}_{how}_{backend}"
    if start != KMC2D_DEFAULT_START[rates]:
        name += f"_{start}-start"
    return name


def fcc_point_name(
    L: int,
    c: float,
    epsilon: float,
    active: str,
    scheme: str,
    block_side: int | None,
    n_slabs: int | None,
    backend: str,
) -> str:
    """Canonical fcc point name: ``fcc_L64_c0.325_eps1.5_B_sequential_cpu``; scheme dt
    carries its block side (``..._both_dt32_gpu``), scheme slabs its number of slabs
    (``..._B_slabs4_cpu``)."""
    how = scheme
    if scheme == "dt" and block_side is not None:
        how = f"dt{int(block_side)}"
    elif scheme == "slabs" and n_slabs is not None:
        how = f"slabs{int(n_slabs)}"
    par = f"L{int(L)}_c{format_number(c)}_eps{format_number(epsilon)}"
    return f"fcc_{par}_{active}_{how}_{backend}"


def kmc2d_figure_names(rates: Iterable[str]) -> list[str]:
    """The campaign figures of kmc2d points with these rate models (see
    :data:`KMC2D_FIGURES`); the Snakemake rules and analysis.kmc2d agree through this."""
    present = set(rates)
    names = [n for r, figs in KMC2D_FIGURES.items() if r in present for n in figs]
    return names + list(KMC2D_COMMON_FIGURES)


def n_blocks(samples: int, samples_per_job: int) -> int:
    """Number of jobs of a point: ``ceil(samples / samples_per_job)``."""
    return -(-int(samples) // int(samples_per_job))


# --------------------------------------------------------------------------- data model


@dataclass(frozen=True)
class Point:
    """One parameter point of a campaign, with its resolved per-point settings."""

    name: str
    model: str
    dim: int
    L: int
    backend: str
    t_max: int
    points_per_decade: int
    samples: int
    samples_per_job: int
    # kpz
    p: float = 0.0
    q: float = 0.0
    scheme: str = "sequential"
    tc: tuple[int, int] = (1, 1)
    domain: tuple[int, int] = (128, 128)
    t_async: float = 1.0
    border: int | None = None
    waiting_times: tuple[int, ...] = ()
    # ea3d (T also kmc2d ising)
    T: float | None = None
    layout: str | None = None
    prng: str | None = None
    # kmc2d: None where a point lacks the key (the other rate model's parameters, the tile
    # of schemes serial and bkl), so its run config lacks it too
    rates: str | None = None
    k2: float | None = None
    phi: float | None = None
    J: float | None = None
    h: float | None = None
    tile: int | None = None
    start: str | None = None
    # fcc: block_side (scheme dt) and n_slabs (scheme slabs) are None for the other schemes
    c: float | None = None
    epsilon: float | None = None
    active: str | None = None
    block_side: int | None = None
    n_slabs: int | None = None

    @property
    def n_blocks(self) -> int:
        """Number of jobs (blocks) of this point."""
        return n_blocks(self.samples, self.samples_per_job)

    @property
    def blocks(self) -> range:
        """Block indices ``0 .. n_blocks - 1``."""
        return range(self.n_blocks)

    def block_samples(self, block: int) -> int:
        """Samples in ``block``: ``samples_per_job``, except the last block's remainder."""
        if not 0 <= block < self.n_blocks:
            raise ValueError(f"point {self.name}: block {block} not in [0, {self.n_blocks})")
        return min(self.samples_per_job, self.samples - block * self.samples_per_job)


@dataclass(frozen=True)
class PaperFigure:
    """A comparison figure of a campaign: which kind, its file stem, and its points.

    ``points`` is ``None`` for all points of the campaign (and for the figures drawn from
    a benchmark table, such as ``performance``), empty for :data:`COMPUTED_FIGURES`.
    """

    name: str
    figure: str
    points: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Campaign:
    """A validated, expanded campaign: its name, master seed and ordered points."""

    name: str
    seed: int
    points: tuple[Point, ...]
    resources: Mapping[str, float]
    threads: int = 1
    stage_size: int = 100
    paper_figures: tuple[PaperFigure, ...] = ()
    benchmarks: tuple[str, ...] = ()
    _index: dict[str, Point] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # name -> point, so per-job look-ups stay O(1) in campaigns of many points
        object.__setattr__(self, "_index", {pt.name: pt for pt in self.points})

    def paper_figure(self, name: str) -> PaperFigure:
        """The comparison figure called ``name`` (``KeyError`` naming it if absent)."""
        for fig in self.paper_figures:
            if fig.name == name:
                return fig
        raise KeyError(f"campaign {self.name} has no paper figure {name!r}")

    def bench_lines(self, kernel: str) -> list[str]:
        """The ``benchmarks`` lines of one ``simcore bench`` kernel, without the kernel word
        (a line that starts with no kernel name is a ``dd`` line)."""
        out = []
        for line in self.benchmarks:
            first, _, rest = line.strip().partition(" ")
            if first in BENCH_KERNELS:
                if first == kernel:
                    out.append(rest.strip())
            elif kernel == "dd":
                out.append(line.strip())
        return out

    def figure_points(self, name: str) -> list[str]:
        """Names of the points drawn in the comparison figure ``name``, in campaign order."""
        fig = self.paper_figure(name)
        return self.point_names if fig.points is None else list(fig.points)

    @property
    def point_names(self) -> list[str]:
        """Point names in campaign-file order."""
        return [pt.name for pt in self.points]

    def point(self, name: str) -> Point:
        """The point called ``name`` (``KeyError`` naming it if absent)."""
        if name in self._index:
            return self._index[name]
        raise KeyError(f"campaign {self.name} has no point {name!r}")

    def jobs(self) -> Iterator[tuple[str, int]]:
        """All jobs as ``(point name, block)`` pairs."""
        for pt in self.points:
            for b in pt.blocks:
                yield pt.name, b

    def job_config(self, point: str, block: int) -> dict[str, Any]:
        """The run config of one job, keys exactly as ``simcore run`` expects (ARCHITECTURE.md).

        It depends only on this point's settings, the block index and the campaign
        name/seed, so it is stable when samples or points are added elsewhere.
        """
        pt = self.point(point)
        block = int(block)
        cfg = {key: _job_value(getattr(pt, key)) for key in point_keys(pt.model)}
        if pt.model in ("kmc2d", "fcc"):  # keys the point lacks (see Point)
            cfg = {key: value for key, value in cfg.items() if value is not None}
        cfg.update(
            samples=pt.block_samples(block),
            seed=job_seed(self.seed, self.name, pt.name, block),
            t_max=pt.t_max,
            waiting_times=list(pt.waiting_times),
            points_per_decade=pt.points_per_decade,
            sample_offset=block * pt.samples_per_job,
            campaign=self.name,
            point=pt.name,
            block=block,
        )
        if pt.model != "kpz":
            del cfg["waiting_times"]
        elif parse_scheme(pt.scheme) is None:  # the DD keys mean nothing to sequential jobs
            for key in DD_KEYS:
                del cfg[key]
        return cfg

    def summary(self, points: list[str] | None = None) -> str:
        """What a campaign (or its ``points``) runs, for report captions: points,
        samples, engine version."""
        from simcore.io.provenance import git_commit, simcore_version

        chosen = self.points if points is None else [self.point(n) for n in points]
        unit = {"kpz": " MCS", "ea3d": " sweeps", "fcc": " MCS"}
        parts = [
            f"{pt.name} ({pt.samples} samples to t = {pt.t_max}{unit.get(pt.model, '')})"
            for pt in chosen
        ]
        return (
            f"{len(chosen)} parameter point(s): "
            + "; ".join(parts)
            + f". simcore {simcore_version()}, git {git_commit() or 'n/a'}."
        )

    def job_threads(self, point: str) -> int:
        """CPU threads of a job of ``point``: ``threads`` for CPU DD schemes, CPU EA3D jobs,
        CPU kmc2d tiles and CPU fcc dt and slabs (their sites, tiles, blocks or slabs run in
        parallel), else 1."""
        pt = self.point(point)
        if pt.backend != "cpu":
            return 1
        if pt.model == "kmc2d":
            return self.threads if pt.scheme == "tiles" else 1
        if pt.model == "fcc":
            return self.threads if pt.scheme in FCC_SCHEME_KEYS else 1
        if pt.model == "ea3d" or parse_scheme(pt.scheme) is not None:
            return self.threads
        return 1

    @property
    def figure_names(self) -> list[str]:
        """The campaign figures (file stems) that the figures rule writes: those of the
        campaign's model (:data:`MODEL_FIGURES`; kmc2d: :func:`kmc2d_figure_names`)."""
        model = self.points[0].model
        if model == "kmc2d":
            return kmc2d_figure_names(str(pt.rates) for pt in self.points)
        return list(MODEL_FIGURES[model])

    def job_resources(self, point: str, block: int, attempt: int = 1) -> dict[str, int]:
        """Snakemake resources (``runtime`` in minutes, ``mem_mb``) of one job.

        See :func:`job_resources`; the runtime doubles with every retry ``attempt``.
        """
        return job_resources(self.job_config(point, block), attempt=attempt, **self.resources)


def _job_value(value: Any) -> Any:
    """A point setting as a run-config value (tuples become lists, as YAML writes them)."""
    return list(value) if isinstance(value, tuple) else value


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _expand_entry(cfg: Mapping[str, Any], idx: int, entry: Mapping[str, Any]) -> list[Point]:
    where = f"points[{idx}]"

    def setting(key: str) -> Any:
        if key in entry:
            return entry[key]
        if key in cfg:
            return cfg[key]
        raise ValueError(
            f"campaign config: {where}: {key} is missing (set it here or campaign-wide)"
        )

    if cfg["model"] == "ea3d":
        return _expand_ea3d(cfg, where, entry, setting)
    if cfg["model"] == "kmc2d":
        return _expand_kmc2d(cfg, where, entry, setting)
    if cfg["model"] == "fcc":
        return _expand_fcc(where, entry, setting)
    dim = int(_required(entry, "dim", where))
    waiting = [int(s) for s in setting("waiting_times")]
    if len(set(waiting)) != len(waiting):
        raise ValueError(f"campaign config: {where}.waiting_times: repeated value in {waiting}")
    common = {
        **_common_settings(str(cfg["model"]), dim, setting),
        "waiting_times": tuple(sorted(waiting)),
    }
    tcs = entry.get("tc", RUN_KEYS["tc"][1])
    tcs = tcs if tcs and isinstance(tcs[0], list) else [tcs]  # one pair or a list of pairs
    fixed = {
        "domain": tuple(entry.get("domain", RUN_KEYS["domain"][1])),
        "t_async": float(entry.get("t_async", RUN_KEYS["t_async"][1])),
        "border": entry.get("border", RUN_KEYS["border"][1]),
    }
    points = []
    for L, p, q, scheme, backend, tc in itertools.product(
        _as_list(entry["L"]),
        _as_list(entry["p"]),
        _as_list(entry["q"]),
        _as_list(entry["scheme"]),
        _as_list(setting("backend")),
        tcs,
    ):
        dd = {"tc": tuple(tc), **fixed}
        _check_run_config(where, common, L, p, q, scheme, backend, dd)
        name = point_name(common["model"], dim, L, p, q, scheme, backend, dd)
        points.append(
            Point(
                name=name,
                L=int(L),
                p=float(p),
                q=float(q),
                scheme=str(scheme),
                backend=str(backend),
                **dd,
                **common,
            )
        )
    return points


def _required(entry: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise ValueError(f"campaign config: {where}.{key}: required key is missing")
    return entry[key]


def _common_settings(model: str, dim: int, setting: Any) -> dict[str, Any]:
    """The settings every point of an entry shares, whatever its model."""
    return {
        "model": model,
        "dim": dim,
        "t_max": int(setting("t_max")),
        "points_per_decade": int(setting("points_per_decade")),
        "samples": int(setting("samples")),
        "samples_per_job": int(setting("samples_per_job")),
    }


def _expand_ea3d(
    cfg: Mapping[str, Any], where: str, entry: Mapping[str, Any], setting: Any
) -> list[Point]:
    """The EA3D points of one entry: the product of its L, T, layout, prng and backend."""
    common = _common_settings("ea3d", 3, setting)
    for key in ("samples", "samples_per_job"):
        if common[key] % 64:
            raise ValueError(
                f"campaign config: {where}.{key}: {common[key]}: must be a multiple of 64 "
                "(one coded word of disorder samples)"
            )
    points = []
    for L, T, layout, prng, backend in itertools.product(
        _as_list(entry["L"]),
        _as_list(_required(entry, "T", where)),
        _as_list(entry.get("layout", RUN_KEYS["layout"][1])),
        _as_list(entry.get("prng", RUN_KEYS["prng"][1])),
        _as_list(setting("backend")),
    ):
        probe = {"model": "ea3d", "L": L, "T": T, "layout": layout, "prng": prng,
                 "backend": backend, "samples": 64, "seed": 0, "t_max": common["t_max"],
                 "points_per_decade": common["points_per_decade"]}  # fmt: skip
        _validate_probe(where, probe)
        name = ea3d_point_name(L, T, layout, prng, backend)
        points.append(
            Point(
                name=name,
                L=int(L),
                T=float(T),
                layout=str(layout),
                prng=str(prng),
                backend=str(backend),
                **common,
            )  # fmt: skip
        )
    return points


#: Keys a kmc2d point entry may set: its point keys and the per-point campaign settings.
KMC2D_ENTRY_KEYS = (
    *(k for k in point_keys("kmc2d") if k != "model"),
    "t_max",
    "points_per_decade",
    "samples",
    "samples_per_job",
)


def _expand_kmc2d(
    cfg: Mapping[str, Any], where: str, entry: Mapping[str, Any], setting: Any
) -> list[Point]:
    """The kmc2d points of one entry (one rate model): the product of L, the rate model's
    parameters, scheme, tile (scheme tiles only), start and backend."""
    for key, value in entry.items():
        if key not in KMC2D_ENTRY_KEYS:
            raise ValueError(
                f"campaign config: {where}.{key}: not a key of model kmc2d (value: {value!r})"
            )
    rates = _required(entry, "rates", where)
    if rates not in KMC2D_PARAMS:
        raise ValueError(
            f"campaign config: {where}.rates: {rates!r}: must be one of " + ", ".join(KMC2D_PARAMS)
        )
    for other, keys in KMC2D_PARAMS.items():
        for key in keys:
            if other != rates and key in entry:
                raise ValueError(
                    f"campaign config: {where}.{key}: {entry[key]!r}: is a parameter of rates "
                    f"{other}, not of rates {rates}"
                )
    defaults = MODEL_KEYS["kmc2d"]
    names = KMC2D_PARAMS[rates]
    required = {"sos": "phi", "ising": "T"}[rates]
    _required(entry, required, where)
    values = [_as_list(entry.get(key, defaults[key][1])) for key in names]
    common = _common_settings("kmc2d", 2, setting)
    tiles = _as_list(entry.get("tile", defaults["tile"][1]))
    points = []
    for L, *params, scheme, start, backend in itertools.product(
        _as_list(entry["L"]),
        *values,
        _as_list(entry.get("scheme", defaults["scheme"][1])),
        _as_list(entry.get("start", KMC2D_DEFAULT_START[rates])),
        _as_list(setting("backend")),
    ):
        for tile in tiles if scheme == "tiles" else [None]:
            probe = {
                "model": "kmc2d",
                "rates": rates,
                "L": L,
                **dict(zip(names, params, strict=True)),
                "scheme": scheme,
                "start": start,
                "backend": backend,
                "samples": 1,
                "seed": 0,
                "t_max": common["t_max"],
                "points_per_decade": common["points_per_decade"],
            }
            if tile is not None:
                probe["tile"] = tile
            run = _validate_probe(where, probe)
            par = {key: run[key] for key in names}
            name = kmc2d_point_name(rates, L, par, scheme, tile, start, backend)
            points.append(
                Point(
                    name=name,
                    L=int(L),
                    rates=str(rates),
                    **par,
                    scheme=str(scheme),
                    tile=None if tile is None else int(tile),
                    start=str(start),
                    backend=str(backend),
                    **common,
                )
            )
    return points


#: Keys an fcc point entry may set: its point keys and the per-point campaign settings.
FCC_ENTRY_KEYS = (
    *(k for k in point_keys("fcc") if k != "model"),
    "t_max",
    "points_per_decade",
    "samples",
    "samples_per_job",
)


def _expand_fcc(where: str, entry: Mapping[str, Any], setting: Any) -> list[Point]:
    """The fcc points of one entry: the product of L, c, epsilon, active, scheme and
    backend, with block_side for scheme dt and n_slabs for scheme slabs only (so an entry
    may list several schemes with the geometry of each, as kmc2d's tile)."""
    for key, value in entry.items():
        if key not in FCC_ENTRY_KEYS:
            raise ValueError(
                f"campaign config: {where}.{key}: not a key of model fcc (value: {value!r})"
            )
    defaults = MODEL_KEYS["fcc"]
    common = _common_settings("fcc", 3, setting)
    geometry = {
        scheme: _as_list(entry.get(key, defaults[key][1]))
        for scheme, key in FCC_SCHEME_KEYS.items()
    }
    points = []
    for L, c, epsilon, active, scheme, backend in itertools.product(
        _as_list(entry["L"]),
        _as_list(_required(entry, "c", where)),
        _as_list(_required(entry, "epsilon", where)),
        _as_list(entry.get("active", [None])),
        _as_list(entry.get("scheme", defaults["scheme"][1])),
        _as_list(setting("backend")),
    ):
        for side in geometry.get(scheme, [None]):
            probe = {"model": "fcc", "L": L, "c": c, "epsilon": epsilon,
                     "scheme": scheme, "backend": backend, "samples": 1, "seed": 0,
                     "t_max": common["t_max"],
                     "points_per_decade": common["points_per_decade"]}  # fmt: skip
            if side is not None:
                probe[FCC_SCHEME_KEYS[scheme]] = side
            if active is not None:
                probe["active"] = active
            run = _validate_probe(where, probe)
            b, P = run.get("block_side"), run.get("n_slabs")
            points.append(
                Point(
                    name=fcc_point_name(
                        L, run["c"], run["epsilon"], run["active"], scheme, b, P, backend
                    ),
                    L=int(L),
                    c=run["c"],
                    epsilon=run["epsilon"],
                    active=str(run["active"]),
                    scheme=str(scheme),
                    block_side=None if b is None else int(b),
                    n_slabs=None if P is None else int(P),
                    backend=str(backend),
                    **common,
                )
            )
    return points


def _check_run_config(
    where: str,
    common: Mapping[str, Any],
    L: Any,
    p: Any,
    q: Any,
    scheme: Any,
    backend: Any,
    dd: Mapping[str, Any],
) -> None:
    """Check a point with the engine's own run-config validation (one source of truth:
    L a power of two above the minimum, p + q <= 1, waiting times in [1, t_max], ...)."""
    probe = {
        "model": common["model"],
        "dim": common["dim"],
        "L": L,
        "p": p,
        "q": q,
        "scheme": scheme,
        "backend": backend,
        "tc": list(dd["tc"]),
        "domain": list(dd["domain"]),
        "t_async": dd["t_async"],
        "border": dd["border"],
        "samples": 1,
        "seed": 0,
        "t_max": common["t_max"],
        "waiting_times": list(common["waiting_times"]),
        "points_per_decade": common["points_per_decade"],
    }
    _validate_probe(where, probe)


def _validate_probe(where: str, probe: dict[str, Any]) -> dict[str, Any]:
    """Check a point with the engine's own run-config validation, naming the entry; returns
    the validated run config."""
    try:
        return validate_run_config(probe)
    except ConfigError as exc:
        raise ValueError(
            f"campaign config: {where}.{exc.key}: {exc.value!r}: {exc.reason}"
        ) from None


def load_campaign(
    source: Mapping[str, Any] | str | os.PathLike[str],
    schema_path: str | os.PathLike[str] | None = None,
) -> Campaign:
    """Validate and expand a campaign (a dict, or the path of a campaign YAML file).

    Raises ``ValueError`` (one line, naming key and value) for an invalid campaign,
    including checks the schema cannot express: L a power of two (d=1 >= 32, d=2 >= 4),
    p + q <= 1, waiting times in [1, t_max], t_max/waiting_times set somewhere, and
    unique point names.
    """
    if isinstance(source, str | os.PathLike):
        with open(source, encoding="utf-8") as fh:
            raw = yaml.safe_load(fh)
        if not isinstance(raw, dict):
            raise ValueError(f"campaign config: {os.fspath(source)} is not a YAML mapping")
    else:
        raw = source
    cfg = validate_config(raw, schema_path)
    points: list[Point] = []
    seen: dict[str, int] = {}
    for idx, entry in enumerate(cfg["points"]):
        for pt in _expand_entry(cfg, idx, entry):
            if pt.name in seen:
                raise ValueError(
                    f"campaign config: points[{idx}]: duplicate point {pt.name} "
                    f"(already defined by points[{seen[pt.name]}])"
                )
            seen[pt.name] = idx
            points.append(pt)
    for pt in points:
        if not re.fullmatch(NAME_PATTERN, pt.name):  # pragma: no cover - schema enums guard
            raise ValueError(f"campaign config: point name {pt.name!r} has odd characters")
    return Campaign(
        name=cfg["campaign"],
        seed=int(cfg["seed"]),
        points=tuple(points),
        resources=dict(cfg["job_resources"]),
        threads=int(cfg["threads"]),
        stage_size=int(cfg["aggregate_stage_size"]),
        paper_figures=_paper_figures(cfg["paper_figures"], points),
        benchmarks=tuple(cfg["benchmarks"]),
    )


def _selected(value: Any, wanted: Any) -> bool:
    """Whether a point setting ``value`` is among the ``wanted`` value(s) of a select."""
    if isinstance(value, tuple):  # tc, domain: one pair, or a list of pairs
        pairs = wanted if wanted and isinstance(wanted[0], list) else [wanted]
        return any(list(value) == list(w) for w in pairs)
    return any(value == w for w in _as_list(wanted))


def _paper_figures(entries: list[Any], points: list[Point]) -> tuple[PaperFigure, ...]:
    """The campaign's comparison figures, each with its selected points (see the schema)."""
    figures: list[PaperFigure] = []
    for idx, entry in enumerate(entries):
        where = f"campaign config: paper_figures[{idx}]"
        entry = {"figure": entry} if isinstance(entry, str) else entry
        name = str(entry.get("name", entry["figure"]))
        select = entry.get("select")
        chosen: tuple[str, ...] | None = () if entry["figure"] in COMPUTED_FIGURES else None
        if select is not None:
            if entry["figure"] in BENCH_FIGURE_KERNEL:
                raise ValueError(
                    f"{where}.select: {entry['figure']} is drawn from `benchmarks`, not points"
                )
            if entry["figure"] in COMPUTED_FIGURES:
                raise ValueError(
                    f"{where}.select: {entry['figure']} computes its own data, it draws no points"
                )
            chosen = tuple(
                pt.name
                for pt in points
                if all(_selected(getattr(pt, key), want) for key, want in select.items())
            )
            if not chosen:
                raise ValueError(f"{where}.select: matches no point (value: {select!r})")
        if name in {f.name for f in figures}:
            raise ValueError(f"{where}.name: {name!r} is used twice")
        figures.append(PaperFigure(name=name, figure=str(entry["figure"]), points=chosen))
    return tuple(figures)


# --------------------------------------------------------------------------- jobs


def n_times_estimate(t_max: int, points_per_decade: int, n_waiting: int) -> int:
    """Upper estimate of the number of stored times (log grid + waiting times + 0, t_max)."""
    return int(points_per_decade * math.log10(max(t_max, 1))) + n_waiting + 3


def job_resources(
    job: Mapping[str, Any],
    attempt: int = 1,
    *,
    updates_per_second: float = 1e7,
    gpu_updates_per_second: float = 2e10,
    flips_per_second: float = 2e9,
    gpu_flips_per_second: float = 1e12,
    events_per_second: float = 1e5,
    gpu_events_per_second: float = 1e7,
    alloy_attempts_per_second: float = 1e7,
    gpu_alloy_attempts_per_second: float = 1e9,
    safety: float = 2.0,
    min_runtime: int = 10,
    base_mem_mb: int = 1024,
) -> dict[str, int]:
    """Resource request of one simulate job from its run config: a simple, documented guess.

    * work = ``L**dim * t_max * samples`` site-update attempts, at ``updates_per_second``
      (one CPU core) or ``gpu_updates_per_second`` (backend gpu, which also asks for
      ``gpu`` = 1);
    * ``runtime`` [min] = ``max(min_runtime, ceil(safety * work / updates_per_second / 60))``,
      multiplied by ``2**(attempt - 1)`` so a retry after a timeout asks for more;
    * ``mem_mb`` = ``base_mem_mb`` + 3 x (lattice state: 8 bytes x N x (4 + 2 n_s), for
      heights, slopes and the stored h(s), n(s) of the n_s waiting times; plus the
      results: 8 bytes x samples x n_times x (2 + 2 n_s)), in MiB, also scaled by attempt.
    * ea3d: work = ``4 L^3 t_max samples`` spin-flip attempts at ``flips_per_second``
      (all CPU cores of the job) or ``gpu_flips_per_second``; the state is 20 words of 8
      bytes per site and coded word, the results 10 numbers per sample and time.
    * fcc: work = ``L^3/2 t_max samples`` exchange attempts at ``alloy_attempts_per_second``
      (one CPU core, whatever the scheme: a conservative guess for dt and slabs, which
      use ``threads`` cores) or ``gpu_alloy_attempts_per_second``, plus the observables:
      every sampling time measures S(k) by an FFT of the L^3 box at
      :data:`FCC_MEASURE_SITES_PER_SECOND`.  Memory: the lattices (L^3/16 bytes per
      sample), the results (S(k) of L/2 shells per sample and time, the slice) and
      :data:`FCC_MEASURE_BYTES_PER_SITE` of FFT scratch per site of the box.
    * kmc2d: work = ``L^2 t_max samples r`` events at ``events_per_second`` or
      ``gpu_events_per_second``, with r the rate per cell of a flat surface: k2 exp(4 max(-phi,
      0)) for sos (exactly k2 at phi = 0, random deposition; bonds, phi > 0, slow the growth
      down), 1 for ising (Glauber rates are <= 1).  The state is 16 bytes per cell and sample
      (height or spin, waiting time, draw count) plus two lattices of scratch; the results
      8 numbers per sample and time, the dt history (4096 steps) and a snapshot.
    """
    if job.get("model") == "kmc2d":
        rates = (events_per_second, gpu_events_per_second)
        return _kmc2d_resources(job, attempt, *rates, safety, min_runtime, base_mem_mb)
    if job.get("model") == "fcc":
        rates = (alloy_attempts_per_second, gpu_alloy_attempts_per_second)
        return _fcc_resources(job, attempt, *rates, safety, min_runtime, base_mem_mb)
    ea3d = job.get("model") == "ea3d"
    n_sites = int(job["L"]) ** (3 if ea3d else int(job["dim"]))
    samples = int(job["samples"])
    t_max = int(job["t_max"])
    n_s = len(job.get("waiting_times", ()))
    scale = 2 ** max(int(attempt) - 1, 0)
    gpu = job.get("backend") == "gpu"
    if ea3d:
        work = 4 * n_sites * t_max * samples
        rate = gpu_flips_per_second if gpu else flips_per_second
    else:
        work = n_sites * t_max * samples
        rate = gpu_updates_per_second if gpu else updates_per_second
    runtime = max(int(min_runtime), math.ceil(safety * work / rate / 60.0))
    n_times = n_times_estimate(t_max, int(job.get("points_per_decade", 10)), n_s)
    if ea3d:
        state_bytes = 8 * 10 * n_sites * (samples // 64)
        result_bytes = 8 * samples * n_times * 10
    else:
        state_bytes = 8 * n_sites * (4 + 2 * n_s)
        result_bytes = 8 * samples * n_times * (2 + 2 * n_s)
    mem_mb = int(base_mem_mb) + math.ceil(3 * (state_bytes + result_bytes) / 2**20)
    return {"runtime": runtime * scale, "mem_mb": mem_mb * scale, "gpu": int(gpu)}


def _kmc2d_resources(
    job: Mapping[str, Any],
    attempt: int,
    events_per_second: float,
    gpu_events_per_second: float,
    safety: float,
    min_runtime: int,
    base_mem_mb: int,
) -> dict[str, int]:
    """:func:`job_resources` of a kmc2d job (see there)."""
    L, samples, t_max = int(job["L"]), int(job["samples"]), int(job["t_max"])
    if job.get("rates") == "sos":
        phi = float(job["phi"])
        scale = float(job.get("k2", 1.0)) * math.exp(4.0 * max(-phi, 0.0))
    else:
        scale = 1.0
    gpu = job.get("backend") == "gpu"
    work = L * L * t_max * samples * scale
    rate = gpu_events_per_second if gpu else events_per_second
    runtime = max(int(min_runtime), math.ceil(safety * work / rate / 60.0))
    n_times = n_times_estimate(t_max, int(job.get("points_per_decade", 10)), 0)
    state_bytes = 16 * L * L * (samples + 2)
    result_bytes = samples * (8 * 8 * n_times + 9 * 4096 + 4 * min(L, 128) ** 2)
    mem_mb = int(base_mem_mb) + math.ceil(3 * (state_bytes + result_bytes) / 2**20)
    scale_attempt = 2 ** max(int(attempt) - 1, 0)
    return {
        "runtime": runtime * scale_attempt,
        "mem_mb": mem_mb * scale_attempt,
        "gpu": int(gpu),
    }


#: Sites of the L^3 box per second that the fcc observables (S(k) by FFT, bond counts)
#: get through on one core (measured: 1.7e-7 s per site at L = 64).
FCC_MEASURE_SITES_PER_SECOND = 5e6
#: Scratch bytes per site of the L^3 box while S(k) is measured (index and wavevector
#: grids, the complex FFT, the shell indices).
FCC_MEASURE_BYTES_PER_SITE = 160


def _fcc_resources(
    job: Mapping[str, Any],
    attempt: int,
    attempts_per_second: float,
    gpu_attempts_per_second: float,
    safety: float,
    min_runtime: int,
    base_mem_mb: int,
) -> dict[str, int]:
    """:func:`job_resources` of an fcc job (see there)."""
    L, samples, t_max = int(job["L"]), int(job["samples"]), int(job["t_max"])
    gpu = job.get("backend") == "gpu"
    n_times = n_times_estimate(t_max, int(job.get("points_per_decade", 10)), 0)
    rate = gpu_attempts_per_second if gpu else attempts_per_second
    seconds = L**3 // 2 * t_max * samples / rate
    seconds += n_times * samples * L**3 / FCC_MEASURE_SITES_PER_SECOND
    runtime = max(int(min_runtime), math.ceil(safety * seconds / 60.0))
    state_bytes = samples * L * L * 8 * -(-L // 128)
    result_bytes = samples * (8 * n_times * (L // 2 + 5) + min(L, 256) ** 2)
    mem_mb = (
        int(base_mem_mb)
        + math.ceil(3 * (state_bytes + result_bytes) / 2**20)
        + math.ceil(FCC_MEASURE_BYTES_PER_SITE * L**3 / 2**20)
    )
    scale = 2 ** max(int(attempt) - 1, 0)
    return {"runtime": runtime * scale, "mem_mb": mem_mb * scale, "gpu": int(gpu)}


@lru_cache(maxsize=4096)
def _yaml_scalar(value: Any) -> str:
    """One scalar as PyYAML writes it (cached: a campaign has few distinct floats)."""
    return yaml.safe_dump(value, default_flow_style=True).removesuffix("\n...\n").strip()


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return _yaml_scalar(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a double-quoted JSON string is a YAML string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    raise TypeError(f"cannot render {value!r} in a job config")


def job_config_yaml(job: Mapping[str, Any]) -> str:
    """A run config as YAML text, keys in :data:`JOB_KEYS` order (what the job file holds).

    Written line by line rather than by ``yaml.safe_dump``, which is 100x slower: a
    campaign of 10,000 jobs renders every job's text while Snakemake builds the DAG.
    """
    return "".join(f"{key}: {_yaml_value(value)}\n" for key, value in job.items())


def write_job_config(path: str | os.PathLike[str], job: Mapping[str, Any]) -> None:
    """Write one run config as YAML (see :func:`job_config_yaml`), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(job_config_yaml(job), encoding="utf-8")
    os.replace(tmp, path)

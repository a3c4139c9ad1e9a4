"""Campaign files -> parameter points -> jobs -> run configs (pure Python, no Snakemake).

A campaign (``config/<campaign>.yaml``) names one model and lists grid entries of its
keys; every entry expands to the Cartesian product of its lists into parameter *points*,
each with its model's canonical name (``kpz_d2_L256_p1_q0_sequential_cpu``).  A point's
samples are split into *blocks* of ``samples_per_job`` samples (the last block holds the
remainder); one block is one job, i.e. one run config and one ``simcore run``.

Nothing here knows a model: the keys, their checks and the point names come from the
model's spec (:mod:`simcore.models.spec`), found in the registry.  Every point is
checked by the engine's own run-config validation, so a campaign is valid exactly when
its jobs are.

Incrementality: a job's run config depends only on its own point's settings, its block
index and the campaign seed and name (:func:`simcore.seeding.job_seed`), so adding
samples (new blocks) or points leaves every existing job's config, and so its output,
unchanged.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simcore.campaign.figure_options import check_options, option_text
from simcore.campaign.resources import estimate, resource_parameters
from simcore.campaign.schema import SCHEMA_PATH, CampaignError, load_schema, validate_config
from simcore.checks import ConfigError, ConfigFileError, check_wall_seconds, closest
from simcore.config import (
    DuplicateKeyError,
    load_yaml,
    number_from_text,
    read_yaml_mapping,
    validate_run_config,
)
from simcore.models import registry
from simcore.models.registry import RegistryError
from simcore.models.spec import Key, ModelSpec, PaperFigure
from simcore.seeding import job_seed

#: Characters allowed in point and campaign names (also the Snakemake wildcard constraint).
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"
#: Settings of every point that are not model keys; a point entry may override them.
ENTRY_SETTINGS = ("backend", "t_max", "points_per_decade", "samples", "samples_per_job")
#: Point settings ``select:`` may name besides the model's keys.
SELECT_SETTINGS = ("backend", "t_max", "samples")


def n_blocks(samples: int, samples_per_job: int) -> int:
    """Number of jobs of a point: ``ceil(samples / samples_per_job)``."""
    return -(-int(samples) // int(samples_per_job))


@dataclass(frozen=True)
class Point:
    """One parameter point: the settings every point has, and its model's (``settings``:
    the model's keys of its validated run config, in the spec's order)."""

    name: str
    model: str
    backend: str
    t_max: int
    points_per_decade: int
    samples: int
    samples_per_job: int
    settings: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """A setting by name (the common ones or the model's; ``None`` if absent)."""
        if key in ("name", "model", *ENTRY_SETTINGS):
            return getattr(self, key)
        return self.settings.get(key)

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
class CampaignFigure:
    """A comparison figure that a campaign draws: its file stem, the figure of the
    registry's table, its points (``None``: all; empty for a figure of benchmarks) and
    the keyword options of its draw function (``options:`` of the entry, checked)."""

    name: str
    figure: PaperFigure
    points: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def set_arguments(self) -> list[str]:
        """The options as arguments of ``python -m analysis.papers``: ``--set KEY=VALUE``
        each, in the entry's order (:func:`option_text`)."""
        args: list[str] = []
        for key, value in self.options.items():
            args += ["--set", f"{key}={option_text(value)}"]
        return args


@dataclass(frozen=True)
class Campaign:
    """A validated, expanded campaign: its model, name, master seed and ordered points."""

    name: str
    seed: int
    spec: ModelSpec
    points: tuple[Point, ...]
    #: The campaign's ``job_resources``, completed with the defaults and the model's rates.
    resources: Mapping[str, float]
    threads: int = 1
    stage_size: int = 100
    #: Seconds after the start of a command at which its simulate jobs stop (None: none).
    max_wall: float | None = None
    paper_figures: tuple[CampaignFigure, ...] = ()
    benchmarks: tuple[str, ...] = ()
    _index: dict[str, Point] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # name -> point, so per-job look-ups stay O(1) in campaigns of many points
        object.__setattr__(self, "_index", {pt.name: pt for pt in self.points})

    @property
    def model(self) -> str:
        """The name of the campaign's model."""
        return self.spec.name

    def paper_figure(self, name: str) -> CampaignFigure:
        """The comparison figure called ``name`` (``KeyError`` naming it if absent)."""
        for fig in self.paper_figures:
            if fig.name == name:
                return fig
        raise KeyError(f"campaign {self.name} has no paper figure {name!r}")

    @property
    def bench_kernels(self) -> list[str]:
        """The ``simcore bench`` kernels whose tables this campaign's figures draw."""
        kernels = [k for fig in self.paper_figures for k in fig.figure.bench]
        return list(dict.fromkeys(kernels))

    def bench_lines(self, kernel: str) -> list[str]:
        """The ``benchmarks`` lines of one kernel, without the kernel word; one empty line
        (the kernel's defaults) when a figure needs the kernel and no line names it."""
        lines = []
        for line in self.benchmarks:
            first, _, rest = line.strip().partition(" ")
            if first == kernel:
                lines.append(rest.strip())
        return lines or [""]

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
        """The run config of one job, keys exactly as ``simcore run`` expects: ``model``,
        the model's point keys, ``backend``, then samples, seed, t_max, the model's other
        keys (e.g. waiting times), points_per_decade, sample_offset and the names.

        It depends only on this point's settings, the block index and the campaign
        name and seed, so it is stable when samples or points are added elsewhere.
        """
        pt = self.point(point)
        block = int(block)
        keys = self.spec.keys
        settings = {k: _job_value(v) for k, v in pt.settings.items()}
        cfg: dict[str, Any] = {"model": pt.model}
        cfg.update((k, v) for k, v in settings.items() if keys[k].point)
        cfg.update(
            backend=pt.backend,
            samples=pt.block_samples(block),
            seed=job_seed(self.seed, self.name, pt.name, block),
            t_max=pt.t_max,
        )
        cfg.update((k, v) for k, v in settings.items() if not keys[k].point)
        cfg.update(
            points_per_decade=pt.points_per_decade,
            sample_offset=block * pt.samples_per_job,
            campaign=self.name,
            point=pt.name,
            block=block,
        )
        return cfg

    def summary(self, points: list[str] | None = None) -> str:
        """What a campaign (or its ``points``) runs, for report captions: points,
        samples, engine version."""
        from simcore.io.provenance import git_commit, simcore_version

        chosen = self.points if points is None else [self.point(n) for n in points]
        parts = []
        for pt in chosen:
            unit = self.spec.time_units(pt.settings)[0]
            t_max = f"{pt.t_max} {unit}" if unit else str(pt.t_max)
            parts.append(f"{pt.name} ({pt.samples} samples to t = {t_max})")
        return (
            f"{len(chosen)} parameter point(s): "
            + "; ".join(parts)
            + f". simcore {simcore_version()}, git {git_commit() or 'n/a'}."
        )

    def job_threads(self, point: str) -> int:
        """CPU threads of a job of ``point``: the campaign's ``threads`` for a job whose
        schedule runs in parallel on the CPU (the spec says which, from the point's
        settings, its backend and the ``samples`` of its largest job: a GPU job's host
        work may be parallel too), else 1."""
        pt = self.point(point)
        job = {**pt.settings, "backend": pt.backend, "samples": pt.block_samples(0)}
        return self.threads if self.spec.uses_threads(job) else 1

    @property
    def figures(self) -> dict[str, str]:
        """The campaign figures (file stem -> what it shows) that the figures rule writes."""
        return self.spec.campaign_figures([pt.settings for pt in self.points])

    @property
    def figure_names(self) -> list[str]:
        """The file stems of :attr:`figures`."""
        return list(self.figures)

    def job_resources(self, point: str, block: int, attempt: int = 1) -> dict[str, int]:
        """Snakemake resources (``runtime`` in minutes, ``mem_mb``, ``gpu``) of one job;
        the runtime and memory double with every retry ``attempt``."""
        return estimate(
            self.spec, self.job_config(point, block), attempt, self.resources, self.max_wall
        )


def _job_value(value: Any) -> Any:
    """A point setting as a run-config value (tuples become lists, as YAML writes them)."""
    return list(value) if isinstance(value, tuple) else value


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _alternatives(key: Key, value: Any) -> list[Any]:
    """The values of one key that an entry lists (one point each)."""
    if key.kind == "list":
        return [value]
    if key.kind == "pair":  # one pair, or a list of pairs
        return (
            list(value)
            if value and isinstance(value, list) and isinstance(value[0], list)
            else [value]
        )
    return _as_list(value)


def _applying(spec: ModelSpec, settings: Mapping[str, Any], backend: str) -> dict[str, Any]:
    """The settings without the keys that do not apply to them (in the spec's order); a
    key's rule sees the settings before it and the backend (a default may depend on it)."""
    out: dict[str, Any] = {}
    for name in spec.keys:
        if name in settings and spec.applies(name, {**out, "backend": backend}):
            out[name] = settings[name]
    return out


def _probe(where: str, run: dict[str, Any], block_key: str) -> dict[str, Any]:
    """Validate a point's run config with the engine's own checks, naming the entry;
    ``block_key`` is the entry key that set the probe's ``samples``."""
    try:
        return validate_run_config(run)
    except ConfigError as exc:
        key = block_key if exc.key in ("samples", "sample_offset") else exc.key
        raise CampaignError(f"{where}.{key}: {exc.value!r}: {exc.reason}") from None


def expand_entry(
    spec: ModelSpec, cfg: Mapping[str, Any], idx: int, entry: Mapping[str, Any]
) -> list[Point]:
    """The points of one grid entry: the product of its listed values (and of the
    campaign-wide defaults of the model's keys), without the keys that do not apply."""
    where = f"points[{idx}]"
    for key, value in entry.items():
        if key not in spec.keys and key not in ENTRY_SETTINGS:
            known = [*spec.keys, *ENTRY_SETTINGS]
            raise CampaignError(
                f"{where}.{key}: unknown key of model {spec.name}{closest(key, known)} "
                f"(value: {value!r}; keys: {', '.join(known)})"
            )

    def setting(key: str) -> Any:
        if key in entry:
            return entry[key]
        if key in cfg:
            return cfg[key]
        raise CampaignError(f"{where}.{key}: missing (set it here or campaign-wide)")

    common = {
        "t_max": setting("t_max"),
        "points_per_decade": setting("points_per_decade"),
        "samples": setting("samples"),
        "samples_per_job": setting("samples_per_job"),
    }
    for key, value in common.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CampaignError(f"{where}.{key}: {value!r}: must be an integer >= 1")
    given = {k: entry[k] if k in entry else cfg[k] for k in spec.keys if k in entry or k in cfg}
    names = [*given, "backend"]
    choices = [_alternatives(spec.keys[k], v) for k, v in given.items()]
    choices.append(_as_list(setting("backend")))
    samples, per_job = common["samples"], common["samples_per_job"]
    last = samples - (n_blocks(samples, per_job) - 1) * per_job
    probes = [(min(samples, per_job), 0, "samples_per_job" if samples > per_job else "samples")]
    if 0 < last < per_job and samples > per_job:
        probes.append((last, samples - last, "samples"))
    points, seen, used = [], set(), set()
    for combo in itertools.product(*choices):
        chosen = dict(zip(names, combo, strict=True))
        backend = chosen.pop("backend")
        settings = _applying(spec, chosen, backend)
        signature = json.dumps([settings, backend], sort_keys=True, default=str)
        if signature in seen:  # a key that does not apply here made a copy
            continue
        seen.add(signature)
        used.update(settings)
        for block_samples, offset, block_key in probes:
            run = _probe(
                where,
                {
                    "model": spec.name, **settings, "backend": backend, "samples": block_samples,
                    "sample_offset": offset, "seed": 0, "t_max": common["t_max"],
                    "points_per_decade": common["points_per_decade"],
                },
                block_key,
            )  # fmt: skip
        points.append(
            Point(
                name=spec.point_name(run),
                model=spec.name,
                backend=str(backend),
                settings={k: run[k] for k in spec.keys if k in run},
                **common,
            )
        )
    for key in entry:
        if key in spec.keys and key not in used:
            rule = spec.keys[key]
            raise CampaignError(
                f"{where}.{key}: {entry[key]!r}: is a key of {rule.applies_to}, which no point "
                "of this entry is"
            )
    return points


def _check_campaign_keys(spec: ModelSpec, cfg: Mapping[str, Any]) -> None:
    """Campaign-wide keys beyond the schema's must be the model's (defaults of entries)."""
    schema_keys = set(load_schema()["properties"])
    for key, value in cfg.items():
        if key not in schema_keys and key not in spec.keys:
            known = sorted(schema_keys | set(spec.keys))
            raise CampaignError(
                f"{key}: unknown key{closest(key, known)} (value: {value!r}; model "
                f"{spec.name} keys: {', '.join(spec.keys)})"
            )


#: Words of a key's type (:attr:`simcore.models.spec.Key.type`) that say it holds numbers:
#: ``int``, ``float``, ``list[int]``, ``[int, int]``, ``int|auto``, the default ``number``.
_NUMBER_TYPE = re.compile(r"\b(?:int|float|number)\b")


def _as_number(value: Any) -> Any:
    """``value`` with each string that reads as a number (:func:`simcore.config.number_from_text`)
    replaced by that number, in lists (and lists of pairs) too; anything else unchanged."""
    if isinstance(value, str):
        number = number_from_text(value)
        return value if number is None else number
    if isinstance(value, list):
        return [_as_number(v) for v in value]
    return value


def _resolve(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """A subschema with its local ``$ref`` (``#/$defs/name``) merged in."""
    ref = sub.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return sub
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    return {**_resolve(target, root), **{k: v for k, v in sub.items() if k != "$ref"}}


def _wants_number(sub: Any, root: Mapping[str, Any]) -> bool:
    """Whether the subschema ``sub`` takes a number (type integer or number)."""
    if not isinstance(sub, Mapping):
        return False
    kind = _resolve(sub, root).get("type")
    return bool({"integer", "number"} & set(kind if isinstance(kind, list) else [kind]))


def _schema_numbers(value: Any, sub: Any, root: Mapping[str, Any]) -> Any:
    """``value`` with numbers read from strings wherever the subschema ``sub`` wants a
    number, through its objects' properties (and additionalProperties) and array items."""
    if not isinstance(sub, Mapping):
        return value
    sub = _resolve(sub, root)
    if _wants_number(sub, root):
        return _as_number(value)
    if isinstance(value, Mapping):
        props, extra = sub.get("properties", {}), sub.get("additionalProperties")
        return {k: _schema_numbers(v, props.get(k, extra), root) for k, v in value.items()}
    if isinstance(value, list):
        return [_schema_numbers(v, sub.get("items"), root) for v in value]
    return value


def numbers_from_text(
    raw: Mapping[str, Any], spec: ModelSpec | None, schema: Mapping[str, Any]
) -> dict[str, Any]:
    """A campaign with the numbers that a YAML 1.1 reader left as strings read as numbers,
    wherever a number is expected: a campaign-wide key the ``schema`` types as a number
    (``job_resources`` rates, ``max_wall``, ``samples``, ...), a model key whose
    :attr:`~simcore.models.spec.Key.type` is numeric (kpz's ``p``, ``waiting_times``), in
    the campaign, in its ``points`` entries and in ``paper_figures`` selections, and every
    value of a ``paper_figures`` entry's ``options`` that reads as a number.

    Why: Snakemake reads a campaign file itself, with PyYAML (YAML 1.1), before the
    Snakefile runs, so ``p: 1e-1`` or ``updates_per_second: 1e7`` reach the workflow as
    the strings ``'1e-1'`` and ``'1e7'``; YAML 1.2 and JSON read numbers there, and users
    write them.  The dict Snakemake hands over is the one to fix rather than the files to
    re-read: it is Snakemake's merge of every ``--configfile`` and the ``--config``
    overrides (whose nested values Snakemake's parser leaves as strings too), which a
    re-read would have to redo and could get wrong.  Converting only where the schema or
    the model's key table wants a number leaves every string key a string (a campaign
    named ``1e5``, a benchmark line), and a string that reads as no number stays as it is,
    for the checks to refuse by its value.  ``simcore.config.load_yaml`` reads the same
    numbers from a file (``simcore status --config``), so both paths see one campaign.
    """
    props = schema.get("properties", {})
    keys = spec.keys if spec is not None else {}
    model_numbers = {name for name, key in keys.items() if _NUMBER_TYPE.search(str(key.type))}
    entry_numbers = model_numbers | {
        k for k in ENTRY_SETTINGS if _wants_number(props.get(k), schema)
    }
    select_numbers = model_numbers | {
        k for k in SELECT_SETTINGS if _wants_number(props.get(k), schema)
    }

    def fix(mapping: Mapping[str, Any], numeric: set[str]) -> dict[str, Any]:
        return {k: _as_number(v) if k in numeric else v for k, v in mapping.items()}

    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in props:
            out[key] = _schema_numbers(value, props[key], schema)
        else:
            out[key] = _as_number(value) if key in model_numbers else value
    if isinstance(out.get("points"), list):
        out["points"] = [
            fix(e, entry_numbers) if isinstance(e, Mapping) else e for e in out["points"]
        ]
    if isinstance(out.get("paper_figures"), list):
        out["paper_figures"] = [
            _figure_numbers(e, lambda m: fix(m, select_numbers)) for e in out["paper_figures"]
        ]
    return out


def _figure_numbers(entry: Any, fix: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Any:
    """A ``paper_figures`` entry with numbers read in its ``select`` (a mapping, or a list
    of mappings: ``fix`` reads the model's numeric keys of one) and in its ``options``
    (every value that reads as a number: the draw function's types are not known here,
    and a string option that reads as a number is meant as one)."""
    if not isinstance(entry, Mapping):
        return entry
    out = dict(entry)
    select = out.get("select")
    if isinstance(select, Mapping):
        out["select"] = fix(select)
    elif isinstance(select, list):
        out["select"] = [fix(m) if isinstance(m, Mapping) else m for m in select]
    if isinstance(out.get("options"), Mapping):
        out["options"] = {k: _as_number(v) for k, v in out["options"].items()}
    return out


def check_campaign_files(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Refuse a key given twice in any of the campaign files ``paths``: a
    :class:`CampaignError` naming the file, the key and its lines.

    Snakemake reads ``--configfile`` itself before the Snakefile runs, and its YAML
    reader keeps the last of two equal keys without a word (``L: 64`` then ``L: 128``
    runs L = 128), so the workflow checks its files here (``workflow.configfiles``, as the
    user named them).  Only duplicate keys are reported: the file was read by Snakemake
    already, and what else a second reading might find (a JSON file, a template) is its
    reader's business.  ``simcore status --config`` finds the same through
    :func:`simcore.config.read_yaml_mapping`.
    """
    for path in paths:
        try:
            load_yaml(Path(path).read_text(encoding="utf-8"))
        except DuplicateKeyError as exc:
            raise CampaignError(str(exc), os.fspath(path)) from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue


def load_campaign(
    source: Mapping[str, Any] | str | os.PathLike[str],
    schema_path: str | os.PathLike[str] | None = None,
) -> Campaign:
    """Validate and expand a campaign (a dict, or the path of a campaign YAML file).

    Raises :class:`CampaignError` (a ``ValueError``; one line naming key and value) for an
    invalid campaign: the schema, an unknown model, keys the model lacks, every point
    checked as a run config, unique point names, the paper figures and benchmark lines.
    """
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        try:
            raw = read_yaml_mapping(source, "a campaign")
        except ConfigFileError as exc:
            raise CampaignError(exc.reason, name) from None
        try:
            return _load(raw, schema_path)
        except CampaignError as exc:
            raise exc.in_file(name) from None
    return _load(source, schema_path)


def _load(raw: Mapping[str, Any], schema_path: str | os.PathLike[str] | None) -> Campaign:
    """:func:`load_campaign` of a campaign already read."""
    if not isinstance(raw, Mapping):
        raise CampaignError(f"{raw!r}: must be a mapping of keys to values")
    try:  # its keys' types, for the numbers; an unknown model is refused below, in order
        model = registry.get(raw["model"]) if isinstance(raw.get("model"), str) else None
    except (ConfigError, RegistryError):
        model = None
    raw = numbers_from_text(raw, model, load_schema(str(schema_path or SCHEMA_PATH)))
    cfg = validate_config(raw, schema_path)
    try:
        spec = registry.get(cfg["model"])
    except ConfigError as exc:
        raise CampaignError(f"model: {exc.value!r}: {exc.reason}") from None
    _check_campaign_keys(spec, cfg)
    if cfg.get("max_wall") is not None:  # the schema's minimum lets NaN and infinity pass
        try:
            check_wall_seconds("max_wall", cfg["max_wall"])
        except ConfigError as exc:
            raise CampaignError(f"max_wall: {exc.value!r}: {exc.reason}") from None
    points: list[Point] = []
    seen: dict[str, int] = {}
    for idx, entry in enumerate(cfg["points"]):
        for pt in expand_entry(spec, cfg, idx, entry):
            if pt.name in seen:
                raise CampaignError(
                    f"points[{idx}]: duplicate point {pt.name} "
                    f"(already defined by points[{seen[pt.name]}])"
                )
            seen[pt.name] = idx
            points.append(pt)
    for pt in points:
        if not re.fullmatch(NAME_PATTERN, pt.name):
            raise CampaignError(f"point name {pt.name!r} has characters a file name cannot hold")
    figures = _paper_figures(spec, cfg["paper_figures"], points)
    return Campaign(
        name=cfg["campaign"],
        seed=int(cfg["seed"]),
        spec=spec,
        points=tuple(points),
        resources=resource_parameters(spec, cfg["job_resources"]),
        threads=int(cfg["threads"]),
        stage_size=int(cfg["aggregate_stage_size"]),
        max_wall=None if cfg.get("max_wall") is None else float(cfg["max_wall"]),
        paper_figures=figures,
        benchmarks=_benchmarks(cfg["benchmarks"]),
    )


def _selected(value: Any, wanted: Any) -> bool:
    """Whether a point setting ``value`` is among the ``wanted`` value(s) of a select."""
    if isinstance(value, list | tuple):  # tc, domain: one pair, or a list of pairs
        pairs = wanted if wanted and isinstance(wanted[0], list) else [wanted]
        return any(list(value) == list(w) for w in pairs)
    return any(value == w for w in _as_list(wanted))


def _paper_figures(
    spec: ModelSpec, entries: list[Any], points: list[Point]
) -> tuple[CampaignFigure, ...]:
    """The campaign's comparison figures, each with its selected points (see the schema)."""
    if not entries:  # the table loads every model: only a campaign with figures asks
        return ()
    table = registry.paper_figures()
    figures: list[CampaignFigure] = []
    for idx, entry in enumerate(entries):
        where = f"paper_figures[{idx}]"
        entry = {"figure": entry} if isinstance(entry, str) else entry
        kind = entry["figure"]
        if kind not in table:
            raise CampaignError(
                f"{where}.figure: {kind!r}: not a paper figure of the registered models"
                f"{closest(kind, table)} (known: {', '.join(table)})"
            )
        figure = table[kind][1]
        name = str(entry.get("name", kind))
        select = entry.get("select")
        chosen: tuple[str, ...] | None = () if figure.bench else None
        if select is not None:
            if figure.bench:
                raise CampaignError(
                    f"{where}.select: {kind} is drawn from benchmarks "
                    f"({', '.join(figure.bench)}), not points"
                )
            chosen = _select_points(spec, f"{where}.select", select, points)
        options = check_options(where, kind, figure, entry.get("options"))
        if name in {f.name for f in figures}:
            raise CampaignError(f"{where}.name: {name!r} is used twice")
        figures.append(CampaignFigure(name=name, figure=figure, points=chosen, options=options))
    return tuple(figures)


def _select_points(
    spec: ModelSpec, where: str, select: Any, points: list[Point]
) -> tuple[str, ...]:
    """The names of the points a ``select`` draws, in campaign order: those matching the
    mapping (every key one of its values), or any mapping of a list of them; each mapping
    must match a point (else it is a typo)."""
    alternatives = select if isinstance(select, list) else [select]
    allowed = (*spec.keys, *SELECT_SETTINGS)
    matched: set[str] = set()
    for i, wanted in enumerate(alternatives):
        at = f"{where}[{i}]" if isinstance(select, list) else where
        for key in wanted:
            if key not in allowed:
                raise CampaignError(
                    f"{at}.{key}: unknown key of model {spec.name}{closest(key, allowed)}"
                )
        hits = {
            pt.name
            for pt in points
            if all(_selected(pt.get(key), want) for key, want in wanted.items())
        }
        if not hits:
            raise CampaignError(f"{at}: matches no point (value: {wanted!r})")
        matched |= hits
    return tuple(pt.name for pt in points if pt.name in matched)


def _benchmarks(lines: list[str]) -> tuple[str, ...]:
    """The ``benchmarks`` lines, each of which must start with a known kernel."""
    if not lines:
        return ()
    kernels = registry.bench_kernel_names()
    for idx, line in enumerate(lines):
        first = line.strip().partition(" ")[0]
        if first not in kernels:
            raise CampaignError(
                f"benchmarks[{idx}]: {line!r}: must start with a simcore bench kernel"
                f"{closest(first, kernels)} (known: {', '.join(kernels)})"
            )
    return tuple(line.strip() for line in lines)

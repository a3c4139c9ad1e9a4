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

The parts live beside this module: a grid entry's expansion into points and blocks
(:mod:`.points`), the numbers that a YAML 1.1 reader left as strings (:mod:`.numbers`),
the comparison figures and benchmark lines (:mod:`.paper_figures`); this module loads a
campaign from them (:func:`load_campaign`) and plans its jobs (:class:`Campaign`).

Incrementality: a job's run config depends only on its own point's settings, its block
index and the campaign seed and name (:func:`simcore.seeding.job_seed`), so adding
samples (new blocks) or points leaves every existing job's config, and so its output,
unchanged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simcore.campaign.numbers import numbers_from_text
from simcore.campaign.paper_figures import CampaignFigure, read_benchmarks, read_paper_figures
from simcore.campaign.points import (
    ENTRY_SETTINGS,
    NAME_PATTERN,
    SELECT_SETTINGS,
    Point,
    expand_entry,
    n_blocks,
)
from simcore.campaign.resources import estimate, resource_parameters
from simcore.campaign.schema import SCHEMA_PATH, CampaignError, load_schema, validate_config
from simcore.checks import ConfigError, ConfigFileError, check_wall_seconds, closest
from simcore.config import DuplicateKeyError, load_yaml, read_yaml_mapping
from simcore.models import registry
from simcore.models.registry import RegistryError
from simcore.models.spec import ModelSpec
from simcore.seeding import job_seed

__all__ = [
    "ENTRY_SETTINGS",
    "NAME_PATTERN",
    "SELECT_SETTINGS",
    "Campaign",
    "CampaignFigure",
    "Point",
    "check_campaign_files",
    "expand_entry",
    "load_campaign",
    "n_blocks",
    "numbers_from_text",
]


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
    figures = read_paper_figures(spec, cfg["paper_figures"], points)
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
        benchmarks=read_benchmarks(cfg["benchmarks"]),
    )

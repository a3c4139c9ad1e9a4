"""The model interface: what a model package gives the engine, and nothing more.

A model is a package (``simcore/models/<m>/`` or any installed package) that defines one
:class:`ModelSpec` object and registers it under the ``simcore.models`` entry-point group
(:mod:`simcore.models.registry`).  Everything outside the package -- run-config
validation, campaigns, the runner, the CLI, the Snakemake rules, analysis dispatch --
asks the spec; none of it names a model.

The spec says:

* which run-config keys the model has (:class:`Key`: description, default, type, choices,
  whether it names a parameter point, and the settings it applies to), and the checks
  the table cannot express (:meth:`ModelSpec.validate`);
* where it runs (:attr:`ModelSpec.backends`: a model that says nothing runs on the CPU
  only; validation refuses another backend before any device is looked at);
* how a point is named (:meth:`ModelSpec.point_name`), whether a CPU job uses the
  campaign's ``threads``, and how much work and memory a job needs (:meth:`ModelSpec.work`);
* the job of a run config (:meth:`ModelSpec.simulation`, a :class:`Simulation`): the job
  class of each backend (:attr:`ModelSpec.jobs`, imported only when a job is built), given
  the spec itself when it is built, so that a job never looks its model up by name;
* the analysis module (``analyze`` and ``draw_figures``), the
  campaign figures, the comparison figures of the papers (:class:`PaperFigure`) and the
  ``simcore bench`` kernels (:class:`BenchKernel`).

A campaign entry expands into points generically from the key table (a list gives one
point per value; keys that do not apply to a combination are dropped), see
:mod:`simcore.campaign.plan`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import import_module
from typing import Any, Protocol, runtime_checkable

import xarray as xr


class _Required:
    """The default of a key that must be given."""

    def __repr__(self) -> str:
        return "required"


#: Default of a :class:`Key` that has none: the key must be given.
REQUIRED: Any = _Required()

#: The backends a run config may name (its ``backend`` key), of which a spec declares the
#: ones its model runs on (:attr:`ModelSpec.backends`).
BACKENDS: tuple[str, ...] = ("cpu", "gpu")


@dataclass(frozen=True)
class Key:
    """One run-config key of a model.

    ``default``: :data:`REQUIRED`, a value, or ``None`` where :meth:`ModelSpec.validate`
    computes it from other keys.  ``point``: the key names a parameter point (runs that
    differ in it are never averaged, kelling2017 sec. 4.2); other keys (waiting times)
    are per-point settings that do not name it.  ``choices``: the allowed values, checked
    before :meth:`ModelSpec.validate` runs.  ``applies``: the key exists only where this
    predicate of the keys declared before it holds (``applies_to`` says where, for
    messages): given elsewhere it is refused, and its default is left out, so a run
    config names only what its run uses.  ``kind``: ``scalar`` (a campaign entry may list
    several values, one point each), ``pair`` (a list of two integers; an entry may list
    several pairs) or ``list`` (the value itself is a list, never expanded).
    """

    description: str
    default: Any = REQUIRED
    type: str = "number"
    point: bool = True
    choices: tuple[Any, ...] = ()
    applies: Callable[[Mapping[str, Any]], bool] | None = None
    applies_to: str = ""
    kind: str = "scalar"

    @property
    def required(self) -> bool:
        """Whether the key has no default."""
        return self.default is REQUIRED


@runtime_checkable
class Simulation(Protocol):
    """One job of a model: what :func:`simcore.runner.run_job` relies on.

    The state is a dict of plain arrays and numbers (device arrays allowed between
    :meth:`from_host` and :meth:`to_host`), so the runner checkpoints it to ``.npz`` and a
    resumed job continues bit for bit.

    A job is built by its spec (:meth:`ModelSpec.simulation`), which passes itself: the
    default builds ``JobClass(cfg, spec=spec)``, and the job keeps it (``self.spec``) for
    its units and names rather than asking the registry for its model.
    """

    samples: int

    def initial_state(self) -> dict[str, Any]:
        """The state before the first update."""

    def step(self, state: dict[str, Any]) -> None:
        """Advance toward the next sampling time and record the observables once there, in
        place.  A step may end between sampling times (the state keeps the time reached as
        ``t_now``, see :func:`simcore.sampling.time_reached`), so that
        a wall limit or Ctrl-C is answered within seconds."""

    def done(self, state: dict[str, Any]) -> bool:
        """Whether the job has reached its last sampling time."""

    def fraction_done(self, state: dict[str, Any]) -> float:
        """Fraction of the job's work done, for progress lines."""

    def describe(self, state: dict[str, Any]) -> str:
        """Where the job stands, in a few words, for progress lines."""

    def to_host(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state as host arrays and numbers (a checkpoint)."""

    def from_host(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state of a checkpoint, ready to step (arrays back on the device)."""

    def to_dataset(self, state: dict[str, Any]) -> xr.Dataset:
        """The results with CF variable attributes (the runner adds the global ones)."""

    def device_name(self) -> str | None:
        """The accelerator's name for provenance (None: the CPU)."""


@dataclass(frozen=True)
class Work:
    """What one job costs (:meth:`ModelSpec.work`): seconds at the campaign's rates, the
    state and results it holds in host memory, scratch memory of its measurements, and
    (a GPU job) the GPU memory its state and measurements take.

    The memory figures are what the job allocates, not a margin over it: ``simcore run``
    refuses a job whose host bytes (``state_bytes + result_bytes + scratch_bytes``) or
    device bytes exceed the free memory before it allocates anything, and the campaign's
    ``mem_mb`` request adds its own margin."""

    seconds: float
    state_bytes: float
    result_bytes: float
    scratch_bytes: float = 0.0
    device_bytes: float = 0.0

    @property
    def host_bytes(self) -> float:
        """Host memory of the job: state, results and scratch."""
        return self.state_bytes + self.result_bytes + self.scratch_bytes


@dataclass(frozen=True)
class PaperFigure:
    """A comparison figure of a paper that a campaign may draw (``paper_figures:``).

    ``draw`` is ``"module:function"``; the function takes the input paths (the analysis
    files of the points it selects, or one table per kernel of ``bench``, in that order)
    and keyword options, and returns ``(matplotlib Figure, provenance dict)``.  With
    ``bench`` empty the figure is drawn from points.
    """

    name: str
    paper: str
    title: str
    draw: str
    bench: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchKernel:
    """A ``simcore bench <name>`` subcommand: its options and its run.

    ``run(args)`` returns the markdown report (and appends the rows to ``args.csv`` where
    the kernel writes a table); a bad option raises :class:`simcore.checks.ConfigError`.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], str]


#: A job class (or any factory) of a backend: called as ``job(cfg, spec=spec)`` with a
#: validated run config and the spec that builds the job.
JobFactory = Callable[..., Simulation]


def _import_object(target: str | Callable[..., Any]) -> Any:
    """The object that ``"module:attribute"`` names, importing its module (a callable
    given itself is returned as it is)."""
    if not isinstance(target, str):
        return target
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"{target!r} is not 'module:attribute'")
    obj: Any = import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


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


class ModelSpec:
    """Base class of a model's spec; a model overrides what differs (see the module doc).

    Class attributes: ``name`` (the ``model:`` value), ``title`` (one line), ``backends``
    (the values of ``backend`` it runs on, of :data:`BACKENDS`; default the CPU only, so
    a plug-in that has no GPU job need say nothing), ``keys`` (run-config keys in the
    order they are checked and written), ``time_unit`` and
    ``time_name`` (the model's unit of time, of ``t_max`` and of the run files' ``t``, as
    written on an axis, and the long name of ``t``; a model whose unit depends on its
    settings overrides :meth:`time_units`), ``resource_rates`` (the campaign's
    ``job_resources`` keys of this model: name -> (default, description)), ``analysis``
    (the module with ``analyze(ds, n_groups)`` and ``draw_figures(analyses, names=None)``,
    which draws the campaign figures, or only those in ``names``, as ``{name: (Figure,
    provenance)}``: the one figure protocol),
    ``paper_figures`` (the papers' comparison figures it offers, :class:`PaperFigure`),
    ``bench_kernels`` (kernel name -> ``"module:attribute"`` of a :class:`BenchKernel`,
    imported only when the bench CLI is built), ``jobs`` (backend -> the job class of that
    backend, ``"module:Class"`` or the class itself, see :meth:`simulation`) and
    ``example`` (a small run config).
    """

    name: str = ""
    title: str = ""
    #: The backends this model runs on: ``simcore.config`` refuses any other value of
    #: ``backend`` (one line naming these), ``simcore models`` lists them.  The default of
    #: ``backend`` stays ``cpu``: a run config of a model without it names its backend.
    backends: tuple[str, ...] = ("cpu",)
    keys: Mapping[str, Key] = {}
    time_unit: str = "MCS"
    time_name: str = "time in Monte Carlo steps per site (MCS)"
    resource_rates: Mapping[str, tuple[float, str]] = {}
    analysis: str = ""
    paper_figures: tuple[PaperFigure, ...] = ()
    bench_kernels: Mapping[str, str] = {}
    #: The job of each backend of :attr:`backends`: backend -> ``"module:Class"`` (imported
    #: when a job of that backend is built: a GPU job's module may import CUDA libraries)
    #: or a class or factory; :meth:`simulation` calls it as ``job(cfg, spec=self)``.  The
    #: registry refuses a spec that leaves a declared backend without a job, unless it
    #: builds its jobs itself (overrides :meth:`job_class` or :meth:`simulation`).
    jobs: Mapping[str, str | JobFactory] = {}
    #: A small run config of the model (its keys, ``samples`` and ``t_max``) that runs on
    #: the CPU in about a second: the documentation's example and the contract tests'.
    example: Mapping[str, Any] = {}

    @property
    def point_keys(self) -> tuple[str, ...]:
        """The keys that name a point: ``model``, the model's point keys, ``backend``."""
        return ("model", *(k for k, key in self.keys.items() if key.point), "backend")

    def validate(self, cfg: dict[str, Any]) -> None:
        """Check (and normalise, in place) a run config whose keys are complete: the
        table's defaults are filled, choices checked, keys that do not apply removed.
        Raises :class:`simcore.checks.ConfigError`."""

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """The canonical name of the point of a validated run config (it enters the job
        seeds: it must never change for the same settings)."""
        raise NotImplementedError

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """Whether a job of these settings runs on the campaign's ``threads`` cores
        (``cfg``: the point's model settings, its ``backend`` and the ``samples`` of its
        largest job): a CPU job whose schedule is parallel, a GPU job only where its host
        work is."""
        return False

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """The cost of one job (a validated run config) at the campaign's ``rates``."""
        raise NotImplementedError

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """The campaign figures of these points' settings: file stem -> what it shows, in
        one or two sentences (the figure's caption in ``snakemake --report``)."""
        return {}

    def job_class(self, cfg: Mapping[str, Any]) -> JobFactory:
        """The job class (or factory) of a validated run config: the one :attr:`jobs`
        names for its ``backend``, imported now.  A model whose choice depends on more
        than the backend overrides this."""
        backend = cfg["backend"]
        if backend not in self.jobs:
            raise NotImplementedError(f"model {self.name} has no job for backend {backend!r}")
        return _import_object(self.jobs[backend])

    def simulation(self, cfg: dict[str, Any]) -> Simulation:
        """The job of a validated run config (its backend one of :attr:`backends`, a GPU
        checked by the caller): :meth:`job_class` called with the config and this spec,
        which the job keeps.  A model that builds its jobs otherwise overrides this (and
        passes itself to the job likewise)."""
        return self.job_class(cfg)(cfg, spec=self)

    def time_units(self, cfg: Mapping[str, Any]) -> tuple[str, str]:
        """The model's unit of time for settings ``cfg`` and the long name of the time axis:
        the one place that knows them (the run files' ``t`` gets ``units: "1"`` and this
        unit as ``model_units``, :func:`simcore.io.dataset.time_attributes`)."""
        return self.time_unit, self.time_name

    def applies(self, key: str, cfg: Mapping[str, Any]) -> bool:
        """Whether ``key`` exists for settings ``cfg`` (see :attr:`Key.applies`)."""
        rule = self.keys[key].applies
        return rule is None or bool(rule(cfg))

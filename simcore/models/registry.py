"""The registry of models: specs found through the ``simcore.models`` entry-point group.

A package makes a model known to simcore with one line in its ``pyproject.toml``::

    [project.entry-points."simcore.models"]
    mymodel = "mypackage.spec:SPEC"

(simcore's own five models are registered the same way), after which ``simcore run``,
campaigns, ``simcore bench`` and the analysis find it by name, as xarray finds its
backends.  :func:`register` adds a spec in-process (tests, notebooks).  Entry points are
loaded on first use of their name, so one broken plug-in does not stop the others.  Two
distributions that register the same model name are a conflict the registry cannot
settle: the first on ``sys.path`` wins, as before, and a :class:`DuplicateModelWarning`
(once per process and name) names both and the one used.

:func:`distribution` says which installed distribution provides a model (the entry
point's), so that a run file can record the plug-in's name, version and commit
(:func:`simcore.io.provenance.model_provenance`); a model registered in-process has none.
"""

from __future__ import annotations

import warnings
from importlib import metadata

from simcore.checks import ConfigError, closest
from simcore.models.spec import BACKENDS, BenchKernel, ModelSpec, PaperFigure

#: The entry-point group under which packages register their model specs.
GROUP = "simcore.models"

#: Specs registered in-process with :func:`register` (they win over entry points).
_registered: dict[str, ModelSpec] = {}
#: Specs loaded from their entry points, by name (each loaded once).
_loaded: dict[str, ModelSpec] = {}
#: Model names whose duplicate entry points have been warned about in this process.
_warned: set[str] = set()


class RegistryError(RuntimeError):
    """A model's entry point is broken or two models claim the same name."""


class DuplicateModelWarning(UserWarning):
    """Two installed distributions register a model of the same name (the first on
    ``sys.path`` is used)."""


def _entry_points() -> dict[str, metadata.EntryPoint]:
    """Entry points of the group by name (the first distribution on sys.path wins; a
    name registered more than once is warned about, :func:`_warn_duplicate`)."""
    found: dict[str, metadata.EntryPoint] = {}
    ignored: dict[str, list[metadata.EntryPoint]] = {}
    for ep in metadata.entry_points(group=GROUP):
        if ep.name in found:
            ignored.setdefault(ep.name, []).append(ep)
        else:
            found[ep.name] = ep
    for name, others in ignored.items():
        _warn_duplicate(found[name], others)
    return found


def _origin(ep: metadata.EntryPoint) -> str:
    """An entry point as a warning names it: its distribution (name, version, where it
    is installed) and its value."""
    dist = ep.dist
    if dist is None:
        return f"an entry point {ep.value!r} of no known distribution"
    try:
        where = f"{dist.locate_file('')}: "
    except NotImplementedError:  # a distribution that is no files on a path
        where = ""
    return f"{dist.metadata['Name']} {dist.version} ({where}{ep.name} = {ep.value!r})"


def _warn_duplicate(used: metadata.EntryPoint, others: list[metadata.EntryPoint]) -> None:
    """Warn, once per process and name, that several distributions register the model
    ``used.name``, naming each and the one used (the first on ``sys.path``)."""
    if used.name in _warned:
        return
    _warned.add(used.name)
    ignored = "; ".join(_origin(ep) for ep in others)
    warnings.warn(
        f"model {used.name!r} is registered by more than one distribution (entry-point group "
        f"{GROUP!r}): {_origin(used)} is used, being first on sys.path; ignored: {ignored}. "
        "Uninstall one of them, or rename its model",
        DuplicateModelWarning,
        stacklevel=3,
    )


def names() -> tuple[str, ...]:
    """Names of every model known: registered in-process or by an entry point, sorted."""
    return tuple(sorted(set(_registered) | set(_entry_points())))


def _unknown(name: str) -> ConfigError:
    """The error of a model name that nothing registers."""
    known = names()
    if not known:
        return ConfigError(
            "model",
            name,
            f"no models are registered: install simcore (pip install .) "
            f"so that its '{GROUP}' entry points exist",
        )
    return ConfigError(
        "model", name, f"unknown model; known: {', '.join(known)}{closest(name, known)}"
    )


def get(name: str) -> ModelSpec:
    """The spec of model ``name``; :class:`ConfigError` (key ``model``) if none is known."""
    if name in _registered:
        return _registered[name]
    if name in _loaded:
        return _loaded[name]
    ep = _entry_points().get(str(name))
    if ep is None:
        raise _unknown(name)
    try:
        spec = ep.load()
    except Exception as exc:  # noqa: BLE001 - any failure of a plug-in's import
        raise RegistryError(
            f"model {name!r} (entry point {ep.value}) failed to load: {type(exc).__name__}: {exc}"
        ) from exc
    _check(spec, name, ep.value)
    _loaded[name] = spec
    return spec


def distribution(name: str) -> metadata.Distribution | None:
    """The installed distribution whose entry point provides model ``name`` (what the run
    files record as the model's origin), or None for a model registered in-process with
    :func:`register`; :class:`ConfigError` (key ``model``) if none is known.  Reads only
    the entry point's metadata: the model's code is not imported."""
    if name in _registered:
        return None
    ep = _entry_points().get(str(name))
    if ep is None:
        raise _unknown(name)
    return ep.dist


def _check(spec: object, name: str, where: str) -> None:
    """Refuse a spec that is no :class:`ModelSpec`, calls itself by another name or
    declares backends simcore does not know (a plug-in's mistake, said at once)."""
    if not isinstance(spec, ModelSpec):
        raise RegistryError(f"model {name!r} ({where}) is not a simcore ModelSpec: {spec!r}")
    if spec.name != name:
        raise RegistryError(f"model {name!r} ({where}) calls itself {spec.name!r}")
    backends = spec.backends
    known = isinstance(backends, tuple) and bool(backends) and set(backends) <= set(BACKENDS)
    if not known or len(set(backends)) != len(backends):
        raise RegistryError(f"model {name!r} ({where}) declares backends {backends!r}: a "
                            f"tuple of distinct values of {', '.join(BACKENDS)}")  # fmt: skip
    if not _builds_own_jobs(spec):
        missing = [b for b in backends if b not in spec.jobs]
        extra = [b for b in spec.jobs if b not in backends]
        if missing or extra:
            raise RegistryError(f"model {name!r} ({where}) names jobs for backends "
                                f"{tuple(spec.jobs)!r} but declares backends {backends!r}: "
                                "jobs needs one per declared backend")  # fmt: skip


def _builds_own_jobs(spec: ModelSpec) -> bool:
    """Whether a spec chooses or builds its jobs itself (overrides
    :meth:`~ModelSpec.job_class` or :meth:`~ModelSpec.simulation`), so that its ``jobs``
    need not name them."""
    cls = type(spec)
    return cls.job_class is not ModelSpec.job_class or cls.simulation is not ModelSpec.simulation


def register(spec: ModelSpec, replace: bool = False) -> None:
    """Make ``spec`` known in this process (``replace``: over a model of the same name)."""
    _check(spec, spec.name, "register()")
    if not replace and spec.name in names() and get(spec.name) is not spec:
        raise RegistryError(f"a model called {spec.name!r} is already registered")
    _registered[spec.name] = spec


def unregister(name: str) -> None:
    """Forget a model registered in-process, and the spec loaded from its entry point
    (entry points come back on the next look-up: an uninstalled plug-in is gone)."""
    _registered.pop(name, None)
    _loaded.pop(name, None)


def specs() -> list[ModelSpec]:
    """Every known model's spec, in name order (loads every entry point)."""
    return [get(n) for n in names()]


def paper_figures() -> dict[str, tuple[ModelSpec, PaperFigure]]:
    """The table of the papers' comparison figures of every model: name -> (spec, figure).

    The campaign (which inputs a figure needs) and the figure CLI (how to draw it) both
    read it; two models offering the same figure name is an error.
    """
    table: dict[str, tuple[ModelSpec, PaperFigure]] = {}
    for spec in specs():
        for fig in spec.paper_figures:
            if fig.name in table:
                other = table[fig.name][0].name
                raise RegistryError(f"paper figure {fig.name!r} of {spec.name} and of {other}")
            table[fig.name] = (spec, fig)
    return table


def bench_kernel_names() -> dict[str, ModelSpec]:
    """``simcore bench`` kernel names of every model -> the model's spec."""
    table: dict[str, ModelSpec] = {}
    for spec in specs():
        for kernel in spec.bench_kernels:
            if kernel in table:
                raise RegistryError(f"bench kernel {kernel!r} of {spec.name} and of "
                                    f"{table[kernel].name}")  # fmt: skip
            table[kernel] = spec
    return table


def bench_kernel(name: str) -> BenchKernel:
    """The :class:`BenchKernel` called ``name`` (imports its module)."""
    from importlib import import_module

    spec = bench_kernel_names()[name]
    module, _, attr = spec.bench_kernels[name].partition(":")
    kernel = getattr(import_module(module), attr)
    if not isinstance(kernel, BenchKernel) or kernel.name != name:
        raise RegistryError(f"bench kernel {name!r} of {spec.name} is not a BenchKernel "
                            f"called {name!r}")  # fmt: skip
    return kernel

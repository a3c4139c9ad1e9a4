"""Run datasets on disk: CF attributes of variables and files, compression, atomic
netCDF writes.

The unit convention (CF-1.11, checked by tests/test_cf.py): ``units`` is always a valid
UDUNITS string.  A quantity that is a pure number in the model's own units (a time in MCS,
sweeps or 1/k2, a height in lattice units, an energy in units of J) has ``units: "1"`` and
the attribute ``model_units`` with the unit a physicist writes on an axis
(:func:`in_model_units`); a truly dimensionless quantity has ``units: "1"`` and no
``model_units``; wall-clock times are in ``s``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import xarray as xr
import yaml

from simcore.io.atomic import atomic_path
from simcore.io.provenance import config_hash


class ModelSpec(Protocol):
    """What the run files need of a model's spec (:class:`simcore.models.spec.ModelSpec`
    has it): the spec is passed in, so io depends on no model code."""

    keys: Mapping[str, Any]

    @property
    def point_keys(self) -> tuple[str, ...]: ...

    def time_units(self, cfg: Mapping[str, Any]) -> tuple[str, str]: ...


#: The CF version the files follow (the attribute ``Conventions``).
CONVENTIONS = "CF-1.11"
#: ``model_units`` of heights and of squared heights (surface growth models).
HEIGHT = "lattice units"
HEIGHT2 = "lattice units^2"
#: The environment variable whose value, where set, is the files' ``institution``.
INSTITUTION_ENV = "SIMCORE_INSTITUTION"

#: Keys of every run config copied into the global attributes of a run file, after the
#: model's keys.
COMMON_ATTR_KEYS = ("seed", "t_max", "samples", "sample_offset", "campaign", "point", "block",
                    "points_per_decade")  # fmt: skip
#: Keys of every run config that all runs of a point share, besides the model's keys.
COMMON_POINT_CONFIG_KEYS = ("t_max", "points_per_decade", "campaign", "point")


def point_config_keys(spec: ModelSpec) -> tuple[str, ...]:
    """The keys every run of a point shares (the model's keys, backend, t_max, ...): their
    hash names the point's configuration in datasets and figures, and aggregation refuses
    runs that differ in any of them (config_hash is the job's own, seed and block
    included)."""
    return (*spec.point_keys, *(k for k, key in spec.keys.items() if not key.point),
            *COMMON_POINT_CONFIG_KEYS)  # fmt: skip


def in_model_units(long_name: str, model_units: str, **attrs: Any) -> dict[str, Any]:
    """CF attributes of a quantity that is a pure number in the model's own units:
    ``units: "1"`` (valid CF) and ``model_units``, the unit for axis labels (``attrs``
    add to them)."""
    return {"long_name": long_name, "units": "1", "model_units": model_units, **attrs}


def unit_attributes(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``units`` (default "1") and, where present, ``model_units`` of a variable's
    attributes: what a quantity derived in the same units (a mean, its error) copies."""
    out: dict[str, Any] = {"units": str(attrs.get("units", "1"))}
    if attrs.get("model_units"):
        out["model_units"] = str(attrs["model_units"])
    return out


def reciprocal_unit(unit: str) -> str:
    """The unit of a rate per ``unit``: ``1/k2`` -> ``k2``, ``MCS`` -> ``1/MCS``,
    ``lattice units^2`` -> ``1/(lattice units^2)``."""
    unit = unit.strip()
    if unit.startswith("1/"):
        inner = unit[2:].strip()
        if inner.startswith("(") and inner.endswith(")"):
            inner = inner[1:-1].strip()
        return inner
    return f"1/{unit}" if unit.isalnum() else f"1/({unit})"


def time_attributes(spec: ModelSpec, cfg: Mapping[str, Any], **attrs: Any) -> dict[str, Any]:
    """CF attributes of a time in the model's unit (the ``t`` coordinate, waiting times,
    time steps): ``units: "1"``, ``model_units`` and the long name from the spec
    (:meth:`~simcore.models.spec.ModelSpec.time_units`); ``attrs`` override or add."""
    unit, long_name = spec.time_units(cfg)
    return {**in_model_units(long_name, unit), **attrs}


def sample_coord(cfg: dict, samples: int, **attrs: str) -> tuple:
    """The ``sample`` coordinate of a job's dataset: global sample indices from the config's
    ``sample_offset``, with CF attributes (``attrs`` override or add to them)."""
    offset = int(cfg["sample_offset"])
    return (
        "sample",
        np.arange(offset, offset + samples, dtype=np.int64),
        {"long_name": "sample index", "units": "1", **attrs},
    )


def lockstep_wall_time(wall: np.ndarray, samples: int) -> tuple:
    """The ``wall_time`` variable (sample, time) of a job that advances all its samples
    together: the wall-clock seconds at each sampling time, the same for each sample."""
    return (
        ("sample", "t"),
        np.broadcast_to(wall, (samples, wall.size)).copy(),
        {
            "long_name": "wall-clock time of this sample's job since its start",
            "units": "s",
            "comment": "a job advances all its samples together: the same for each",
        },
    )


def attribute_value(key: str, value: Any) -> Any:
    """A run-config value as a netCDF attribute: numbers stay numbers (the 64-bit seed an
    unsigned 64-bit integer, which NETCDF4 files hold), lists of integers become integer
    arrays; None (a key left to its default) has no attribute and gives None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return np.int8(value)
    if key == "seed":
        return np.uint64(value)
    if isinstance(value, list | tuple):
        return np.asarray([int(x) for x in value], dtype=np.int64)
    return value


def _title_text(value: Any) -> str:
    return str(value.tolist()) if isinstance(value, np.ndarray) else str(value)


def run_attributes(
    cfg: dict,
    spec: ModelSpec,
    prov: dict[str, str],
    wall_seconds: float,
    segments: Sequence[str] = (),
) -> dict:
    """Global attributes of a run file: parameters, provenance and the full config as YAML;
    ``point_config_keys`` lists the keys that all runs of the point share.  ``segments``:
    one line per call of ``simcore run`` that worked on the run (from scratch, resumed,
    stopped), oldest first: they open the CF ``history`` and ``run_segments`` counts them.

    Every key that applies to the run is an attribute, a number where it is one; a key
    whose value is None (a default computed from other keys, e.g. kpz's ``border``) has
    none.  The title names the point's keys from the same values.  ``prov`` is what
    :func:`simcore.runner.run_provenance` gives: simcore's code, the machine and card, and
    the model's own code."""
    shared = point_config_keys(spec)
    params: dict[str, Any] = {}
    for key in dict.fromkeys((*shared, *COMMON_ATTR_KEYS)):
        if key in cfg and (value := attribute_value(key, cfg[key])) is not None:
            params[key] = value
    described = " ".join(f"{k}={_title_text(params[k])}" for k in spec.point_keys[1:]
                         if k in params)  # fmt: skip
    version = prov.get("simcore_version", "")
    attrs: dict = {
        "Conventions": CONVENTIONS,
        "title": f"simcore {cfg['model']} run: {described}",
        "source": f"simcore {version}",
    }
    if os.environ.get(INSTITUTION_ENV, "").strip():
        attrs["institution"] = os.environ[INSTITUTION_ENV].strip()
    written = (
        f"{prov.get('created', '')} simcore {version} run: model {cfg['model']}"
        + (f", point {cfg['point']} block {cfg['block']}" if cfg.get("point") else "")
        + " written"
    ).strip()
    attrs["history"] = "\n".join([*segments, written])
    attrs["run_segments"] = max(len(segments), 1)
    attrs.update(params)
    attrs.update(prov)
    attrs["config_hash"] = config_hash(cfg)
    attrs["point_config_keys"] = " ".join(k for k in shared if k in cfg)
    attrs["point_config_hash"] = config_hash({k: cfg[k] for k in shared if k in cfg})
    attrs["wall_seconds"] = float(wall_seconds)
    attrs["config"] = yaml.safe_dump(cfg, sort_keys=True)
    return attrs


def write_dataset(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` as netCDF4 to ``path`` atomically, compressing the float variables.

    Every stage of the pipeline writes through here, so no reader ever sees a
    half-written file (C_h and C_s are mostly NaN below t = s and compress well), and no
    coordinate gets a ``_FillValue`` (CF: coordinates have no missing values).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    encoding: dict[str, dict[str, Any]] = {
        name: {"zlib": True, "complevel": 4}
        for name, var in ds.data_vars.items()
        if np.issubdtype(var.dtype, np.floating)
    }
    for name in ds.coords:
        encoding[str(name)] = {"_FillValue": None}
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine="netcdf4", format="NETCDF4", encoding=encoding)
    return path

"""Concatenate the run files of one parameter point into one dataset.

    python -m analysis.aggregate --out results/C/datasets/P.nc results/C/runs/P/b*.nc

Every job (block) of a point writes one run file (ARCHITECTURE.md layout, dims
``sample, t, s``).  This module checks that the runs really belong together -- same
model parameters, campaign, point, time grid and every other coordinate that is not per
sample, no sample index twice -- and concatenates them along ``sample`` in sample-index
order; variables along a dimension of :data:`SUBSET_DIMS` (kpz's
``snapshot(snapshot_sample, y, x)``, the heights of some samples) are concatenated along
that dimension instead, every job's in order.  It refuses (exit 2, one line on stderr
naming what differs, nothing written) rather than silently mixing statistics of
different points.

Global attributes of the dataset: those equal in all runs (minus the per-job ones such
as ``seed``, ``block``, ``config``), plus ``n_runs``, ``n_samples``, ``source_files``,
``source_blocks``, ``source_seeds`` (integers), ``source_git_commits`` (each run's commit,
so that a point whose runs were made at several commits -- a campaign extended later --
keeps them all, where ``git_commit`` alone would be dropped as not common),
``wall_seconds_total``, ``history`` and ``created``.
The output is written to a temporary name in the target directory, then renamed, so a
dataset on disk is always complete.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from simcore.interrupt import run_main
from simcore.io.dataset import write_dataset

#: Attributes that must be equal in all runs of a point, besides those its run files list
#: in ``point_config_keys`` (the model's keys, t_max, ...: every run file says which keys
#: all runs of its point share, so aggregation needs to know no model).
MATCH_ATTRS = ("model", "point_config_keys", "point_config_hash")

#: Dimensions that index a subset of a point's samples, their coordinate holding global
#: sample indices as ``sample``'s does (kpz's height snapshots of the first samples of each
#: job): the variables along them are concatenated along them, in sample-index order, as
#: the rest is along ``sample``, and an index that repeats is refused the same way.
SUBSET_DIMS = ("snapshot_sample",)

#: The per-sample dimensions: coordinates along them differ from run to run (each run
#: holds its own samples); every other coordinate (the time grid ``t``, a model's
#: waiting times, wave numbers, temperatures, ...) must be identical in all runs.
PER_SAMPLE_DIMS = frozenset({"sample", *SUBSET_DIMS})

#: Per-job attributes never copied into the dataset (replaced by the source_* attributes).
PER_RUN_ATTRS = frozenset(
    {
        "seed",
        "block",
        "sample_offset",
        "samples",
        "config",
        "config_hash",
        "wall_seconds",
        "created",
        "history",
    }
)

_MISSING = "<missing>"


class AggregationError(ValueError):
    """The runs cannot be aggregated (they differ, overlap or are malformed)."""


def _same(a: Any, b: Any) -> bool:
    """Equality of attribute values, numbers and arrays compared by value (1 == 1.0)."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b


def _fmt(value: Any) -> str:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _open_run(path: Path) -> xr.Dataset:
    try:
        with xr.open_dataset(
            path, engine="netcdf4", decode_times=False, decode_timedelta=False
        ) as ds:
            return ds.load()
    except FileNotFoundError:
        raise AggregationError(f"{path}: no such file") from None
    except OSError as err:
        raise AggregationError(f"{path}: cannot read as netCDF ({err})") from None


def _check_compatible(runs: Sequence[tuple[Path, xr.Dataset]]) -> None:
    """Raise AggregationError naming the first attribute/coordinate that differs."""
    (ref_path, ref), rest = runs[0], runs[1:]
    for path, ds in runs:
        if "sample" not in ds.dims:
            raise AggregationError(f"{path.name}: no 'sample' dimension")
    shared = str(ref.attrs.get("point_config_keys", "")).split()
    for name in (*shared, *MATCH_ATTRS):
        a = ref.attrs.get(name, _MISSING)
        for path, ds in rest:
            b = ds.attrs.get(name, _MISSING)
            if not _same(a, b):
                raise AggregationError(
                    f"attribute {name!r} differs: {_fmt(a)} in {ref_path.name} "
                    f"vs {_fmt(b)} in {path.name}"
                )
    _check_coords(runs)
    owner: dict[int, str] = {}
    for path, ds in runs:
        for idx in ds["sample"].values.tolist():
            if idx in owner:
                where = f"{owner[idx]} and {path.name}" if owner[idx] != path.name else path.name
                raise AggregationError(f"sample index {idx} repeats ({where})")
            owner[idx] = path.name


def _shared_coords(runs: Sequence[tuple[Path, xr.Dataset]]) -> dict[str, tuple[str, ...]]:
    """The coordinates that all runs must share, with their dims, in order of appearance:
    every coordinate of any run except those along a per-sample dimension
    (:data:`PER_SAMPLE_DIMS`)."""
    shared: dict[str, tuple[str, ...]] = {}
    for _, ds in runs:
        for name, coord in ds.coords.items():
            if not PER_SAMPLE_DIMS.intersection(coord.dims):
                shared.setdefault(str(name), tuple(map(str, coord.dims)))
    return shared


def _check_coords(runs: Sequence[tuple[Path, xr.Dataset]]) -> None:
    """Raise AggregationError naming the first coordinate of :func:`_shared_coords` that
    differs between the first run with its dimensions and another run with them (a run
    without its dimensions, e.g. without height snapshots, has nothing to compare)."""
    for name, dims in _shared_coords(runs).items():
        having = [(path, ds) for path, ds in runs if set(dims) <= set(ds.dims)]
        if not having:
            continue
        (ref_path, ref), rest = having[0], having[1:]
        a = ref.coords[name].values if name in ref.coords else None
        for path, ds in rest:
            b = ds.coords[name].values if name in ds.coords else None
            if a is None and b is None:
                continue
            if a is None or b is None or a.shape != b.shape or not np.array_equal(a, b):
                raise AggregationError(
                    f"coordinate {name!r} differs: {_coord_summary(a)} in {ref_path.name} "
                    f"vs {_coord_summary(b)} in {path.name}"
                )


def _coord_summary(values: np.ndarray | None) -> str:
    if values is None:
        return "<missing>"
    if values.size <= 6:
        return _fmt(values)
    return f"[{values[0]}, {values[1]}, ..., {values[-1]}] ({values.size} values)"


def _common_attrs(datasets: Iterable[xr.Dataset]) -> dict[str, Any]:
    datasets = list(datasets)
    common = {}
    for key, value in datasets[0].attrs.items():
        if key in PER_RUN_ATTRS:
            continue
        if all(key in ds.attrs and _same(value, ds.attrs[key]) for ds in datasets[1:]):
            common[key] = value
    return common


def _as_list(value: Any, kind: type = str) -> list:
    return [kind(v) for v in np.atleast_1d(value)] if value is not None else []


def _sources(path: Path, ds: xr.Dataset) -> dict[str, Any]:
    """The runs behind one input: itself (a run file) or those of a partial aggregate."""
    if "source_files" in ds.attrs:  # a stage of a staged aggregation
        return {
            "source_files": _as_list(ds.attrs["source_files"]),
            "source_blocks": _as_list(ds.attrs.get("source_blocks"), int),
            "source_seeds": _as_list(ds.attrs.get("source_seeds"), int),
            "source_config_hashes": _as_list(ds.attrs.get("source_config_hashes")),
            "source_git_commits": _as_list(
                ds.attrs.get("source_git_commits")
                or [ds.attrs.get("git_commit", "")] * len(_as_list(ds.attrs["source_files"]))
            ),
            "wall": float(ds.attrs.get("wall_seconds_total", 0.0)),
        }
    return {
        "source_files": [path.name],
        "source_blocks": _as_list(ds.attrs.get("block"), int),
        "source_seeds": _as_list(ds.attrs.get("seed"), int),
        "source_config_hashes": [str(ds.attrs.get("config_hash", ""))],
        "source_git_commits": [str(ds.attrs.get("git_commit", ""))],
        "wall": float(ds.attrs.get("wall_seconds", 0.0)),
    }


def _concat(datasets: Sequence[xr.Dataset], dim: str) -> xr.Dataset:
    """``datasets`` concatenated along ``dim`` and sorted by it; the variables without it
    must be equal in all (AggregationError otherwise)."""
    try:
        combined = xr.concat(
            datasets,
            dim=dim,
            data_vars="minimal",
            coords="minimal",
            compat="equals",
            join="exact",
            combine_attrs="drop_conflicts",
        )
    except ValueError as err:
        raise AggregationError(f"runs cannot be concatenated: {err}".splitlines()[0]) from None
    return combined.sortby(dim)


def _subset(runs: Sequence[tuple[Path, xr.Dataset]], dim: str) -> xr.Dataset:
    """The variables along subset dimension ``dim`` (:data:`SUBSET_DIMS`) of every run
    that has it, concatenated along it in index order; an index that repeats raises
    AggregationError.  Integer variables keep zlib compression (the pipeline's writer
    compresses only floats: a height snapshot is integers)."""
    owner: dict[int, str] = {}
    parts = []
    for path, ds in runs:
        if dim not in ds.dims:
            continue
        for idx in ds[dim].values.tolist():
            if idx in owner:
                raise AggregationError(f"{dim} index {idx} repeats ({owner[idx]} and {path.name})")
            owner[idx] = path.name
        parts.append(ds[[name for name, var in ds.data_vars.items() if dim in var.dims]])
    part = _concat(parts, dim)
    for name, var in part.variables.items():
        var.encoding = {}
        if name in part.data_vars and np.issubdtype(var.dtype, np.integer):
            var.encoding = {"zlib": True, "complevel": 4}
    return part


def aggregate(paths: Sequence[str | os.PathLike[str]]) -> xr.Dataset:
    """Read run files and return one dataset, concatenated along ``sample`` by sample index.

    Inputs may also be partial aggregates (stages of many runs each): their source lists
    are carried over, so a staged aggregation gives the same dataset as a single one.

    Raises :class:`AggregationError` if the attributes of the keys every run of a point
    shares (``point_config_keys``, :data:`MATCH_ATTRS`) or a coordinate not along a
    per-sample dimension (:data:`PER_SAMPLE_DIMS`) differs between runs, or a sample
    index occurs twice.
    """
    if not paths:
        raise AggregationError("no run files given")
    runs = [(Path(p), _open_run(Path(p))) for p in paths]
    _check_compatible(runs)
    runs.sort(key=lambda r: int(r[1]["sample"].min()) if r[1].sizes["sample"] else 0)
    datasets = [ds for _, ds in runs]
    subsets = [dim for dim in SUBSET_DIMS if any(dim in ds.dims for ds in datasets)]
    combined = _concat([ds.drop_dims(subsets, errors="ignore") for ds in datasets], "sample")
    for var in combined.variables.values():
        var.encoding = {}
    for dim in subsets:
        part = _subset(runs, dim)
        combined = combined.merge(part, join="exact", compat="equals")

    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    attrs = _common_attrs(datasets)
    sources = [_sources(path, ds) for path, ds in runs]
    attrs.update(
        {
            "n_runs": sum(len(src["source_files"]) for src in sources),
            "n_samples": int(combined.sizes["sample"]),
            "source_files": [v for src in sources for v in src["source_files"]],
            "source_blocks": np.array(
                [v for src in sources for v in src["source_blocks"]], dtype=np.int64
            ),
            "source_seeds": np.array(
                [v for src in sources for v in src["source_seeds"]], dtype=np.uint64
            ),
            "source_config_hashes": [v for src in sources for v in src["source_config_hashes"]],
            "source_git_commits": [v for src in sources for v in src["source_git_commits"]],
            "wall_seconds_total": float(sum(src["wall"] for src in sources)),
            "created": now,
            "history": f"{now} python -m analysis.aggregate: {len(datasets)} inputs, "
            f"{int(combined.sizes['sample'])} samples",
        }
    )
    combined.attrs = attrs
    return combined


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: aggregate RUN files into ``--out``; exit 2 (no output) on refusal."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.aggregate",
        description="Concatenate the run files of one parameter point along 'sample' "
        "(refusing runs whose parameters, time grid or sample indices clash).",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN.nc", help="run files of one point")
    parser.add_argument("--out", required=True, metavar="OUT.nc", help="dataset to write")
    args = parser.parse_args(argv)
    try:
        ds = aggregate(args.runs)
    except AggregationError as err:
        print(f"analysis.aggregate: error: {err}", file=sys.stderr)
        return 2
    write_dataset(ds, args.out)
    print(
        f"analysis.aggregate: wrote {args.out} ({ds.attrs['n_runs']} runs, "
        f"{ds.attrs['n_samples']} samples)"
    )
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.aggregate")

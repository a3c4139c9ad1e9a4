"""The analysis CLI: one aggregated dataset in, its analysis dataset out.

``python -m analysis.analyze DATASET.nc --out ANALYSIS.nc [--groups N]``

The dataset's ``model`` attribute picks the analysis through simcore's registry
(:func:`analysis.dispatch.analysis_module`): ``analyze(ds, n_groups)`` of the model's
analysis module gives sample means, jackknife errors and the model's derived quantities
(:mod:`analysis.kpz`: effective exponents; :mod:`analysis.ea3d`, :mod:`analysis.kmc2d`,
:mod:`analysis.fcc`: theirs).  The result gets the attribute ``source_dataset`` and a
line of ``history`` (appended to the dataset's) and is written atomically
(:func:`simcore.io.dataset.write_dataset`): Snakemake and readers never see a
half-written file, and a failure leaves the previous file untouched.

Exit status: 0 written; 2 bad input (unreadable file, no or unknown model, a dataset the
analysis refuses), one line on stderr; 1 the output could not be written.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import UTC, datetime

import xarray as xr

from analysis.dispatch import analysis_module, fail, one_line
from simcore.interrupt import run_main
from simcore.io.dataset import write_dataset

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input, 1 write failure)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.analyze",
        description=(
            "Compute sample means, jackknife errors and the derived quantities (effective "
            "exponents, ...) of one aggregated simcore dataset, by the analysis module of "
            "its model (the dataset's 'model' attribute, looked up in simcore's registry)."
        ),
    )
    parser.add_argument("dataset", metavar="DATASET.nc", help="aggregated dataset (netCDF)")
    parser.add_argument(
        "--out", required=True, metavar="ANALYSIS.nc", help="output netCDF (written atomically)"
    )
    parser.add_argument(
        "--groups",
        type=int,
        default=None,
        metavar="N",
        help="number of jackknife groups (default: the model's, e.g. min(n_samples, 32))",
    )
    args = parser.parse_args(argv)
    prog = parser.prog

    try:
        with xr.open_dataset(args.dataset, decode_times=False) as f:
            ds = f.load()
    except Exception as exc:  # noqa: BLE001 - missing, unreadable, not netCDF
        return fail(prog, f"cannot read {args.dataset}: {one_line(exc)}")
    try:
        module = analysis_module(ds.attrs.get("model"), args.dataset)
        result = module.analyze(ds, n_groups=args.groups)
    except (ValueError, KeyError) as exc:
        msg = one_line(exc)
        return fail(prog, msg if msg.startswith(args.dataset) else f"{args.dataset}: {msg}")
    result.attrs["source_dataset"] = os.fspath(args.dataset)
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    line = f"{now} python -m analysis.analyze ({module.__name__})"
    before = str(result.attrs.get("history", "")).strip()
    result.attrs["history"] = f"{before}\n{line}" if before else line  # CF: appended
    try:
        write_dataset(result, args.out)
    except Exception as exc:  # noqa: BLE001 - any failure to write is reported alike
        return fail(prog, f"cannot write {args.out}: {one_line(exc)}", status=1)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.analyze")

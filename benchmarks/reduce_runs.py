"""Transport copies of run files too large to bring back from a GPU machine whole.

    python benchmarks/reduce_runs.py --last-bins 4 --out OUTDIR RUN.nc [RUN.nc ...]

writes ``OUTDIR/<point>__<block>.nc`` for each run file: the same file with only the last
``--last-bins`` entries of its time axis ``t`` (for ea3d_pt: the logarithmic bins, the last
of which is the equilibrium estimate), every variable without ``t`` unchanged, floats
zlib-compressed, and the global attribute ``reduced`` saying what was dropped.  Values
are copied, not recomputed: an analysis of the copies equals that of the full files in
every quantity of the bins kept.  ``--restore RESULTS`` puts such copies back as
``RESULTS/runs/<point>/<block>.nc``, where the campaign's Snakemake finds them.

Why: a machine may return only a few files of limited size (an ea3d_pt job of 4096
samples at 28 temperatures writes ~30 MB, most of it early bins), and its disk is gone
when the allocation ends.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import xarray as xr

SEP = "__"


def reduce_run(path: Path, out_dir: Path, last_bins: int) -> Path:
    """Write the transport copy of one run file (module doc); its path."""
    with xr.open_dataset(path) as ds:
        n = int(ds.sizes.get("t", 0))
        if n == 0:
            raise ValueError(f"{path}: no time axis t")
        keep = ds.isel(t=slice(max(0, n - last_bins), None)).load()
    keep.attrs["reduced"] = (
        f"transport copy: the last {min(n, last_bins)} of {n} entries of t (the rest "
        "dropped by benchmarks/reduce_runs.py); every kept value unchanged"
    )
    enc = {v: {"zlib": True, "complevel": 4} for v in keep.data_vars
           if keep[v].dtype.kind == "f"}  # fmt: skip
    out = out_dir / f"{path.parent.name}{SEP}{path.name}"
    tmp = out.with_name(out.name + ".tmp")
    keep.to_netcdf(tmp, encoding=enc)
    tmp.replace(out)
    return out


def restore(copies: list[Path], results: Path) -> list[Path]:
    """Put transport copies back under ``results/runs/<point>/``; the paths written."""
    done = []
    for c in copies:
        point, _, block = c.name.partition(SEP)
        if not block:
            raise ValueError(f"{c}: not a transport copy (<point>{SEP}<block>.nc)")
        dest = results / "runs" / point / block
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(c, dest)
        done.append(dest)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="benchmarks/reduce_runs.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--last-bins", type=int, default=4)
    parser.add_argument("--out", type=Path, help="folder of the copies")
    parser.add_argument("--restore", type=Path, metavar="RESULTS",
                        help="put copies back under RESULTS/runs/<point>/")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        if args.restore:
            for p in restore(args.files, args.restore):
                print(p)
        else:
            if args.out is None or args.last_bins < 1:
                raise ValueError("give --out DIR and --last-bins >= 1")
            args.out.mkdir(parents=True, exist_ok=True)
            for f in args.files:
                print(reduce_run(f, args.out, args.last_bins))
    except (OSError, ValueError) as exc:
        print(f"benchmarks/reduce_runs.py: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""SHA-256 of every data variable of a campaign's run files, to check that a change moves no bit.

    python benchmarks/run_file_hashes.py results/default results/ea3d ... > hashes.json
    python benchmarks/run_file_hashes.py --compare hashes.json results/default ...

Keys are ``<campaign>/<point>/b<block>/<variable>``; the value hashes the variable's raw
bytes with its dtype and shape.  ``wall_time`` (a measurement of the machine, not of the
physics) is left out.  ``--compare`` prints the keys that differ or are missing on either
side and exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import netCDF4
import numpy as np

SKIP = ("wall_time",)


def run_hashes(results: Path) -> dict[str, str]:
    """Hashes of the data variables of every run file under ``results/runs``."""
    out = {}
    for path in sorted(results.glob("runs/*/b*.nc")):
        with netCDF4.Dataset(path) as nc:
            nc.set_auto_mask(False)
            for name, var in sorted(nc.variables.items()):
                if name in SKIP or name in nc.dimensions:
                    continue
                data = np.ascontiguousarray(var[...])
                h = hashlib.sha256(f"{data.dtype.str}{data.shape}".encode())
                h.update(data.tobytes())
                out[f"{results.name}/{path.parent.name}/{path.stem}/{name}"] = h.hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the hashes as JSON, or compare them with a stored file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="results/<campaign> directories")
    ap.add_argument("--compare", metavar="JSON", help="stored hashes to compare against")
    args = ap.parse_args(argv)
    hashes: dict[str, str] = {}
    for results in args.results:
        hashes.update(run_hashes(results))
    if not args.compare:
        json.dump(hashes, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    stored = json.loads(Path(args.compare).read_text())
    bad = sorted(k for k in set(stored) | set(hashes) if stored.get(k) != hashes.get(k))
    for key in bad:
        print(
            f"differs: {key} (stored {stored.get(key, 'missing')[:12]}, now "
            f"{hashes.get(key, 'missing')[:12]})"
        )
    print(f"{len(hashes)} variables compared with {len(stored)} stored: {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

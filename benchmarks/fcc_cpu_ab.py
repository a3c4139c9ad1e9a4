"""A/B of the fcc CPU kernels of two commits in one run: the sequential reference (B active)
and the cache-blocked DD (dt, both active, one core), from the same random mixture, each
commit in its own process, the commits alternated ``--rounds`` times (machines of one kind
differ by up to 45 % on one core, so only ratios within one run are compared).  The last
rows give the medians over rounds of each column (the ratio: of the rounds' ratios).

Usage (in a clone; the commits are extracted with git archive, the working tree is not used):
    python benchmarks/fcc_cpu_ab.py 4dfa170 df9e320 --L 512 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs in a child process with the commit's tree first on sys.path (an editable install of
# the project would otherwise win the import, hence dropping its finder).
CHILD = r"""
import json, statistics, sys, time
tree, L, b, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "editable" not in getattr(f, "__name__", "").lower()]
sys.path.insert(0, tree)
import numba
import simcore
from simcore.models.fcc.decomposed import dt_sweeps
from simcore.models.fcc.kernels import sequential_sweeps
from simcore.models.fcc.lattice import random_mixture
from simcore.models.fcc.rule import thresholds
assert simcore.__file__.startswith(tree), simcore.__file__
numba.set_num_threads(1)
thr = thresholds(1.5)
lat0 = random_mixture(L, 0.325, 0x5EED, 0, 0)
def rate(run):
    run(lat0.copy())  # compiles
    secs = []
    for _ in range(repeats):
        lat = lat0.copy()
        t0 = time.perf_counter()
        run(lat)
        secs.append(time.perf_counter() - t0)
    return (L ** 3 // 2) / statistics.median(secs)
seq = rate(lambda lat: sequential_sweeps(lat, L, 1, 1, 0, 0x5EED, 0, thr, False))
dd = rate(lambda lat: dt_sweeps(lat, L, b, 1, 1, 0, 0x5EED, 0, thr, True))
print(json.dumps({"seq": seq, "dd": dd}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "commits", nargs=2, help="the two commits (A, then B), or folders holding simcore/"
    )
    ap.add_argument("--L", type=int, default=512, help="lattice side (default 512)")
    ap.add_argument("--block-side", type=int, default=32, help="DD block side (default 32)")
    ap.add_argument("--rounds", type=int, default=2, help="A, B alternations (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="timed 1-MCS runs per process")
    a = ap.parse_args()
    rows: dict[str, list[dict]] = {c: [] for c in a.commits}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for c in a.commits:
            if (Path(c) / "simcore").is_dir():  # a source tree instead of a commit
                trees[c] = str(Path(c).resolve())
                continue
            tree = Path(tmp) / c
            tree.mkdir()
            archive = subprocess.run(
                ["git", "archive", c, "simcore"], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
            trees[c] = str(tree)
        for r in range(a.rounds):
            for c in a.commits:
                args = [trees[c], str(a.L), str(a.block_side), str(a.repeats)]
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, *args], check=True, capture_output=True, text=True
                ).stdout
                rows[c].append(json.loads(out.splitlines()[-1]))
                print(f"round {r + 1}, {c}: {rows[c][-1]}", file=sys.stderr, flush=True)
    print(f"L = {a.L}, b = {a.block_side}, c = 0.325, epsilon = 1.5, from the mixture; "
          f"attempts/s, per round the median of {a.repeats} 1-MCS runs\n")  # fmt: skip
    print("| commit | round | sequential (B) | DD (1 core) | DD / sequential |")
    print("|---|---|---|---|---|")
    for c in a.commits:
        for r, row in enumerate(rows[c], 1):
            seq, dd = row["seq"], row["dd"]
            print(f"| {c} | {r} | {seq:.3g} | {dd:.3g} | {dd / seq:.2f} |")
    for c in a.commits:
        seq = statistics.median(row["seq"] for row in rows[c])
        dd = statistics.median(row["dd"] for row in rows[c])
        ratio = statistics.median(row["dd"] / row["seq"] for row in rows[c])
        print(f"| {c} | median | {seq:.3g} | {dd:.3g} | {ratio:.2f} |")


if __name__ == "__main__":
    main()

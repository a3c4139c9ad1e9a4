#!/usr/bin/env bash
# Same-run A/B of the headline GPU benchmarks of two versions of simcore on one machine:
# A = an old source tree (a folder holding simcore/, e.g. made by
#     `git archive OLD simcore | tar -x -C DIR`), run from that folder;
# B = this checkout, run from its root.  OLD_DIR and OUTDIR must be absolute paths.
# The versions alternate within each round, so drifts of the machine hit both alike.
# Usage: benchmarks/gpu_ab.sh OLD_DIR OUTDIR [ROUNDS] [KERNELS]
#   KERNELS: any of dd ea3d kmc2d fcc (default: all); tables land in OUTDIR/<kernel>_<A|B>.csv
set -uo pipefail
old=${1:?usage: $0 OLD_DIR OUTDIR [ROUNDS] [KERNELS]}; out=${2:?}; rounds=${3:-2}
kernels=${4:-dd ea3d kmc2d fcc}
mkdir -p "$out"
declare -A args=(
  [dd]="--backend gpu --scheme DTrDT DTrDB --tc 1,1 --domain 128,128 --L 65536 --mcs 4 --repeats 5"
  [ea3d]="--backend gpu --layout sliced --L 128 256 --k 1 --mcs 20 --repeats 5"
  [kmc2d]="--backend gpu --L 4096 --phi 0 1 2 3 --tile 8 --relax 2 --measure 5 --repeats 3 --bkl-events 0"
  [fcc]="--backend gpu --L 512 --quench 0 --mcs 100 --cpu-mcs 1 --repeats 3"
)
run() {  # run VERSION KERNEL EXTRA...
  local v=$1 k=$2; shift 2
  if [ "$v" = A ]; then
    (cd "$old" && python3 -m simcore.cli bench "$k" ${args[$k]} "$@" --csv "$out/${k}_A.csv")
  else
    python3 -m simcore.cli bench "$k" ${args[$k]} "$@" --csv "$out/${k}_B.csv"
  fi > /dev/null 2>> "$out/log.txt"
}
for r in $(seq "$rounds"); do
  for k in $kernels; do
    for v in A B; do
      echo "round $r $k $v" >> "$out/log.txt"
      if [ "$k" = dd ]; then run $v dd -p 1 -q 0; run $v dd -p 0.6 -q 0.3; else run $v "$k"; fi
    done
  done
done
python3 - "$out" <<'PY'
import csv, statistics, sys
from collections import defaultdict
from pathlib import Path
out = Path(sys.argv[1])
cols = {"dd": (("scheme", "p", "q", "L"), "attempts_per_ns"),
        "ea3d": (("layout", "L", "k"), "ps_per_flip"),
        "kmc2d": (("n", "phi"), "events_per_s"),
        "fcc": (("implementation", "t_quench"), "attempts_per_s")}
print("| kernel | configuration | A median | B median | B / A | n A, n B |")
print("|---|---|---|---|---|---|")
for k, (keys, val) in cols.items():
    med = {}
    for v in "AB":
        path = out / f"{k}_{v}.csv"
        if not path.exists():
            continue
        groups = defaultdict(list)
        for row in csv.DictReader(path.open()):
            groups[tuple(row[c] for c in keys)].append(float(row[val]))
        med[v] = {g: (statistics.median(x), len(x)) for g, x in groups.items()}
    for g in sorted(med.get("A", {})):
        if g in med.get("B", {}):
            (a, na), (b, nb) = med["A"][g], med["B"][g]
            print(f"| {k} | {' '.join(g)} | {a:.4g} | {b:.4g} | {b / a:.3f} | {na}, {nb} |")
PY

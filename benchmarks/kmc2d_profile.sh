#!/usr/bin/env bash
# Where the kmc2d tile kernel spends its time: SASS, ncu sections of one advance launch,
# and the cost of a step with and without events.  Usage: benchmarks/kmc2d_profile.sh OUTDIR
set -uo pipefail
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
inc=simcore/rng/cuda
defs="-DB=8 -DMODEL=0 -DNCLS=5 -DDIAG=0 -DDPB=4 -DNT=128"
defs="$defs $(python3 -c 'from simcore.rng.streams import cuda_defines; print(*cuda_defines())')"
nvcc -arch=sm_90 -cubin -std=c++17 --fmad=false -I$inc $defs -Xptxas -v \
  simcore/models/kmc2d/cuda/kmc2d_tiles.cu -o /tmp/k.cubin 2> "$out/ptxas.txt"
cuobjdump -sass /tmp/k.cubin > "$out/sass.txt"
for args in "4096 0 4 5" "4096 2 4 0.5" ; do
  echo "== profile $args"; python3 benchmarks/kmc2d_profile.py $args
done 2>&1 | tee "$out/steps.txt"
ncu --clock-control none --profile-from-start off -k kmc2d_advance --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section InstructionStats --section Occupancy --section LaunchStats \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
  python3 benchmarks/kmc2d_profile.py 1024 0 4 5 > "$out/ncu.txt" 2>&1
grep -E "stalled|Stall|Warp Cycles|Issued|Eligible|Active Warps|Duration|Executed Ipc|Theoretical|Achieved|Registers|Shared Memory" "$out/ncu.txt" | head -80

#!/usr/bin/env bash
# Where the DD kernels' time goes (kpz, p = 1, q = 0, L = 2^16, TC 1,1, domains 128 x 128):
# ncu counters of one launch of octahedron_dd_phase for DTrDT and for DTrDB (instructions
# issued, warp stall reasons, shared-memory bank conflicts, occupancy).  One launch is a
# quarter of an MCS: L^2 / 4 attempts.   Usage: benchmarks/kpz_dd_profile.sh OUTDIR
set -uo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
metrics="smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum"
metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
metrics="$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,sm__warps_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
metrics="$metrics,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
metrics="$metrics,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for scheme in ${SCHEMES:-DTrDT DTrDB}; do
  ncu --clock-control none -k octahedron_dd_phase --launch-skip 8 --launch-count 1 \
    --metrics "$metrics" python3 -m simcore.cli bench dd --backend gpu --scheme $scheme \
    --tc 1,1 --domain 128,128 --L 65536 --mcs 3 --repeats 1 -p 1 -q 0 \
    > "$out/ncu_$scheme.txt" 2>&1
  echo "== $scheme"
  grep -E "inst_executed|cycles_elapsed|duration|bank_conflicts|wavefronts|issue_active|warps_active|pipe|stalled" \
    "$out/ncu_$scheme.txt" | awk '$NF+0 > 0.3 || /inst|cycles|duration|bank|wave|active|pipe/'
done

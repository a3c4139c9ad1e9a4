#!/usr/bin/env bash
# One time-limited allocation of a campaign, with a record of what it did: the same
# command in every allocation (the campaign's max_wall stops its jobs with a
# checkpoint before the allocation ends; the next allocation resumes them).
#
# Usage: benchmarks/allocation.sh CONFIG LOGDIR [snakemake targets and args...]
#   e.g. benchmarks/allocation.sh config/kelling2017_scale.yaml allocations papers \
#            --config max_wall=450
#
# For a machine with a read-only Python and no package index (a GPU node): installs this
# checkout (no dependencies: they must be there) once into a folder of /tmp, so that the
# models' entry points exist.  Appends one line per allocation to LOGDIR/allocations.tsv
# (number, start and end in seconds since the epoch, Snakemake's exit status, run files
# and checkpoints before and after) and keeps Snakemake's output as
# LOGDIR/allocation_N.log; benchmarks/allocation_report.py turns them and the run files'
# histories into the table of allocations.
set -uo pipefail
config=${1:?usage: $0 CONFIG LOGDIR [snakemake args...]}; logdir=${2:?}; shift 2
site=/tmp/simcore-allocation-site
if [ ! -x "$site/bin/simcore" ]; then
  python3 -m pip install --quiet --no-deps --no-build-isolation --no-index --target "$site" . \
    || exit 2
  printf '#!/bin/sh\nexec python3 "$@"\n' > "$site/bin/python"
  chmod +x "$site/bin/python"
fi
# the checkout first: its code runs (and its commit enters the run files); the copy in
# $site gives the entry points
export PATH="$site/bin:$PATH" PYTHONPATH="$PWD:$site${PYTHONPATH:+:$PYTHONPATH}"
campaign=$(python3 -c "import yaml,sys; print(yaml.safe_load(open(sys.argv[1]))['campaign'])" "$config")
runs=results/$campaign/runs
mkdir -p "$logdir"
# numbered after the rows of allocations.tsv (which travels with the run files), else the logs
rows=$(( $(cat "$logdir/allocations.tsv" 2>/dev/null | wc -l) - 1 )); [ $rows -lt 0 ] && rows=0
logs=$(find "$logdir" -name 'allocation_*.log' | wc -l)
n=$(( (rows > logs ? rows : logs) + 1 ))
count() { find "$runs" -name "$1" 2>/dev/null | wc -l; }
runs_before=$(count 'b*.nc'); ckpt_before=$(count '*.ckpt')
start=$(date +%s)
python3 -m snakemake "$@" --workflow-profile workflow/profiles/default --configfile "$config" \
  > "$logdir/allocation_$n.log" 2>&1
status=$?
end=$(date +%s)
[ -f "$logdir/allocations.tsv" ] || \
  printf 'allocation\tstart\tend\tstatus\truns_before\tcheckpoints_before\truns_after\tcheckpoints_after\n' \
  > "$logdir/allocations.tsv"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$start" "$end" "$status" "$runs_before" \
  "$ckpt_before" "$(count 'b*.nc')" "$(count '*.ckpt')" >> "$logdir/allocations.tsv"
simcore status "results/$campaign" --config "$config" > "$logdir/status_$n.txt" 2>&1
echo "allocation $n: $((end - start)) s, snakemake exit status $status"
cat "$logdir/status_$n.txt"
exit $status

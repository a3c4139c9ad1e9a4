#!/usr/bin/env bash
# Run a campaign with the default profile on a machine where simcore is importable from
# this checkout but not pip-installed (e.g. a GPU node with a read-only Python): puts
# `simcore` and `python` shims on PATH, runs Snakemake, and packs the results.
# Usage: benchmarks/run_campaign_offline.sh CONFIG OUT_TARBALL [targets and snakemake args...]
set -euo pipefail
config=${1:?usage: $0 CONFIG OUT_TARBALL}; tarball=${2:?}; shift 2
bin=$(mktemp -d)
printf '#!/bin/sh\nexec python3 -m simcore.cli "$@"\n' > "$bin/simcore"
printf '#!/bin/sh\nexec python3 "$@"\n' > "$bin/python"
chmod +x "$bin/simcore" "$bin/python"
export PATH="$bin:$PATH" PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD"
campaign=$(python3 -c "import yaml,sys; print(yaml.safe_load(open(sys.argv[1]))['campaign'])" "$config")
status=0
python3 -m snakemake "$@" --workflow-profile workflow/profiles/default --configfile "$config" \
  || status=$?
tar czf "$tarball" results/"$campaign"/figures results/"$campaign"/analysis \
  results/"$campaign"/logs $(ls -d results/"$campaign"/bench 2>/dev/null) || true
exit $status

#!/usr/bin/env bash
# Run a campaign with the default profile on a machine with a read-only Python and no
# package index (e.g. a GPU node): installs this checkout (no dependencies: they must be
# there) into a temporary folder, so that the models' entry points exist, puts it and
# a `python` shim on the paths, runs Snakemake, and packs the results.
# Usage: benchmarks/run_campaign_offline.sh CONFIG OUT_TARBALL [targets and snakemake args...]
set -euo pipefail
config=${1:?usage: $0 CONFIG OUT_TARBALL}; tarball=${2:?}; shift 2
site=$(mktemp -d)
python3 -m pip install --quiet --no-deps --no-build-isolation --no-index --target "$site" .
printf '#!/bin/sh\nexec python3 "$@"\n' > "$site/bin/python"
chmod +x "$site/bin/python"
export PATH="$site/bin:$PATH" PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
campaign=$(python3 -c "import yaml,sys; print(yaml.safe_load(open(sys.argv[1]))['campaign'])" "$config")
status=0
python3 -m snakemake "$@" --workflow-profile workflow/profiles/default --configfile "$config" \
  || status=$?
tar czf "$tarball" results/"$campaign"/figures results/"$campaign"/analysis \
  results/"$campaign"/logs $(ls -d results/"$campaign"/bench 2>/dev/null) || true
exit $status

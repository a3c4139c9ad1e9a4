"""Snakemake script of the benchmark rule: run the campaign's `simcore bench KERNEL` lines.

All rows go to a temporary CSV beside the output, renamed at the end, so a failed
benchmark leaves no table behind.
"""

import shlex
import subprocess
import tempfile
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake
out = Path(snakemake.output[0])
out.parent.mkdir(parents=True, exist_ok=True)
tmp = Path(tempfile.mkdtemp(dir=out.parent))
with open(snakemake.log[0], "w") as fh:
    for line in snakemake.params.lines:
        kernel = snakemake.wildcards.kernel
        cmd = ["simcore", "bench", kernel, *shlex.split(line), "--csv", str(tmp / "b.csv")]
        subprocess.run(cmd, check=True, stdout=fh, stderr=subprocess.STDOUT)
(tmp / "b.csv").rename(out)
tmp.rmdir()

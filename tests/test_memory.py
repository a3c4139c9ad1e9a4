"""A run too big for memory is refused in one line before it allocates anything (host
memory for CPU runs, GPU memory for GPU runs), and an allocation that fails anyway ends
in one line too: exit status 2, nothing written, never a numpy or CuPy traceback.

"No allocation attempted" is shown by running the refused job under an address-space
limit of 1 GiB: had it allocated its lattice, the failure would read "out of host memory
while running" (the second kind of line, tested on its own), not the refusal.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import gpu_count

from simcore.config import validate_run_config
from simcore.memory import cgroup_room, format_bytes, host_free_bytes, job_work
from simcore.models import registry

#: Address-space limit of the jobs that must not allocate (the interpreter, numba and
#: xarray take about 0.5 GiB of it).
LIMIT = 2**30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run_job(tmp_path: Path, cfg: dict, limit: bool = True, env: dict | None = None):
    """``simcore run`` of ``cfg`` (under the address-space limit): the process, and the
    files it left beside its --out."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run(
        [sys.executable, "-m", "simcore.cli", "run", str(path), "--out", str(tmp_path / "run.nc"),
         "--quiet"],
        capture_output=True, text=True, timeout=600, preexec_fn=_limited if limit else None,
        env=env,
    )  # fmt: skip
    return proc, sorted(p.name for p in tmp_path.glob("run.nc*"))


@pytest.mark.parametrize(
    "cfg, sizes",
    [
        ({"dim": 2, "L": 65536, "samples": 8, "waiting_times": list(range(1, 101))},
         "dim = 2, L = 65536, samples = 8"),
        ({"dim": 1, "L": 64, "samples": 4 * 10**9}, "dim = 1, L = 64, samples = 4000000000"),
    ],
    ids=["lattice", "samples"],
)  # fmt: skip
def test_a_run_too_big_for_host_memory_is_refused_before_it_allocates(tmp_path, cfg, sizes):
    """2^32 sites with 100 snapshots for the autocorrelations, or 4 x 10^9 samples (a few
    TiB either way): one line naming the sizes and the samples, the bytes needed and the
    bytes free; exit 2; nothing at --out."""
    job = {"model": "kpz", "seed": 1, "t_max": 10**6, **cfg}
    need = job_work(validate_run_config(job), registry.get("kpz")).host_bytes
    assert need > (host_free_bytes() or 0)
    proc, left = run_job(tmp_path, job)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("simcore: error: not enough host memory: the run (" + sizes)
    assert f"needs {format_bytes(need)} for its state and results" in lines[0]
    assert " are free; lower the lattice size or the samples" in lines[0]
    assert left == []


def test_an_allocation_that_fails_anyway_is_one_line(tmp_path):
    """A run that fits the free memory but not the process's address-space limit (which
    the check does not know) fails at its first large allocation: one line saying it ran
    out of host memory while running, with the sizes and numpy's own words; exit 2;
    nothing at --out."""
    job = {"model": "kpz", "dim": 2, "L": 16384, "samples": 1, "seed": 1, "t_max": 2,
           "waiting_times": [1]}  # fmt: skip
    need = job_work(validate_run_config(job), registry.get("kpz")).host_bytes
    free = host_free_bytes()
    if free is not None and need > free:
        pytest.skip(f"this machine has {format_bytes(free)} free, the run needs more")
    assert need > LIMIT  # so the limit, not the check, stops it
    proc, left = run_job(tmp_path, job)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(
        "simcore: error: out of host memory while running (dim = 2, L = 16384, samples = 1): "
    )
    assert "Unable to allocate" in lines[0]
    assert left == []


def test_cgroup_room_takes_the_tightest_limit(tmp_path):
    """The room under a cgroup v2 limit is limit - usage of the tightest group on the way
    up (a Slurm job's own limit, not the node's memory); "max" is no limit; v1 too."""
    root = tmp_path / "cg"
    job = root / "slurm" / "job_1"
    job.mkdir(parents=True)
    (root / "slurm" / "memory.max").write_text("8000\n")
    (root / "slurm" / "memory.current").write_text("1000\n")
    (job / "memory.max").write_text("max\n")
    (job / "memory.current").write_text("500\n")
    assert cgroup_room("0::/slurm/job_1\n", root) == 7000
    (job / "memory.max").write_text("3000\n")
    assert cgroup_room("0::/slurm/job_1\n", root) == 2500
    v1 = root / "memory" / "user"
    v1.mkdir(parents=True)
    (v1 / "memory.limit_in_bytes").write_text(str(2**63 - 4096))
    (v1 / "memory.usage_in_bytes").write_text("100")
    assert cgroup_room("4:memory:/user\n", root) is None  # v1's "no limit"
    (v1 / "memory.limit_in_bytes").write_text("1100")
    assert cgroup_room("4:memory:/user\n", root) == 1000


# -- on a GPU ---------------------------------------------------------------------------


def _gpu_total() -> int:
    """Bytes of the first card (0 without a GPU)."""
    if gpu_count() < 1:
        return 0
    import cupy

    return int(cupy.cuda.Device(0).mem_info[1])


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_total() == 0, reason="needs a CUDA GPU")
def test_a_run_too_big_for_gpu_memory_is_refused_before_it_allocates(tmp_path):
    """A GPU job whose device state exceeds the whole card (but fits the host): one line
    naming the sizes, the samples and the GPU bytes needed and free; exit 2; nothing at
    --out.  (No address-space limit here: CUDA reserves more address space than that for
    its context; the refusal's wording shows that the check, not a failed allocation,
    stopped the job.)"""
    spec = registry.get("kpz")
    job = {"model": "kpz", "dim": 2, "L": 8192, "scheme": "DTrDT", "backend": "gpu",
           "seed": 1, "t_max": 10, "samples": 1}  # fmt: skip
    while job_work(validate_run_config(job), spec).device_bytes <= _gpu_total():
        job["samples"] *= 2
    work = job_work(validate_run_config(job), spec)
    free = host_free_bytes()
    if free is not None and work.host_bytes > free:
        pytest.skip("the host side of this job does not fit here either")
    proc, left = run_job(tmp_path, job, limit=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(
        f"simcore: error: not enough GPU memory: the run (dim = 2, L = 8192, samples = "
        f"{job['samples']}) needs {format_bytes(work.device_bytes)} for its state"
    )
    assert left == []


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_total() == 0, reason="needs a CUDA GPU")
def test_a_gpu_allocation_that_fails_anyway_is_one_line(tmp_path):
    """With CuPy's memory pool capped below what the job allocates (the card itself has
    room, so the check lets it start), the failed allocation is one line: out of GPU
    memory while running, with the sizes; exit 2; nothing at --out."""
    job = {"model": "kpz", "dim": 2, "L": 4096, "scheme": "DTrDT", "backend": "gpu",
           "seed": 1, "t_max": 10, "samples": 4}  # fmt: skip
    env = {**os.environ, "CUPY_GPU_MEMORY_LIMIT": str(2**20)}
    proc, left = run_job(tmp_path, job, limit=False, env=env)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(
        "simcore: error: out of GPU memory while running (dim = 2, L = 4096, samples = 4): "
    )
    assert left == []


def test_a_failed_allocation_is_placed_on_the_host_or_the_gpu():
    """numpy's MemoryError is the host's; CuPy's OutOfMemoryError, a MemoryError too, is
    the GPU's (told by its class name: CuPy need not be importable); anything else is no
    failed allocation."""
    from simcore.memory import out_of_memory_where

    class OutOfMemoryError(MemoryError):
        """The name and base class of CuPy's exception."""

    assert out_of_memory_where(MemoryError("Unable to allocate 8 GiB")) == "host"
    assert out_of_memory_where(OutOfMemoryError("Out of memory allocating 8 GiB")) == "GPU"
    assert out_of_memory_where(ValueError("no")) is None

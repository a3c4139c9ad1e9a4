"""Errors without tracebacks: unreadable or malformed config files, Ctrl-C, bad campaigns
through Snakemake, and `simcore status` of results that do not match their campaign.

Every check runs the real command in a subprocess, as a user would, and asserts the exit
status, that the message is one line naming the file or key and value, that no
traceback is shown and that nothing is written."""

from __future__ import annotations

import errno
import os
import re
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
import yaml
from conftest import default_sigint, gpu_count, run_simcore, small_config


def _png() -> bytes:
    """A real 1 x 1 PNG image (what a user might pass by mistake)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


#: name -> (file content, or None for no file, or "dir" for a directory; words expected)
BAD_FILES = {
    "image.png": (_png(), ["not a text file", "0x89"]),
    "empty.yaml": (b"", ["is empty"]),
    "blank.yaml": (b"\n# only a comment\n", ["is empty"]),
    "syntax.yaml": (b"model: kpz\nL: [16, 32\n", ["not valid YAML at line 3", "expected ','"]),
    "tabs.yaml": (b"model: kpz\n\tL: 16\n", ["not valid YAML at line 2", "'\\t'"]),
    "list.yaml": (b"- model: kpz\n- L: 16\n", ["holds a list", "mapping"]),
    "scalar.yaml": (b"kpz\n", ["holds a string", "mapping"]),
    "missing.yaml": (None, ["cannot read", "No such file"]),
    "folder.yaml": ("dir", ["cannot read", "Is a directory"]),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_run_with_an_unreadable_or_malformed_config(tmp_path: Path, name: str) -> None:
    """One line naming the file and what is wrong, exit status 2, no traceback, nothing
    at --out and no checkpoint."""
    content, words = BAD_FILES[name]
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    before = set(tmp_path.iterdir())
    out = tmp_path / "run.nc"
    res = run_simcore("run", path, "--out", out)
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"simcore: error: {path}: "), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert set(tmp_path.iterdir()) == before  # no run file, checkpoint or temporary file


def test_status_with_a_malformed_campaign_file(tmp_path: Path) -> None:
    """`simcore status --config` reads the campaign file the same way: one line naming it."""
    results = tmp_path / "results" / "c"
    (results / "runs").mkdir(parents=True)
    for name in ("image.png", "list.yaml", "missing.yaml"):
        content, words = BAD_FILES[name]
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        res = run_simcore("status", results, "--config", path)
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f"campaign config {path}: " in lines[0], res.stderr
        assert all(word in lines[0] for word in words), lines[0]


def test_run_with_an_unreadable_checkpoint(tmp_path: Path) -> None:
    """A checkpoint beside --out that is not one (truncated, another file): one line
    naming it, exit status 2, no run file, and the file left for the user to look at."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(small_config(t_max=5, waiting_times=[2])))
    ckpt = tmp_path / "run.nc.ckpt"
    for content in (b"garbage\n", _png()):
        ckpt.write_bytes(content)
        res = run_simcore("run", path, "--out", tmp_path / "run.nc", "--quiet")
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f"checkpoint {ckpt} cannot be read" in lines[0], lines
        assert "delete it to start afresh" in lines[0]
        assert not (tmp_path / "run.nc").exists() and ckpt.read_bytes() == content


def test_a_valid_config_still_runs(tmp_path: Path) -> None:
    """The stricter reading accepts what it accepted before (the control of the above)."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(small_config(t_max=5, waiting_times=[2])))
    res = run_simcore("run", path, "--out", tmp_path / "run.nc", "--quiet")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "run.nc").exists()


# ------------------------------------------------------------------------------ Ctrl-C

#: How Python reports a child that Ctrl-C ended (simcore.interrupt.exit_interrupted): killed
#: by SIGINT, which a shell shows as exit status 130.
KILLED_BY_SIGINT = -signal.SIGINT


@pytest.fixture
def sigint_handled():
    """Python's own Ctrl-C handler in this process for the test (whatever the test run
    inherited), restored after it."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _long_config() -> dict:
    """A job of a few seconds whose progress lines (every 5 %) come well before its end."""
    return small_config(L=64, samples=2, t_max=40000, points_per_decade=40, waiting_times=[10])


def _start(*args: str | Path) -> subprocess.Popen:
    """Start ``simcore ARGS`` as a user would, with its output captured (bytes)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "simcore.cli", *map(str, args)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=default_sigint)  # fmt: skip


def _wait_for_stderr(proc: subprocess.Popen, pattern: str, timeout: float = 120) -> bytes:
    """Read ``proc``'s stderr until a line matches ``pattern``; what was read."""
    fd = proc.stderr.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while not re.search(pattern.encode(), seen):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} on stderr within {timeout} s: {seen!r}"
            if sel.select(left):
                chunk = os.read(fd, 65536)
                assert chunk, f"stderr closed before {pattern!r}: {seen!r}"
                seen += chunk
    return seen


def _finish(proc: subprocess.Popen, seen: bytes) -> tuple[int, str]:
    """Wait for ``proc`` (60 s at most); its exit status and its whole stderr."""
    _, rest = proc.communicate(timeout=60)
    return proc.returncode, (seen + rest).decode()


def _messages(stderr: str) -> list[str]:
    """The lines of stderr that are not progress lines."""
    return [line for line in stderr.splitlines() if line and not line.startswith("simcore run.nc:")]


def test_ctrl_c_checkpoints_and_the_same_command_resumes_bit_identically(
    tmp_path: Path, write_config
) -> None:
    """A real SIGINT while the job steps: exit status 130, one line, no traceback, no run
    file, a checkpoint although checkpoint_interval (300 s) has not elapsed; rerunning the
    command resumes from it to the run file of an uninterrupted run."""
    from conftest import assert_same_run_files, run_and_load

    from simcore.config import validate_run_config
    from simcore.io.checkpoint import checkpoint_path

    cfg = _long_config()
    run_and_load(validate_run_config(dict(cfg)), tmp_path / "reference.nc")
    job = write_config(cfg)
    out = tmp_path / "run.nc"
    proc = _start("run", job, "--out", out)
    seen = _wait_for_stderr(proc, r"simcore run\.nc: \d+% \(sample 1/2")  # stepping
    proc.send_signal(signal.SIGINT)
    status, stderr = _finish(proc, seen)
    assert status == KILLED_BY_SIGINT, stderr
    assert "Traceback" not in stderr
    lines = _messages(stderr)
    assert len(lines) == 1, stderr
    last = lines[0]
    assert re.fullmatch(
        r"simcore: interrupted \(sample \d/2, t = \d+ MCS\); checkpoint run\.nc\.ckpt "
        r"written; run the same command to resume",
        last,
    ), last
    assert not out.exists() and checkpoint_path(out).exists()
    assert not list(tmp_path.glob(".*tmp"))
    resumed = run_simcore("run", job, "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from checkpoint" in resumed.stderr
    assert not checkpoint_path(out).exists()
    assert_same_run_files(out, tmp_path / "reference.nc")


def test_a_second_ctrl_c_stops_at_once(tmp_path: Path, write_config) -> None:
    """Two SIGINTs in a row while the job steps: exit status 130, one line besides the
    progress lines, no traceback, no run file and no half-written checkpoint (a
    checkpoint, if the first Ctrl-C got to write one before the second came, is whole)."""
    from simcore.io.checkpoint import checkpoint_path, load_checkpoint

    job = write_config(_long_config())
    out = tmp_path / "run.nc"
    proc = _start("run", job, "--out", out)
    seen = _wait_for_stderr(proc, r"simcore run\.nc: \d+% \(sample 1/2")
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    status, stderr = _finish(proc, seen)
    assert status == KILLED_BY_SIGINT, stderr
    assert "Traceback" not in stderr
    lines = _messages(stderr)
    assert len(lines) == 1 and lines[0].startswith("simcore: interrupted"), stderr
    assert not out.exists()
    assert not list(tmp_path.glob(".*tmp"))
    if checkpoint_path(out).exists():
        assert "config_hash" in load_checkpoint(checkpoint_path(out))


def test_stop_request_defers_the_first_ctrl_c_and_not_the_second(sigint_handled) -> None:
    """In process: the first SIGINT only sets ``requested``, the second raises
    KeyboardInterrupt, and the handler before is back afterwards."""
    from simcore.interrupt import StopRequest

    before = signal.getsignal(signal.SIGINT)
    with StopRequest() as stop:
        assert not stop.requested
        signal.raise_signal(signal.SIGINT)
        assert stop.requested
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before


def _interrupt_while_reading(
    args: list[str | Path], fifo: Path, group: bool = False
) -> tuple[int, str, str]:
    """Run ``args`` (a command that reads the named pipe ``fifo``) and send it SIGINT while
    it waits for the pipe's data (``group``: to its whole process group, as a terminal's
    Ctrl-C does); its exit status, stdout and stderr."""
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        list(map(str, args)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=group,
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + 120
    while True:  # a writer can open the pipe without blocking once the command has it open
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            assert exc.errno == errno.ENXIO, exc
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the command never opened the pipe"
            time.sleep(0.01)
    try:
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            # The kernel may hand the signal to another thread of the process (numpy's
            # and numba's threads): Python's handler then waits for the main thread,
            # blocked in the read of the pipe.  End of file ends that read, and the
            # pending Ctrl-C takes effect before any other Python code runs.
            os.close(fd)
            fd = -1
            out, err = proc.communicate(timeout=60)
    finally:
        if fd >= 0:
            os.close(fd)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("command", ["status", "run"])
def test_ctrl_c_in_other_commands_is_one_line_and_130(tmp_path: Path, command: str) -> None:
    """Ctrl-C while simcore reads a file (a named pipe nobody writes to): one line, exit
    status 130, no traceback.  Every subcommand shares this handling (simcore.cli.main)."""
    fifo = tmp_path / "input.yaml"
    results = tmp_path / "results" / "c"
    (results / "runs").mkdir(parents=True)
    args = {
        "status": ["status", results, "--config", fifo],
        "run": ["run", fifo, "--out", tmp_path / "run.nc"],
    }[command]
    status, _, stderr = _interrupt_while_reading([sys.executable, "-m", "simcore.cli", *args], fifo)
    assert status == KILLED_BY_SIGINT, stderr
    assert stderr.strip().splitlines() == ["simcore: interrupted"], stderr
    assert not (tmp_path / "run.nc").exists()


def test_ctrl_c_in_an_analysis_cli_is_one_line_and_130(tmp_path: Path) -> None:
    """The analysis CLIs share simcore.interrupt.run_main: Ctrl-C while the paper-figure
    CLI reads its benchmark table (a named pipe)."""
    from simcore.models import registry
    from simcore.testing import simcore_models

    figure = next(n for n, (spec, fig) in registry.paper_figures().items()
                  if len(fig.bench) == 1 and spec.name in simcore_models())  # fmt: skip
    fifo = tmp_path / "table.csv"
    args = [sys.executable, "-m", "analysis.papers", figure, "--out-dir", tmp_path / "f", fifo]
    status, _, stderr = _interrupt_while_reading(args, fifo)
    assert status == KILLED_BY_SIGINT, stderr
    assert stderr.strip().splitlines() == ["python -m analysis.papers: interrupted"], stderr
    assert not (tmp_path / "f").exists() or not any((tmp_path / "f").iterdir())


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ctrl_c_stops_the_shell_script_that_ran_the_command(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group) of a bash script running simcore: simcore
    prints its one line and ends by SIGINT, so bash stops the script too instead of going
    on with the next command (as it would after a plain exit status 130)."""
    fifo = tmp_path / "campaign.yaml"
    results = tmp_path / "results" / "c"
    (results / "runs").mkdir(parents=True)
    script = '"$@"; echo "went on after status $?"'
    args = ["bash", "-c", script, "bash", sys.executable, "-m", "simcore.cli", "status", results,
            "--config", fifo]  # fmt: skip
    status, stdout, stderr = _interrupt_while_reading(args, fifo, group=True)
    assert stderr.strip().splitlines() == ["simcore: interrupted"], stderr
    assert "went on" not in stdout
    assert status == KILLED_BY_SIGINT


# --------------------------------------------------------- bad campaigns through snakemake

ROOT = Path(__file__).resolve().parents[1]


def _campaign(**changes) -> dict:
    """A valid one-point campaign, with ``changes`` (a point's key as ``point_KEY``)."""
    point = {"dim": 1, "L": 32, "t_max": 10}
    for key in [k for k in changes if k.startswith("point_")]:
        point[key.removeprefix("point_")] = changes.pop(key)
    return {"campaign": "bad", "seed": 1, "model": "kpz", "points": [point], **changes}


#: case -> (campaign, the message after "campaign config bad.yaml: ", as a regex)
BAD_CAMPAIGNS = {
    "campaign-wide typo": (
        _campaign(samles=4),
        r"samles: unknown key \(did you mean 'samples'\?\) \(value: 4; .*",
    ),
    "L negative": (
        _campaign(point_L=-1024),
        r"points\[0\]\.L: -1024: must be a power of two >= 32 \(dim 1\)",
    ),
    "p + q > 1": (
        _campaign(point_p=0.7, point_q=0.5),
        r"points\[0\]\.q: 0\.5: p \+ q = 1\.2 must not exceed 1",
    ),
    "point typo": (
        _campaign(point_Lx=64),
        r"points\[0\]\.Lx: unknown key of model kpz \(did you mean 'L'\?\) \(value: 64; .*",
    ),
    "wrong type": (
        _campaign(samples="many"),
        r"samples: 'many': must be an integer >= 1",
    ),
    "wrong type in a point": (
        _campaign(point_samples="many"),
        r"points\[0\]\.samples: 'many': must be an integer >= 1",
    ),
    "unknown model": (
        _campaign(model="kzp"),
        r"model: 'kzp': unknown model; known: .*\(did you mean 'kpz'\?\)",
    ),
    "schema: one of": (
        _campaign(paper_figures=[{"figure": "x", "selct": {"L": 32}}]),
        r"paper_figures\[0\]\.selct: \{'L': 32\}: unknown key \(did you mean 'select'\?\).*",
    ),
}


def _snakemake(workdir: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """``snakemake ARGS`` on the repository's Snakefile, in ``workdir``."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", ROOT / "Snakefile",
           "--directory", workdir, *args]  # fmt: skip
    return subprocess.run(
        list(map(str, cmd)), cwd=workdir, capture_output=True, text=True, timeout=300
    )


def _said(proc: subprocess.CompletedProcess) -> list[str]:
    """The non-empty lines of a command's stdout and stderr."""
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
@pytest.mark.parametrize("case", sorted(BAD_CAMPAIGNS))
def test_bad_campaign_through_snakemake_is_one_line(tmp_path: Path, case: str) -> None:
    """`snakemake -n --configfile bad.yaml`: exit status 2 and one line naming the file,
    the entry, its value and the rule (no traceback, no schema dump), nothing written;
    `simcore status --config bad.yaml` says the same."""
    cfg, expected = BAD_CAMPAIGNS[case]
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = _snakemake(tmp_path, "-n", "--configfile", tmp_path / "bad.yaml")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = _said(proc)
    assert len(lines) == 1, lines
    prefix = "simcore: error: campaign config bad.yaml: "
    assert lines[0].startswith(prefix), lines[0]
    assert re.fullmatch(expected, lines[0].removeprefix(prefix)), lines[0]
    assert not (tmp_path / "results").exists()
    (tmp_path / "results" / "bad" / "runs").mkdir(parents=True)
    status = run_simcore("status", "results/bad", "--config", "bad.yaml", cwd=tmp_path)
    assert status.returncode == 2
    assert status.stderr.splitlines() == lines and status.stdout == ""


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_a_bad_key_given_with_config_names_it(tmp_path: Path) -> None:
    """A value from `--config KEY=VALUE` is named as coming from there too."""
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(_campaign()))
    proc = _snakemake(tmp_path, "-n", "--configfile", tmp_path / "c.yaml", "--config", "seed=-3")
    assert proc.returncode == 2
    assert "simcore: error: campaign config c.yaml + --config: seed: -3: must be >= 0" in _said(
        proc
    )
    assert len(_said(proc)) <= 2  # Snakemake says that --config extends the file


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_a_missing_configfile_fails_before_the_snakefile(tmp_path: Path) -> None:
    """Snakemake reads `--configfile` before the Snakefile runs, so simcore cannot word
    this error: snakemake 9 shows its own traceback, whose last line names the file (see
    README).  What holds: it fails, names the file and writes nothing."""
    proc = _snakemake(tmp_path, "-n", "--configfile", tmp_path / "nope.yaml")
    assert proc.returncode != 0
    assert "nope.yaml" in _said(proc)[-1]
    assert not (tmp_path / "results").exists()


XI_ANALYSES = sorted(str(p) for p in (ROOT / "docs/data/ea3d_xi/analysis").glob("*.nc"))


@pytest.mark.parametrize("command", [["-m", "simcore.cli", "models"],
                                     ["-m", "analysis.ea3d_pt", "crossings", *XI_ANALYSES]],
                         ids=["simcore", "analysis"])  # fmt: skip
def test_output_closed_by_its_reader_ends_quietly(command: list[str]) -> None:
    """``simcore ... | head`` and ``python -m analysis... | head``: the reader is gone (here
    from the start: the pipe's read end is closed), so every write fails; the command ends
    with status 141 (128 + SIGPIPE) and nothing on stderr, no traceback."""
    import os

    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run([sys.executable, *command], stdout=w, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=ROOT)  # fmt: skip
    finally:
        os.close(w)
    assert proc.returncode == 141 and proc.stderr == "", proc.stderr


#: A small GPU benchmark of each kernel (their defaults put them on the GPU).
GPU_BENCHES = {
    "dd": ["--scheme", "DTrDB", "--L", "256", "--mcs", "1", "--repeats", "1"],
    "ea3d": ["--backend", "gpu", "--L", "16", "--k", "1", "--mcs", "1", "--repeats", "1"],
    "kmc2d": ["--backend", "gpu", "--L", "64", "--phi", "0", "--repeats", "1"],
    "fcc": ["--L", "64", "--mcs", "1", "--cpu-mcs", "1", "--repeats", "1"],
    "mgpu": ["--gpus", "1", "--L", "32", "--k", "1", "--mcs", "1", "--repeats", "1"],
}


@pytest.mark.skipif(gpu_count() > 0, reason="checks the message where no GPU is usable")
@pytest.mark.parametrize("kernel", sorted(GPU_BENCHES))
def test_gpu_bench_without_a_gpu_is_one_line(tmp_path: Path, kernel: str) -> None:
    """``simcore bench KERNEL`` on the GPU where CuPy or a GPU is missing: one line naming
    the backend and what is needed, exit status 2, no traceback, no table written."""
    out = tmp_path / "bench.csv"
    res = run_simcore("bench", kernel, *GPU_BENCHES[kernel], "--csv", out)
    err = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(err) == 1, res.stderr
    assert "config key 'backend' = 'gpu'" in err[0] and "CUDA GPU" in err[0]
    assert not out.exists()

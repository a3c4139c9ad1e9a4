"""GPU placement: every GPU job of a host claims a card no other job holds
(simcore.backends.placement).

Without a GPU (CI) the claims are tested between real processes on lists of made-up
cards, in a lock folder of the test's own: distinct cards for concurrent jobs, all or
none for a job of several cards, waiting until a card is freed, a killed holder's card
freed by the kernel, locks that follow the UUID whatever the ordinal.  No test sleeps:
each waits on a line its child prints.  With a GPU (``pytest -m gpu``): the run file names
its card by UUID and PCI bus id, a job waits while every card is held and gives up at
its stop time, and on a host of two or more cards two jobs run on different cards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import xarray as xr
import yaml
from conftest import default_sigint, gpu_count

from simcore.backends import placement
from simcore.backends.placement import GPU
from simcore.checks import ConfigError

#: A child that claims cards from a list given as JSON, prints the UUIDs it got (or the
#: one-line error), and holds them until its stdin closes or says "release".
CHILD = r"""
import json, sys
from simcore.backends import placement
from simcore.backends.placement import GPU
from simcore.checks import ConfigError
from simcore.checks import ConfigError
gpus = [GPU(**g) for g in json.loads(sys.argv[1])]
count, wait = int(sys.argv[2]), sys.argv[3] == "wait"
say = lambda line: print("WAIT " + line, flush=True)
try:
    held = placement.claim(gpus, count, wait=wait, on_wait=say)
except ConfigError as exc:
    print("REFUSED " + str(exc), flush=True)
    sys.exit(2)
print("GOT " + " ".join(g.uuid for g in held.gpus), flush=True)
if sys.stdin.readline().strip() == "exit":  # keep the cards until the process ends
    held.hold_until_exit()
    sys.exit(0)
held.release()
print("RELEASED", flush=True)
"""


def fake_gpus(n: int, first: int = 0) -> list[GPU]:
    """``n`` made-up cards with distinct UUIDs and bus ids."""
    return [GPU(i, f"GPU-fake-{first + i:04d}", f"00000000:{0x18 + first + i:02X}:00.0", "Fake")
            for i in range(n)]  # fmt: skip


class Child:
    """A claiming process: start it, read its lines, tell it to release."""

    def __init__(self, gpus: list[GPU], count: int, lock_dir: Path, wait: bool = True):
        env = {**os.environ, placement.LOCK_DIR_ENV: str(lock_dir)}
        arg = json.dumps([g.__dict__ for g in gpus])
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, arg, str(count), "wait" if wait else "now"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip

    def line(self) -> str:
        """The child's next line (blocks until it prints one)."""
        return self.proc.stdout.readline().strip()

    def got(self) -> list[str]:
        """The UUIDs the child claimed (reads lines until its GOT line)."""
        line = self.line()
        while line.startswith("WAIT "):
            line = self.line()
        assert line.startswith("GOT "), line
        return line.split()[1:]

    def release(self) -> None:
        """Tell the child to release and wait until it has exited."""
        self.proc.stdin.write("release\n")
        self.proc.stdin.flush()
        assert self.line() == "RELEASED"
        self.proc.wait(timeout=60)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def children():
    """Children started by a test, killed at its end whatever happened."""
    started: list[Child] = []

    def start(*args, **kwargs) -> Child:
        child = Child(*args, **kwargs)
        started.append(child)
        return child

    yield start
    for child in started:
        child.close()


def test_concurrent_jobs_take_distinct_cards(tmp_path, children) -> None:
    """Four jobs started at once on four cards hold four different cards; a fifth that
    will not wait is refused in one line naming the lock folder; once one job releases,
    the fifth gets exactly that card."""
    gpus = fake_gpus(4)
    jobs = [children(gpus, 1, tmp_path) for _ in range(4)]
    held = [job.got()[0] for job in jobs]
    assert sorted(held) == sorted(g.uuid for g in gpus)
    late = children(gpus, 1, tmp_path, wait=False)
    refusal = late.line()
    assert refusal.startswith("REFUSED ") and "no free GPU" in refusal and str(tmp_path) in refusal
    assert late.proc.wait(timeout=60) == 2
    jobs[2].release()
    assert children(gpus, 1, tmp_path, wait=False).got() == [held[2]]


def test_a_job_of_several_cards_takes_all_or_none(tmp_path, children) -> None:
    """With one of two cards held, a job asking for two gets none and leaves the free one
    unclaimed (another job can take it); with both free it gets both."""
    gpus = fake_gpus(2)
    first = children(gpus[:1], 1, tmp_path)
    assert first.got() == [gpus[0].uuid]
    pair = children(gpus, 2, tmp_path, wait=False)
    assert pair.line().startswith("REFUSED ")
    other = children(gpus, 1, tmp_path, wait=False)
    assert other.got() == [gpus[1].uuid]
    first.release()
    other.release()
    assert sorted(children(gpus, 2, tmp_path, wait=False).got()) == [g.uuid for g in gpus]


def test_a_waiting_job_takes_the_card_once_it_is_freed(tmp_path, children) -> None:
    """A job that finds the only card held says once that it waits, and runs on that card
    as soon as the holder releases it."""
    gpus = fake_gpus(1)
    holder = children(gpus, 1, tmp_path)
    assert holder.got() == [gpus[0].uuid]
    waiter = children(gpus, 1, tmp_path)
    line = waiter.line()
    assert line.startswith("WAIT waiting for a GPU") and "held by other simcore jobs" in line
    holder.release()
    assert waiter.got() == [gpus[0].uuid]


def test_a_killed_holder_frees_its_card(tmp_path, children) -> None:
    """A job killed with SIGKILL (no clean-up at all) leaves no stale claim: the kernel
    drops its lock, and the next job gets the card at once."""
    gpus = fake_gpus(1)
    holder = children(gpus, 1, tmp_path)
    assert holder.got() == [gpus[0].uuid]
    holder.proc.send_signal(signal.SIGKILL)
    holder.proc.wait(timeout=60)
    assert children(gpus, 1, tmp_path, wait=False).got() == [gpus[0].uuid]


def test_a_card_held_until_exit_is_free_once_its_holder_has_exited(tmp_path, children) -> None:
    """``simcore run`` keeps its card until its process ends (so that the next job never
    meets its CUDA context): the card stays taken after the job's work, and is free as
    soon as the process has exited."""
    gpus = fake_gpus(1)
    holder = children(gpus, 1, tmp_path)
    assert holder.got() == [gpus[0].uuid]
    holder.proc.stdin.write("exit\n")
    holder.proc.stdin.flush()
    assert holder.proc.wait(timeout=60) == 0
    assert children(gpus, 1, tmp_path, wait=False).got() == [gpus[0].uuid]


def test_holding_until_exit_keeps_the_card_taken(tmp_path) -> None:
    """In the holding process itself, a card held until exit is still taken: another
    claim of it in this process (another open file) is refused."""
    gpus = fake_gpus(1)
    placement.claim(gpus, 1, tmp_path).hold_until_exit()
    with pytest.raises(ConfigError, match="no free GPU"):
        placement.claim(gpus, 1, tmp_path, wait=False)
    for fds in placement._HELD:  # this test's claim, let go so that no other test meets it
        for fd in fds:
            os.close(fd)
    placement._HELD.clear()


def test_locks_follow_the_uuid_not_the_ordinal(tmp_path, children) -> None:
    """Two jobs that see the same card under different ordinals (different
    CUDA_VISIBLE_DEVICES) meet on one lock: the second cannot take it."""
    card = fake_gpus(2)[1]  # ordinal 1 for a job that sees both cards
    seen_alone = GPU(0, card.uuid, card.pci_bus_id, card.name)  # ordinal 0 for another
    first = children([card], 1, tmp_path)
    assert first.got() == [card.uuid]
    assert children([seen_alone], 1, tmp_path, wait=False).line().startswith("REFUSED ")


def test_asking_for_more_cards_than_visible_is_refused_at_once(tmp_path) -> None:
    """Waiting for more cards than a process sees would never end: refused in one line
    naming the count and the cards seen."""
    with pytest.raises(ConfigError, match=r"more GPUs than this process sees \(2"):
        placement.claim(fake_gpus(2), 3, tmp_path)


def test_a_wait_ends_when_the_job_must_stop(tmp_path, children) -> None:
    """While every card is held, a claim gives up as soon as its stop condition holds
    (the job's stop time, or Ctrl-C), instead of waiting for ever."""
    gpus = fake_gpus(1)
    assert children(gpus, 1, tmp_path).got() == [gpus[0].uuid]
    looks = []
    with pytest.raises(placement.WaitStopped, match="waiting for a GPU"):
        placement.claim(gpus, 1, tmp_path, should_stop=lambda: looks.append(1) or len(looks) > 1)
    assert len(looks) == 2


# -- on a GPU ---------------------------------------------------------------------------


def _gpu_job(tmp_path: Path, name: str, t_max: int = 20, **extra) -> Path:
    cfg = {"model": "kpz", "dim": 2, "L": 256, "scheme": "DTrDT", "backend": "gpu",
           "samples": 2, "seed": 5, "t_max": t_max, "waiting_times": [5], **extra}  # fmt: skip
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _simcore(*args, env: dict | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "simcore.cli", *map(str, args)],
                            env=env, text=True, preexec_fn=default_sigint, **popen)  # fmt: skip


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a CUDA GPU")
def test_the_run_file_names_its_card(tmp_path) -> None:
    """A GPU job records the UUID and PCI bus id of the card it ran on, one of the cards
    CUDA shows, beside the card's name."""
    from simcore.backends.cuda import visible_gpus

    env = {**os.environ, placement.LOCK_DIR_ENV: str(tmp_path / "locks")}
    job = _gpu_job(tmp_path, "job")
    proc = _simcore("run", job, "--out", tmp_path / "run.nc", env=env, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    cards = {g.uuid: g for g in visible_gpus()}
    with xr.open_dataset(tmp_path / "run.nc") as ds:
        card = cards[ds.attrs["device_uuid"]]
        assert ds.attrs["device_pci_bus_id"] == card.pci_bus_id
        assert ds.attrs["device"] == card.name
    assert f"on GPU {card.ordinal} ({card.name}, {card.uuid}" in err


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a CUDA GPU")
def test_a_job_waits_while_every_card_is_held_and_stops_at_its_stop_time(tmp_path) -> None:
    """With every card held by this test, a GPU job says that it waits, and at its stop
    time ends with exit status 3 and nothing written (the same command resumes later)."""
    from simcore.backends.cuda import visible_gpus

    locks = tmp_path / "locks"
    gpus = visible_gpus()
    with placement.claimed(gpus, len(gpus), directory=locks):
        env = {**os.environ, placement.LOCK_DIR_ENV: str(locks)}
        out = tmp_path / "run.nc"
        stop_at = time.time() + 3
        proc = _simcore("run", _gpu_job(tmp_path, "job"), "--out", out, "--stop-at", stop_at,
                        env=env, stderr=subprocess.PIPE)  # fmt: skip
        _, err = proc.communicate(timeout=600)
    assert proc.returncode == 3, err
    lines = err.strip().splitlines()
    assert lines[0].startswith("simcore: waiting for a GPU"), lines
    assert "stopped while waiting for a GPU until the wall limit; nothing written" in lines[-1]
    assert not list(tmp_path.glob("run.nc*"))


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 2, reason="needs two CUDA GPUs")
def test_two_jobs_at_once_run_on_different_cards(tmp_path) -> None:
    """The second of two GPU jobs started while the first runs takes another card (the
    first is still running when the second names its card)."""
    env = {**os.environ, placement.LOCK_DIR_ENV: str(tmp_path / "locks")}
    first = _simcore("run", _gpu_job(tmp_path, "a", t_max=10**6), "--out", tmp_path / "a.nc",
                     env=env, stderr=subprocess.PIPE)  # fmt: skip
    try:
        first_line = first.stderr.readline()
        assert first_line.startswith("simcore: on GPU"), first_line
        second = _simcore("run", _gpu_job(tmp_path, "b"), "--out", tmp_path / "b.nc",
                          env=env, stderr=subprocess.PIPE)  # fmt: skip
        second_line = second.stderr.readline()
        assert first.poll() is None  # still running, still holding its card
        assert second_line.startswith("simcore: on GPU") and second_line != first_line
        assert second.wait(timeout=600) == 0
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=600)
    with xr.open_dataset(tmp_path / "b.nc") as ds:
        assert ds.attrs["device_uuid"] not in first_line and ds.attrs["device_uuid"] in second_line


# -- the published run on four H100s (docs/data/gpu_placement_h100x4) --------------------

PUBLISHED = Path(__file__).resolve().parents[1] / "docs" / "data" / "gpu_placement_h100x4"


def _published_walls() -> dict[str, float]:
    """Wall time of each phase, from the report's table."""
    walls = {}
    for line in (PUBLISHED / "report.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and cells[0] in ("gpu1", "gpu4", "two_campaigns"):
            walls[cells[0]] = float(cells[2])
    return walls


def test_the_published_four_gpu_campaigns_used_every_card_without_collisions() -> None:
    """The numbers README and BENCHMARKS quote from benchmarks/gpu_placement.py on four
    H100s, recomputed from its files: with gpu=4 each card ran 4 of the 16 jobs, two
    campaigns at once ran 8 each; no card ran two jobs at once, by the run files'
    intervals (one-second stamps) nor in any nvidia-smi sample; gpu=4 was 3.74 times
    faster than gpu=1 (target 0.9 x 4)."""
    import csv
    import datetime as dt
    from collections import Counter, defaultdict

    with (PUBLISHED / "runs.csv").open() as fh:
        runs = list(csv.DictReader(fh))
    per_card = {ph: Counter(r["device_uuid"] for r in runs if r["phase"] == ph)
                for ph in ("gpu1", "gpu4", "two_campaigns")}  # fmt: skip
    assert sorted(per_card["gpu1"].values()) == [16]
    assert sorted(per_card["gpu4"].values()) == [4, 4, 4, 4]
    assert sorted(per_card["two_campaigns"].values()) == [8, 8, 8, 8]
    for phase in per_card:
        spans = defaultdict(list)
        for r in (r for r in runs if r["phase"] == phase):
            start, end = (dt.datetime.fromisoformat(r[k]).timestamp() for k in ("start", "end"))
            spans[r["device_uuid"]].append((start, end))
        for card in spans.values():
            card.sort()
            assert all(b[0] >= a[1] - 1.0 for a, b in zip(card, card[1:], strict=False))
    with (PUBLISHED / "nvidia_smi.csv").open() as fh:
        samples = list(csv.DictReader(fh))
    on_card = Counter((s["time"], s["uuid"]) for s in samples if s["phase"] != "idle")
    assert len(on_card) > 300 and max(on_card.values()) == 1
    busy = Counter(t for t, _ in on_card)
    assert max(busy.values()) == 4  # all four cards at work at once
    walls = _published_walls()
    assert round(walls["gpu1"] / walls["gpu4"], 2) == 3.74 >= 0.9 * 4


def test_a_uuid_with_a_zero_byte_comes_from_nvidia_smi() -> None:
    """CuPy returns cudaDeviceProp.uuid as a C string, cut at its first zero byte (seen on
    an H100 whose UUID is GPU-161c84b2-9c31-35e2-df00-cb0f1e2c0399): such a UUID is not
    made up from the bytes left, and nvidia-smi's line for the same PCI bus id gives it."""
    from simcore.backends.cuda import _uuid_text, smi_uuids

    full = bytes.fromhex("161c84b29c3135e2df00cb0f1e2c0399")
    assert _uuid_text(full) == "GPU-161c84b2-9c31-35e2-df00-cb0f1e2c0399"
    assert _uuid_text(full[:9]) is None
    smi = ("00000000:00:07.0, GPU-161c84b2-9c31-35e2-df00-cb0f1e2c0399\n"
           "00000000:00:08.0, GPU-df3ccdec-e3c5-e3b8-bc96-f9a4747cfd0d\n")  # fmt: skip
    assert smi_uuids(smi)["00000000:00:07.0"] == "GPU-161c84b2-9c31-35e2-df00-cb0f1e2c0399"

"""Every GPU of a host in one campaign: the evidence, measured in one go.

On a host with N >= 2 GPUs, from the repository root, with simcore installed and
Snakemake importable:

    python3 benchmarks/gpu_placement.py OUTDIR [--jobs-per-gpu 4] [--L 4096] ...

1. a campaign of 4 N equal GPU jobs (kpz DTrDB) with ``--resources gpu=1``;
2. the same campaign, afresh, with ``--resources gpu=N``;
3. two campaigns of 4 N jobs each, started at once, each with ``--resources gpu=N``.

Throughout, ``nvidia-smi`` is sampled twice a second (which process holds a context on
which card).  Afterwards the run files say on which card each job ran (``device_uuid``)
and when (their history lines); the report gives the wall times, the speed-up of gpu=N
over gpu=1 (target: at least 0.9 N), the jobs per card, and two collision checks: no card
ever held two jobs at once, by the run files' intervals and by the samples.  Writes
OUTDIR/report.md, OUTDIR/runs.csv and OUTDIR/nvidia_smi.csv.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import xarray as xr
import yaml

ROOT = Path(__file__).resolve().parents[1]


def campaign(name: str, jobs: int, args: argparse.Namespace) -> dict:
    """``jobs`` equal GPU jobs of one kpz DTrDB point."""
    return {
        "campaign": name, "seed": 2028, "model": "kpz", "t_max": args.t_max,
        "points_per_decade": 5, "samples": jobs * args.samples, "samples_per_job": args.samples,
        "points": [{"dim": 2, "L": args.L, "scheme": "DTrDB", "backend": "gpu",
                    "waiting_times": [100]}],
    }  # fmt: skip


def run_files(config: Path) -> list[str]:
    """The run files of a campaign (its simulate jobs), relative to its work folder."""
    from simcore.campaign import load_campaign

    camp = load_campaign(config)
    return [f"results/{camp.name}/runs/{point.name}/b{block}.nc"
            for point in camp.points for block in point.blocks]  # fmt: skip


def snakemake(workdir: Path, config: Path, gpus: int, log: Path) -> subprocess.Popen:
    """The default profile's command for ``config`` in ``workdir``, gpu=``gpus``; the
    targets are the run files (the simulate jobs alone: the GPU work)."""
    workdir.mkdir(parents=True, exist_ok=True)
    # the targets first: --resources and --configfile take every word after them
    cmd = [sys.executable, "-m", "snakemake", *run_files(config),
           "--snakefile", str(ROOT / "Snakefile"),
           "--workflow-profile", str(ROOT / "workflow/profiles/default"),
           "--directory", str(workdir), "--configfile", str(config),
           "--resources", f"gpu={gpus}"]  # fmt: skip
    return subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)


class Sampler(threading.Thread):
    """``nvidia-smi`` twice a second: (time, phase, pid, card UUID) of every compute
    process, and the utilisation of every card."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.phase = "idle"
        self.rows: list[dict] = []
        self.util: list[dict] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            now, phase = time.time(), self.phase
            apps = subprocess.run(
                ["nvidia-smi", "--query-compute-apps=pid,gpu_uuid,used_memory",
                 "--format=csv,noheader,nounits"], capture_output=True, text=True,
            ).stdout  # fmt: skip
            for line in apps.strip().splitlines():
                pid, uuid, mem = (x.strip() for x in line.split(","))
                self.rows.append({"time": now, "phase": phase, "pid": pid, "uuid": uuid,
                                  "used_mib": mem})  # fmt: skip
            gpus = subprocess.run(
                ["nvidia-smi", "--query-gpu=uuid,utilization.gpu", "--format=csv,noheader,nounits"],
                capture_output=True, text=True,
            ).stdout  # fmt: skip
            for line in gpus.strip().splitlines():
                uuid, util = (x.strip() for x in line.split(","))
                self.util.append({"time": now, "phase": phase, "uuid": uuid, "util": util})
            self.stop.wait(0.5)


def runs_of(workdir: Path, campaign_name: str, phase: str) -> list[dict]:
    """Card and interval of every run file of a campaign."""
    rows = []
    for path in sorted((workdir / "results" / campaign_name / "runs").rglob("*.nc")):
        with xr.open_dataset(path) as ds:
            first = str(ds.attrs["history"]).splitlines()[0]
            start, _, rest = first.partition(" to ")
            end = rest.split(" ", 1)[0]
            rows.append({
                "phase": phase, "campaign": campaign_name, "run": path.name,
                "device_uuid": ds.attrs["device_uuid"],
                "device_pci_bus_id": ds.attrs["device_pci_bus_id"],
                "device": ds.attrs["device"], "start": start, "end": end,
                "wall_seconds": float(ds.attrs["wall_seconds"]),
            })  # fmt: skip
    return rows


def overlaps(rows: list[dict]) -> list[tuple[str, str, str]]:
    """Pairs of runs on one card whose intervals overlap by more than the one-second
    resolution of the history's time stamps."""
    by_card: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for r in rows:
        t0 = dt.datetime.fromisoformat(r["start"]).timestamp()
        t1 = dt.datetime.fromisoformat(r["end"]).timestamp()
        by_card[r["device_uuid"]].append((t0, t1, f"{r['campaign']}/{r['run']}"))
    bad = []
    for card, spans in by_card.items():
        spans.sort()
        last_end, last = spans[0][1], spans[0][2]
        for b0, b1, b in spans[1:]:
            if b0 < last_end - 1.0:
                bad.append((card, last, b))
            if b1 > last_end:
                last_end, last = b1, b
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs-per-gpu", type=int, default=4)
    ap.add_argument("--L", type=int, default=4096)
    ap.add_argument("--samples", type=int, default=8, help="samples per job")
    ap.add_argument("--t-max", type=int, default=20000, help="MCS of each job")
    args = ap.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    cards = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,pci.bus_id,name",
                            "--format=csv,noheader"], capture_output=True, text=True,
                           check=True).stdout.strip().splitlines()  # fmt: skip
    n = len(cards)
    jobs = args.jobs_per_gpu * n
    configs = {}
    for name in ("placement_a", "placement_b", "placement_c"):
        configs[name] = out / f"{name}.yaml"
        configs[name].write_text(yaml.safe_dump(campaign(name, jobs, args), sort_keys=False))
    # one job first, so that no phase pays for compiling the kernel
    warm = campaign("placement_warmup", 1, args) | {"t_max": 200}
    (out / "warmup.yaml").write_text(yaml.safe_dump(warm, sort_keys=False))
    warmup = snakemake(out / "warmup", out / "warmup.yaml", 1, out / "warmup.log").wait()
    sampler = Sampler()
    sampler.start()
    walls: dict[str, float] = {}
    statuses: dict[str, int] = {}
    rows: list[dict] = []

    def phase(label: str, runs: list[tuple[str, int]]) -> None:
        sampler.phase = label
        start = time.monotonic()
        procs = [(name, snakemake(out / label / name, configs[name], gpus,
                                  out / f"{label}_{name}.log")) for name, gpus in runs]  # fmt: skip
        waiting = dict(procs)
        while waiting:  # each campaign's own wall time, whichever ends first
            for name, proc in list(waiting.items()):
                if proc.poll() is not None:
                    statuses[f"{label}/{name}"] = proc.returncode
                    walls[f"{label}/{name}"] = time.monotonic() - start
                    del waiting[name]
            time.sleep(0.2)
        for name, _ in runs:
            rows.extend(runs_of(out / label / name, name, label))
        walls[label] = time.monotonic() - start
        sampler.phase = "idle"

    phase("gpu1", [("placement_a", 1)])
    phase(f"gpu{n}", [("placement_a", n)])
    phase("two_campaigns", [("placement_b", n), ("placement_c", n)])
    sampler.stop.set()
    sampler.join()

    with (out / "runs.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with (out / "nvidia_smi.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["time", "phase", "pid", "uuid", "used_mib"])
        w.writeheader()
        w.writerows(sampler.rows)

    lines = [f"# Every GPU of the host: {n} x {cards[0].split(', ')[-1]}", "",
             f"commit {os.environ.get('SIMCORE_COMMIT', 'see git')}; campaign: {jobs} jobs of "
             f"kpz DTrDB L = {args.L}, {args.samples} samples, t_max = {args.t_max} MCS", "",
             "cards: " + "; ".join(c for c in cards), "",
             "| phase | snakemake exit | wall [s] | runs | jobs per card | max processes on one "
             "card at once (nvidia-smi) | cards busy at once (max) | overlaps by run files |",
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for label in ("gpu1", f"gpu{n}", "two_campaigns"):
        mine = [r for r in rows if r["phase"] == label]
        per_card = Counter(r["device_uuid"][:12] for r in mine)
        samples = [s for s in sampler.rows if s["phase"] == label]
        by_time: dict[float, Counter] = defaultdict(Counter)
        for s in samples:
            by_time[s["time"]][s["uuid"]] += 1
        most = max((max(c.values()) for c in by_time.values()), default=0)
        busy = max((len(c) for c in by_time.values()), default=0)
        codes = ",".join(str(v) for k, v in statuses.items() if k.startswith(label + "/"))
        lines.append(f"| {label} | {codes} | {walls[label]:.1f} | {len(mine)} | "
                     f"{dict(sorted(per_card.items()))} | {most} | {busy} | "
                     f"{len(overlaps(mine))} |")  # fmt: skip
    speedup = walls["gpu1"] / walls[f"gpu{n}"]
    lines += ["", f"speed-up of gpu={n} over gpu=1: {speedup:.2f} (target >= {0.9 * n:.1f})"]
    both = walls["two_campaigns/placement_b"], walls["two_campaigns/placement_c"]
    lines += [f"two campaigns at once: {both[0]:.1f} s and {both[1]:.1f} s "
              f"({2 * jobs} jobs on {n} cards)"]  # fmt: skip
    text = "\n".join(lines) + "\n"
    (out / "report.md").write_text(text)
    print(text)
    return 0 if warmup == 0 and all(v == 0 for v in statuses.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

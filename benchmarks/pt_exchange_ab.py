"""Same-run A/B of the host's replica-exchange step of ea3d_pt (``pt_exchange.exchange_step``)
at two commits, on the same energies, with the decisions checked equal.

    python benchmarks/pt_exchange_ab.py BASE_COMMIT [--samples 2048] [--n-T 28] [--L 16]
        [--steps 30]

Loads ``simcore/models/ea3d/pt_exchange.py`` of BASE_COMMIT (``git show``) beside the
checkout's, runs ``--steps`` exchange steps of each on energies drawn like a campaign's
(per temperature about e V with a spread of 30, e from -1.73 to -1.45, geometric
ladder 0.95..1.75), and prints the median milliseconds per step of each (the first 3
steps, compilation, left out) after asserting that energies, masks, walkers, trip
states, round trips and acceptances are equal after every step.  Threads: numba's
(``NUMBA_NUM_THREADS``).  Either version's signature is accepted: betas (before the
acceptance tables) or ``exchange_tables(betas)``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODULE = "simcore/models/ea3d/pt_exchange.py"


def load_at(commit: str, folder: Path):
    """The module at ``commit``, imported under a name of its own, numba cache off."""
    text = subprocess.run(["git", "show", f"{commit}:{MODULE}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    path = folder / "pt_exchange_base.py"
    path.write_text(text.replace("cache=True", "cache=False"))
    spec = importlib.util.spec_from_file_location("pt_exchange_base", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def energies(n_T: int, n: int, L: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    V = L**3
    betas = 1.0 / np.geomspace(0.95, 1.75, n_T)
    e = np.linspace(-1.73, -1.45, n_T)
    E = np.empty((2 * n_T, n), dtype=np.int64)
    for i in range(n_T):
        for r in range(2):
            E[2 * i + r] = 2 * np.round((e[i] * V + rng.normal(0, 30, n)) / 2).astype(np.int64)
    return betas, E


def state(n_T: int, n: int) -> dict[str, np.ndarray]:
    return {
        "masks": np.zeros((2, n_T - 1, n // 64), np.uint64),
        "walker": np.repeat(np.arange(2 * n_T) // 2, n).reshape(2 * n_T, n),
        "trip": np.zeros((2, n_T, n), np.int8),
        "round_trips": np.zeros((n, 2, n_T), np.int64),
        "accepted": np.zeros((n, n_T - 1), np.int64),
    }


def step(mod, betas, E, st, m) -> tuple[np.ndarray, float]:
    head = (*mod.exchange_tables(betas),) if hasattr(mod, "exchange_tables") else (betas,)
    E = E.copy()
    t0 = time.perf_counter()
    mod.exchange_step(E, *head, st["masks"], st["walker"], st["trip"], st["round_trips"],
                      st["accepted"], m, 0, 11, 22)  # fmt: skip
    return E, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit to compare the checkout with")
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--n-T", type=int, default=28)
    parser.add_argument("--L", type=int, default=16)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from simcore.models.ea3d import pt_exchange as head

    with tempfile.TemporaryDirectory() as tmp:
        base = load_at(args.base, Path(tmp))
        betas, E = energies(args.n_T, args.samples, args.L)
        sa, sb = state(args.n_T, args.samples), state(args.n_T, args.samples)
        ta, tb = [], []
        for m in range(args.steps):
            Ea, a = step(base, betas, E, sa, m)
            Eb, b = step(head, betas, E, sb, m)
            assert np.array_equal(Ea, Eb), f"energies differ after step {m}"
            for key in sa:
                assert np.array_equal(sa[key], sb[key]), f"{key} differs after step {m}"
            ta.append(a)
            tb.append(b)
    ms = [1e3 * statistics.median(t[3:]) for t in (ta, tb)]
    print(
        f"samples {args.samples}, n_T {args.n_T}: {args.base} {ms[0]:.2f} ms, checkout "
        f"{ms[1]:.2f} ms per exchange step ({ms[0] / ms[1]:.2f}x); decisions equal"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

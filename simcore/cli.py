"""The ``simcore`` command: run one job, show a campaign's progress, benchmark a kernel,
list the models.  No model is named here: models and their benchmark kernels come from
the registry (:mod:`simcore.models.registry`)."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import TYPE_CHECKING

from simcore.checks import ConfigError, check_stop_time, check_wall_seconds
from simcore.interrupt import EXIT_INTERRUPTED, exit_interrupted, guarded_status
from simcore.walltime import STOP_AT_ENV, stop_at_from_env

if TYPE_CHECKING:
    from simcore.benchreport import CampaignJobsRequest

EXAMPLE_CONFIG = """example run config (YAML; `simcore models NAME` lists a model's keys):
  model: kpz          # octahedron model (dim 2) / single-step model (dim 1)
  dim: 2
  L: 256              # power of two
  p: 1.0              # deposition probability
  q: 0.0              # removal probability
  scheme: sequential
  backend: cpu
  samples: 8
  seed: 12345         # the campaign derives one per job
  t_max: 1000         # MCS
  waiting_times: [10, 30, 100]
"""


def version_text() -> str:
    """What ``simcore --version`` prints: the version, and the git commit of the source
    tree where simcore runs from a checkout (``-dirty`` when it has changes), the same
    strings every run file records, so a user can match a file to the code that wrote it."""
    from simcore.io.provenance import git_commit, simcore_version

    commit = git_commit()
    return f"simcore {simcore_version()}" + (f" (git commit {commit})" if commit else "")


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit 0.  argparse's own version action
    takes the text when the parser is built; this asks git only when the option is given."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: str):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_text())
        parser.exit()


def _parser(with_kernels: bool) -> argparse.ArgumentParser:
    """The argument parser; ``with_kernels`` adds one subcommand per benchmark kernel (it
    imports their modules, so only ``simcore bench`` pays for it)."""
    ap = argparse.ArgumentParser(
        prog="simcore",
        description="Lattice Monte Carlo engine: run one job of a campaign, show a campaign's "
        "progress, benchmark a kernel, list the models.",
    )
    ap.add_argument(
        "--version", action=_VersionAction, help="print the simcore version (and git commit)"
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run(sub)
    _add_status(sub)
    _add_models(sub)
    _add_bench(sub, with_kernels)
    return ap


def _add_run(sub: argparse._SubParsersAction) -> None:
    """``simcore run CONFIG --out FILE``."""
    run = sub.add_parser(
        "run",
        help="run one job (a block of samples) and write a netCDF file",
        description="Run the job described by CONFIG and write its dataset to --out. "
        "A checkpoint OUT.ckpt is written during long runs; rerunning the same "
        "command resumes from it bit-identically. Ctrl-C stops after the current step "
        "with a checkpoint (a second Ctrl-C stops at once). Exit status: 0 done, 2 bad "
        "input, 3 stopped by --max-wall or --stop-at with a checkpoint (run the same "
        "command to resume), 130 interrupted.",
        epilog=EXAMPLE_CONFIG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("config", help="run config (YAML)")
    run.add_argument("--out", required=True, help="output netCDF file (written atomically)")
    run.add_argument(
        "--max-wall",
        type=float,
        default=None,
        metavar="SECONDS",
        help="checkpoint and stop (exit 3) after this much wall time (checked after each "
        "step: at least one step is made)",
    )
    run.add_argument(
        "--stop-at",
        type=float,
        default=None,
        metavar="UNIX_TIME",
        help="checkpoint and stop (exit 3) after the first step that ends at or after this "
        "time, in seconds since the epoch (the end of a batch allocation); default "
        f"${STOP_AT_ENV}, which a campaign with max_wall sets for its jobs",
    )
    run.add_argument("--quiet", action="store_true", help="no progress output")


def _add_status(sub: argparse._SubParsersAction) -> None:
    """``simcore status RESULTS [--config CAMPAIGN.yaml]``."""
    status = sub.add_parser(
        "status",
        help="progress of a campaign per parameter point",
        description="Samples and runs done and planned, and wall time spent, per point of "
        "a campaign's results directory (results/<campaign>).",
    )
    status.add_argument("results", help="results directory of one campaign, results/<campaign>")
    status.add_argument(
        "--config",
        metavar="CAMPAIGN.yaml",
        help="the campaign file, for the planned runs (default: the jobs started so far); "
        "runs that do not fit the plan (other points, blocks or job configs) are not counted "
        "but reported, one warning line per kind",
    )


def _add_models(sub: argparse._SubParsersAction) -> None:
    """``simcore models [NAME] [--figures]``."""
    models = sub.add_parser(
        "models",
        help="the installed models, their run-config keys and figures",
        description="List the models registered under the simcore.models entry points; with "
        "NAME, that model's run-config keys; with --figures, the papers' comparison figures "
        "a campaign can draw.",
    )
    models.add_argument("name", nargs="?", help="a model: show its keys")
    models.add_argument("--figures", action="store_true", help="list the paper figures")


def _add_bench(sub: argparse._SubParsersAction, with_kernels: bool) -> None:
    """``simcore bench KERNEL ...``: one subcommand per kernel of the registry, with
    ``with_kernels`` (else none: only ``simcore bench`` imports the kernels' modules)."""
    bench = sub.add_parser(
        "bench",
        help="measure a kernel's speed (simcore bench KERNEL --help for its options)",
        description="Benchmark a kernel and print a markdown table with machine, commit and "
        "command, for BENCHMARKS.md; --csv writes the rows that paper figures are drawn from.",
    )
    kernels = bench.add_subparsers(dest="kernel", required=True, metavar="KERNEL")
    if with_kernels:
        from simcore.models import registry

        for name in registry.bench_kernel_names():
            kernel = registry.bench_kernel(name)
            sp = kernels.add_parser(name, help=kernel.help, description=kernel.help)
            kernel.add_arguments(sp)


def _supply_campaign_jobs(args: argparse.Namespace) -> None:
    """Where a bench kernel asked for the job configs of a campaign file
    (:class:`simcore.benchreport.CampaignJobsRequest`), put in its place the function that
    reads them (:func:`_campaign_jobs`), which the kernel calls once its own options are
    checked: models do not read campaigns, this layer does it for them."""
    from simcore.benchreport import CAMPAIGN_JOBS, CampaignJobsRequest

    request = getattr(args, CAMPAIGN_JOBS, None)
    if isinstance(request, CampaignJobsRequest):
        path = getattr(args, request.dest)
        setattr(args, CAMPAIGN_JOBS, functools.partial(_campaign_jobs, request, path))


def _campaign_jobs(request: CampaignJobsRequest, path: str | None) -> list[tuple[str, dict]]:
    """(point name, validated run config) of job ``request.block`` of every point of the
    campaign file ``path`` on ``request.backend`` ([] without a file); one-line errors for a
    file that cannot be read, is no valid campaign, or is one of another model."""
    if not path:
        return []
    from simcore.campaign import load_campaign
    from simcore.models.runconfig import validate_run_config

    camp = load_campaign(path)
    if camp.model != request.model:
        raise ConfigError(request.option, path, f"is not a campaign of model {request.model}")
    return [
        (pt.name, validate_run_config(camp.job_config(pt.name, request.block)))
        for pt in camp.points
        if request.backend is None or pt.backend == request.backend
    ]


def _models(name: str | None, figures: bool) -> str:
    """The text of ``simcore models``: each model with the backends it declares; with a
    name, where the model comes from and its keys (``backend`` as that model has it)."""
    from simcore.io.provenance import model_provenance
    from simcore.models import registry
    from simcore.models.runconfig import common_keys, describe_keys

    if figures:
        lines = [f"{'figure':<20} {'paper':<12} {'model':<7} drawn from"]
        for fig_name, (spec, fig) in registry.paper_figures().items():
            source = "simcore bench " + " + ".join(fig.bench) if fig.bench else "points"
            lines.append(f"{fig_name:<20} {fig.paper:<12} {spec.name:<7} {source}: {fig.title}")
        return "\n".join(lines) + "\n"
    if name is None:
        lines = []
        for spec in registry.specs():
            kernels = ", ".join(spec.bench_kernels) or "none"
            lines.append(f"{spec.name:<8} {spec.title} (backends: {', '.join(spec.backends)}; "
                         f"bench kernels: {kernels})")  # fmt: skip
        return "\n".join(lines) + "\n"
    spec = registry.get(name)
    origin = model_provenance(registry.distribution(spec.name))
    source = " ".join(v for k, v in origin.items() if v and k != "model_commit")
    if origin["model_commit"]:
        source += f" (commit {origin['model_commit']})"
    lines = [f"{spec.name}: {spec.title}", f"backends: {', '.join(spec.backends)}",
             f"from: {source}", "", "keys of every model:", *describe_keys(common_keys(spec)),
             "", f"keys of {spec.name}:", *describe_keys(dict(spec.keys))]  # fmt: skip
    if spec.resource_rates:
        lines += ["", "campaign job_resources rates:"]
        lines += [f"  {k:<30} {v:<10g} {text}" for k, (v, text) in spec.resource_rates.items()]
    if spec.example:
        import yaml

        example = {"model": spec.name, **spec.example, "seed": 1}
        lines += ["", "a run config that runs in seconds:"]
        lines += ["  " + line for line in yaml.safe_dump(example, sort_keys=False).splitlines()]
    return "\n".join(lines) + "\n"


def _command(argv: list[str]) -> str | None:
    """The command word of ``argv`` (the first argument that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simcore`` command: the exit status (0 done, 2 bad input with
    one line on stderr, 3 a run stopped by ``--max-wall``, 130 Ctrl-C with one line).

    Called as the console script (``argv`` None), Ctrl-C ends the process by SIGINT after
    its one line (:func:`simcore.interrupt.exit_interrupted`: a shell sees status 130 and
    a loop that ran the command stops); called with ``argv``, it returns 130.
    """
    console = argv is None
    args = sys.argv[1:] if console else list(argv)
    status = guarded_status(lambda: _main(args, console), "simcore") or 0
    if console and status == EXIT_INTERRUPTED:
        exit_interrupted()
    return status


def _main(argv: list[str], console: bool = False) -> int:
    """:func:`main` without the handling of Ctrl-C (``console``: the process is this
    command, so a GPU job's card can stay held until it exits)."""
    from simcore.campaign import CampaignError
    from simcore.models.registry import RegistryError

    try:
        args = _parser(_command(argv) == "bench").parse_args(argv)
        if args.command == "run":
            # the wall limits first (before the engine's imports): a negative, NaN or
            # infinite one, or a stop time before 2000, is a typo, refused in one line
            max_wall = args.max_wall
            if max_wall is not None:
                check_wall_seconds("--max-wall", max_wall)
            stop_at, stop_key = args.stop_at, "--stop-at"
            if stop_at is None:
                stop_at, stop_key = stop_at_from_env(), STOP_AT_ENV
            if stop_at is not None:
                check_stop_time(stop_key, stop_at)
            from simcore.config import load_run_config
            from simcore.runner import run_job

            cfg = load_run_config(args.config)
            return run_job(
                cfg,
                args.out,
                max_wall=max_wall,
                stop_at=stop_at,
                progress=not args.quiet,
                hold_gpu=console,  # the card is free once this process has exited
            )
        if args.command == "status":
            from pathlib import Path

            from simcore.status import campaign_status, format_status

            results = Path(args.results)
            if not (results / "runs").is_dir() and not (results / "jobs").is_dir():
                raise ConfigError(
                    "results", args.results, "no runs/ or jobs/ inside: give results/<campaign>"
                )
            status = campaign_status(results, args.config)
            print(format_status(status.rows), end="")
            for line in status.warnings:
                print(f"simcore: warning: {line}", file=sys.stderr)
            return 0
        if args.command == "models":
            print(_models(args.name, args.figures), end="")
            return 0
        from simcore.models import registry

        _supply_campaign_jobs(args)
        print(registry.bench_kernel(args.kernel).run(args), end="")
        return 0
    except (ConfigError, CampaignError, RegistryError) as exc:
        print(f"simcore: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

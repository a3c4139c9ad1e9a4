"""rd1d against simcore's model contract: the contract tests of ``simcore.testing`` (config
round trip, bad input, run-file layout and provenance, resume bit for bit, threads,
campaign plan and dry run, the backends it declares) run on this model, found in the
registry by its entry point as simcore finds it.  Install the package first
(``pip install -e .``), then run ``pytest`` here."""

from simcore.testing import ModelContract


class TestRD1D(ModelContract):
    """Every contract test, on rd1d."""

    model = "rd1d"

"""pytest's assert rewriting for the contract tests that rd1d's tests inherit from
simcore.testing, so that a failing check shows its values (registered before the test
modules import simcore.testing)."""

import pytest

pytest.register_assert_rewrite("simcore.testing")

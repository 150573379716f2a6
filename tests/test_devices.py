import pytest

import aurora_helpers as ah
from aurora_helpers.contract import (
    DEFAULT_SIMULATED_DEVICES,
    DEVICES_ENV_VAR,
    requested_device_count,
)


def test_requested_count_precedence(monkeypatch):
    monkeypatch.delenv(DEVICES_ENV_VAR, raising=False)
    assert requested_device_count() == DEFAULT_SIMULATED_DEVICES == 8
    monkeypatch.setenv(DEVICES_ENV_VAR, " 3 ")
    assert requested_device_count() == 3
    assert requested_device_count(5) == 5  # an explicit argument wins


@pytest.mark.parametrize("raw", ["eight", "2.5", "1e3"])
def test_bad_environment_value_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv(DEVICES_ENV_VAR, raw)
    with pytest.raises(ah.DeviceSetupError, match=r"AURORA_DEVICES.*whole number"):
        requested_device_count()


@pytest.mark.parametrize("value", [0, -2, True, 2.0, "4"])
def test_bad_counts_are_rejected(value):
    with pytest.raises(ah.DeviceSetupError, match="positive integer"):
        requested_device_count(value)


def test_rerunning_with_the_same_count_is_harmless():
    # conftest gave this process 8 devices and JAX has started.
    assert ah.setup_devices(8) == 8


def test_changing_the_count_after_start_says_restart():
    with pytest.raises(
        ah.DeviceSetupError, match=r"already started with 8 CPU device.*Restart the kernel"
    ):
        ah.setup_devices(3)


@pytest.mark.slow
def test_setup_in_a_fresh_process(fresh_python):
    result = fresh_python(
        """
        import aurora_helpers as ah, jax
        assert ah.setup_devices() == 3
        assert jax.device_count() == 3 and ah.setup_devices(3) == 3
        try:
            ah.setup_devices(4)
        except ah.DeviceSetupError as e:
            print("refused:", e)
        """,
        env={"AURORA_DEVICES": "3"},
    )
    assert result.returncode == 0, result.stderr
    assert "refused: JAX has already started with 3" in result.stdout


@pytest.mark.slow
def test_same_count_from_xla_flags_is_accepted(fresh_python):
    result = fresh_python(
        """
        import jax, aurora_helpers as ah
        jax.devices()  # start the backend with the count from XLA_FLAGS
        assert ah.setup_devices(2) == 2
        """,
        env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"},
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_setup_notebook_strict_mode_turns_deprecations_into_errors(fresh_python):
    result = fresh_python(
        """
        import warnings, aurora_helpers as ah
        setup = ah.setup_notebook(2)
        assert setup.strict and setup.device_count == 2 and "2 simulated CPU" in str(setup)
        try:
            warnings.warn("old", DeprecationWarning)
        except DeprecationWarning:
            print("raised")
        """,
        env={"AURORA_STRICT": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "raised" in result.stdout

import pytest

import aurora_helpers as ah


def test_the_expected_error_is_shown_and_kept(capsys):
    with ah.expect_error(ZeroDivisionError, match="division") as shown:
        1 / 0  # noqa: B018
    assert isinstance(shown.error, ZeroDivisionError) and "division" in shown.message
    assert capsys.readouterr().out.startswith("ZeroDivisionError: division by zero")


def test_no_error_is_a_failed_claim():
    with (
        pytest.raises(AssertionError, match="expected TypeError to be raised"),
        ah.expect_error(TypeError),
    ):
        pass


def test_another_error_passes_through_and_messages_must_match():
    with pytest.raises(KeyError), ah.expect_error(TypeError):
        raise KeyError("k")
    with (
        pytest.raises(AssertionError, match="does not match"),
        ah.expect_error(ValueError, "shape"),
    ):
        raise ValueError("dtype mismatch")


def test_long_messages_are_cut(capsys):
    with ah.expect_error((ValueError, TypeError)):
        raise ValueError("\n".join(f"line {i}" for i in range(20)))
    out = capsys.readouterr().out
    assert "line 5" in out and "line 6" not in out and "(14 more lines)" in out

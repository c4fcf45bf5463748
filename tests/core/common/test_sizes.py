import pytest

from citeview.core.common.errors import too_large_error
from citeview.core.common.sizes import mebibytes


@pytest.mark.parametrize(
    ("size", "shown"),
    [(20 * 1024 * 1024, "20 MiB"), (20 * 1024 * 1024 + 1, "20.0 MiB"), (26_542_080, "25.3 MiB"), (3000, "2.9 KiB")],
)
def test_sizes_read_in_the_units_the_forms_state(size, shown):
    assert str(mebibytes(size)) == shown


def test_a_refused_dump_says_its_size_and_the_limit_as_the_form_states_it():
    message = str(too_large_error(26_542_080, 20 * 1024 * 1024).message)
    assert message == "The dump is 25.3 MiB (26,542,080 bytes); the limit is 20 MiB."

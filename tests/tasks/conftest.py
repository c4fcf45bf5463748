from tests.api.conftest import editor_api, editor_key  # noqa: F401  (the API's clients, for the 202 tests)

"""The pure core of citeview: reading dumps, parsing them into the normalised model, rendering.

Nothing under this package imports Django, so the CLI, the API, the web pages and the tests
all run the same code.
"""

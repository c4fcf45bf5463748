from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The pages that show a dump with its review: they may import both dumps and review."""

    name = "citeview.pages"

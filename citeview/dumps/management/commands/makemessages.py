"""``makemessages`` that also collects the parsing core's sentences, marked with ``phrase(...)``
(the core imports no Django, so it cannot call ``gettext``)."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=phrase"]

"""How citeview writes dates and times in each language (``FORMAT_MODULE_PATH``): one format for
every page, so the list, the viewer, the check history, comments, the report and the account page
agree. A time is to the minute, year first, with its zone's abbreviation (``settings.TIME_ZONE``),
since ``12/01/2026 3:17 p.m.`` reads as two different days in two countries."""

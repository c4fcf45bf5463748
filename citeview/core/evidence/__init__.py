"""Evidence from a source's own words: its text extracted from a saved page (``extract``), the passage
that best matches a claim (``passages``), and what differs between them (``compare``)."""

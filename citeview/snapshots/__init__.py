"""Source snapshots: what a cited page said, uploaded, pasted or fetched, kept to compare claims with.

A snapshot belongs to the source's URL (lightly normalised), not to a dump: every dump citing that
URL reuses it. Its bytes are kept in the blob storage (named by their SHA-256) and only the text
extracted from them is ever shown. ``fetch`` is the safe fetcher, pure Python."""

"""Source snapshots: what a cited page said, fetched or uploaded, kept to compare claims with. For now
the fetch (``fetch``), pure Python; the app around it (models, tasks) comes later."""

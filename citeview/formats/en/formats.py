"""English: 2026-12-01 15:21 JST (ISO 8601's order, read the same way on both sides of the Atlantic)."""

DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i T"
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
TIME_FORMAT = "H:i"

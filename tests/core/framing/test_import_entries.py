"""Splitting an import into its dumps costs memory for the entry being read, never for all of them,
and every limit is checked before any entry is read."""

from __future__ import annotations

import tracemalloc
import zipfile

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.framing.import_entries import ImportLimits, split_import
from tests.zips import archive, listing

LIMITS = ImportLimits(dump_bytes=10 * 1024 * 1024, dumps=10_000, unpacked_bytes=100 * 1024 * 1024)
SMALL = ImportLimits(dump_bytes=1000, dumps=3, unpacked_bytes=3000)
MIB = 1024 * 1024


def peak_while(work):
    """What ``work`` allocates at its peak, beyond what was allocated before it."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def read_all(name: str, data: bytes, limits: ImportLimits = LIMITS) -> list[tuple[str, bytes | str]]:
    entries = split_import(name, data, limits)
    read: list[tuple[str, bytes | str]] = []
    for entry in entries:
        try:
            read.append((entry.name, entry.read()))
        except DumpError as error:
            read.append((entry.name, error.code))
    return read


def test_thirty_megabytes_of_one_line_numbers_are_refused_without_a_list_of_lines():
    # The body is in memory already; the split keeps nothing per line, so its peak does not grow with
    # the 15 million lines (it was 1.6 GB when it listed them).
    body = b"1\n" * (15 * MIB)

    def split():
        with pytest.raises(DumpError) as refused:
            split_import("ones.jsonl", body, LIMITS)
        assert refused.value.code == "too_many_entries" and "more than 10,000 lines" in refused.value.message

    assert peak_while(split) < MIB


def test_thirty_megabytes_of_json_lines_within_the_cap_are_read_one_line_at_a_time():
    line = b'"' + b"x" * 3000 + b'"\n'
    body = line * 10_000
    sizes = []

    def read_each():
        entries = split_import("big.jsonl", body, LIMITS)
        assert len(entries) == 10_000
        sizes.extend(len(entry.read()) for entry in entries)

    assert peak_while(read_each) < MIB
    assert sizes == [len(line) - 1] * 10_000


def test_blank_lines_cost_no_step_each_and_are_counted_in_the_line_numbers():
    body = b" \n" * (5 * MIB) + b"[1]\r\n"
    assert peak_while(lambda: read_all("blank.jsonl", body)) < MIB
    assert read_all("blank.jsonl", body) == [(f"blank.jsonl, line {5 * MIB + 1}", b"[1]")]


def test_each_line_is_stored_as_it_was_written_without_the_crlf_and_the_byte_order_mark():
    body = b'\xef\xbb\xbf  [1]\r\r\n\r\n\t\n{}\n\x0c\n  "a" '
    assert read_all("a.jsonl", body) == [
        ("a.jsonl, line 1", b"  [1]"),
        ("a.jsonl, line 4", b"{}"),
        ("a.jsonl, line 6", b'  "a" '),
    ]
    assert [entry.filename for entry in split_import("a.jsonl", body, LIMITS)] == [
        "a-line-1.json",
        "a-line-4.json",
        "a-line-6.json",
    ]


@pytest.mark.parametrize(("lines", "refused"), [(2, False), (3, False), (4, True)])
def test_json_lines_below_at_and_above_the_cap(lines, refused):
    body = b"\n".join(b"[%d]" % n for n in range(lines)) + b"\n\n"
    if refused:
        with pytest.raises(DumpError, match="more than 3 lines"):
            split_import("a.jsonl", body, SMALL)
    else:
        assert len(split_import("a.jsonl", body, SMALL)) == lines


def test_a_first_line_over_the_dump_limit_is_refused_alone_not_decoded():
    body = b"[" + b"1," * 2000 + b"1]\n[2]\n"
    assert read_all("a.jsonl", body, SMALL) == [("a.jsonl, line 1", "too_large"), ("a.jsonl, line 2", b"[2]")]


def test_a_first_line_that_is_no_json_value_is_no_import():
    with pytest.raises(DumpError) as refused:
        split_import("a.jsonl", b"{\n}\n", LIMITS)
    assert refused.value.code == "not_jsonl"


@pytest.mark.parametrize("body", [b"", b"\xef\xbb\xbf", b" \r\n\t\n" * 1000])
def test_nothing_but_whitespace_is_an_empty_import(body):
    with pytest.raises(DumpError) as refused:
        split_import("a.jsonl", body, LIMITS)
    assert refused.value.code == "empty"


def parsed(*args, **kwargs):
    raise AssertionError("zipfile parsed the directory")


@pytest.mark.parametrize(
    ("count", "claimed", "zip64", "limits"),
    [
        (300_000, None, True, LIMITS),
        (30_000, None, False, LIMITS),
        (300_000, 1, True, LIMITS),  # an end record that miscounts: the directory is walked, not trusted
        (30_000, 6, False, LIMITS),
        (7, None, False, SMALL),  # one over twice the cap of 3
    ],
    ids=["zip64", "plain", "zip64-miscounted", "plain-miscounted", "just-over"],
)
def test_a_zip_listing_more_than_twice_the_cap_is_refused_before_zipfile_reads_it(
    monkeypatch, count, claimed, zip64, limits
):
    data = listing(count, claimed=claimed, zip64=zip64)
    monkeypatch.setattr(zipfile, "ZipFile", parsed)

    def split():
        with pytest.raises(DumpError) as refused:
            split_import("many.zip", data, limits)
        assert refused.value.code == "too_many_entries"
        assert f"more than {limits.zip_entries:,} files and folders" in refused.value.message

    assert peak_while(split) < MIB


def test_the_zip64_end_record_that_zipfile_writes_is_read_for_the_count(monkeypatch):
    # zipfile writes the ZIP64 end records past 65,535 entries; with its threshold lowered it writes
    # them for a handful, the same records an archive of 70,000 dumps has.
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)
    at_the_cap = archive({f"{n}.json": b"[%d]" % n for n in range(3)} | {f"d{n}/": b"" for n in range(3)})
    over_it = archive({f"{n}.json": b"[%d]" % n for n in range(3)} | {f"d{n}/": b"" for n in range(4)})
    assert b"PK\x06\x06" in at_the_cap and b"PK\x06\x07" in at_the_cap
    assert len(split_import("a.zip", at_the_cap, SMALL)) == 3
    with pytest.raises(DumpError, match="more than 6 files and folders"):
        split_import("a.zip", over_it, SMALL)


@pytest.mark.parametrize(("budget", "refused"), [(3001, False), (3000, False), (2999, True)])
def test_a_zip_whose_files_declare_more_than_the_budget_is_refused_before_any_is_read(budget, refused):
    data = archive({f"{n}.json": b"[" + b" " * 998 + b"]" for n in range(3)})
    limits = ImportLimits(dump_bytes=1000, dumps=3, unpacked_bytes=budget)
    if refused:
        with pytest.raises(DumpError, match=r"unpack to 2.9 KiB \(3,000 bytes\) in all"):
            split_import("a.zip", data, limits)
    else:
        assert [len(raw) for _, raw in read_all("a.zip", data, limits)] == [1000] * 3


@pytest.mark.parametrize(("files", "refused"), [(2, False), (3, False), (4, True)])
def test_a_zip_below_at_and_above_the_dump_cap(files, refused):
    data = archive({f"{n}.json": b"[%d]" % n for n in range(files)} | {"__MACOSX/._0.json": b"x"})
    if refused:
        with pytest.raises(DumpError, match="holds 4 dump files"):
            split_import("a.zip", data, SMALL)
    else:
        assert len(split_import("a.zip", data, SMALL)) == files

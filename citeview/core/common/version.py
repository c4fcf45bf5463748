"""The version of what the core makes of a dump, derived from the code that makes it.

Stored results carry the version they were made with, and one made with another is rebuilt from its
bytes. A number bumped by hand went stale whenever a change forgot the bump, so the version is a
digest of every module of the core and of the libraries whose output it stores: any change to a
parser or the renderer changes it. A change that alters no output (a comment) changes it too; the
price is a rebuild, never a stale result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from types import ModuleType

import bleach
import markdown_it
import mdurl
import msgspec
import pypdf
import rapidfuzz

CORE_DIR = Path(__file__).resolve().parent.parent
# The libraries whose output is stored with the result: markdown-it-py draws each answer (with mdurl
# normalising its links) and bleach sanitises it; pypdf reads the pages of the documents an answer's
# quotes are checked against; msgspec decodes most dumps, and framing's proof of its reading (no key
# dropped) does not check its numbers and strings, so another release may change a result. orjson is
# not one: framing uses it only where it writes back to the very bytes read
# (``framing.strict_json._orjson_proven``). tests/core/common/test_version.py fails when the core imports a library
# that is in neither list.
RENDERED_WITH = (bleach, markdown_it, mdurl, msgspec, pypdf)


def code_version(
    root: Path = CORE_DIR,
    libraries: Iterable[ModuleType] = RENDERED_WITH,
    modules: Iterable[Path] = (),
    leave_out: Iterable[str] = (),
) -> str:
    """A SHA-256 over every ``.py`` under ``root`` but those named in ``leave_out``, and each of
    ``modules`` (its path and bytes, in path order), and the version of each of ``libraries``."""
    digest = hashlib.sha256()
    left_out = set(leave_out)
    named = [(path.relative_to(root).as_posix(), path) for path in root.rglob("*.py") if path.name not in left_out]
    named += [(f"../{path.parent.name}/{path.name}", path) for path in modules]
    for name, path in sorted(named):
        content = path.read_bytes()
        digest.update(f"{name}\0{len(content)}\0".encode())  # lengths keep one file from running into the next
        digest.update(content)
    for library in libraries:
        digest.update(f"{library.__name__}=={library.__version__}\0".encode())
    return digest.hexdigest()


RESULT_VERSION = code_version()

# The passages found in a source's snapshot for claims are kept (``SnapshotPassage``) with the version
# of what found them: the evidence modules, the core modules they read with (markers, numbers, links,
# phrases, and the child a page is read in: tests/core/common/test_version.py keeps this list whole) and
# rapidfuzz, which scores them. A passage found by other code is found again; a change to a provider,
# or to the checks of quotes against a request's documents (which find no passage), leaves them be.
PASSAGES_READ_WITH = (
    "common/limited.py",
    "common/links.py",
    "common/markup_text.py",
    "common/numbers.py",
    "common/phrases.py",
    "parsing/markers.py",
)


def installed(distribution: str, name: str) -> ModuleType:
    """A library as the version digest names it, read from its installed metadata rather than imported:
    the word-form libraries take a quarter of a second to import, and a dictionary has no module."""
    library = ModuleType(name)
    library.__version__ = metadata.version(distribution)  # type: ignore[attr-defined]
    return library


# Besides rapidfuzz, the passages read words in their forms (``evidence.word_forms``): SudachiPy with its
# dictionary, and lemminflect's tables. Another release of any of them may find other passages.
PASSAGES_FOUND_WITH = (
    rapidfuzz,
    installed("lemminflect", "lemminflect"),
    installed("sudachipy", "sudachipy"),
    installed("sudachidict-core", "sudachidict_core"),
)
PASSAGE_VERSION = code_version(
    CORE_DIR / "evidence", PASSAGES_FOUND_WITH, [CORE_DIR / name for name in PASSAGES_READ_WITH]
)

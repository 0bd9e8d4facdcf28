"""Reading source files line by line while counting the bytes read (for the progress
bar's rate and ETA), in the file's own encoding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


class CountedLines:
    """Iterates the decoded lines of ``path`` (line endings kept, so ``csv`` sees quoted
    newlines); ``bytes_read`` grows as it goes and ``size`` is the file's size."""

    def __init__(self, path: Path, *, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self.size = path.stat().st_size
        self.bytes_read = 0

    def __iter__(self) -> Iterator[str]:
        with self.path.open("rb") as handle:
            for raw in handle:
                self.bytes_read += len(raw)
                yield raw.decode(self.encoding, errors="replace")


def find_file(directory: Path, stem: str) -> Path:
    """``directory/<stem>.txt`` in any letter case (USDA's archives differ)."""
    for candidate in directory.iterdir():
        if candidate.is_file() and candidate.name.lower() == f"{stem.lower()}.txt":
            return candidate
    raise FileNotFoundError(f"{directory} holds no {stem}.txt")

"""Errors without tracebacks: unreadable or malformed config files, Ctrl-C, bad campaigns
through Snakemake, and `simcore status` of results that do not match their campaign.

Every check runs the real command in a subprocess, as a user would, and asserts the exit
status, that the message is one line naming the file or key and value, that no
traceback is shown and that nothing is written."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import yaml
from conftest import run_simcore, small_config


def _png() -> bytes:
    """A real 1 x 1 PNG image (what a user might pass by mistake)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


#: name -> (file content, or None for no file, or "dir" for a directory; words expected)
BAD_FILES = {
    "image.png": (_png(), ["not a text file", "0x89"]),
    "empty.yaml": (b"", ["is empty"]),
    "blank.yaml": (b"\n# only a comment\n", ["is empty"]),
    "syntax.yaml": (b"model: kpz\nL: [16, 32\n", ["not valid YAML at line 3", "expected ','"]),
    "tabs.yaml": (b"model: kpz\n\tL: 16\n", ["not valid YAML at line 2", "'\\t'"]),
    "list.yaml": (b"- model: kpz\n- L: 16\n", ["holds a list", "mapping"]),
    "scalar.yaml": (b"kpz\n", ["holds a string", "mapping"]),
    "missing.yaml": (None, ["cannot read", "No such file"]),
    "folder.yaml": ("dir", ["cannot read", "Is a directory"]),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_run_with_an_unreadable_or_malformed_config(tmp_path: Path, name: str) -> None:
    """One line naming the file and what is wrong, exit status 2, no traceback, nothing
    at --out and no checkpoint."""
    content, words = BAD_FILES[name]
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    before = set(tmp_path.iterdir())
    out = tmp_path / "run.nc"
    res = run_simcore("run", path, "--out", out)
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"simcore: error: {path}: "), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert set(tmp_path.iterdir()) == before  # no run file, checkpoint or temporary file


def test_status_with_a_malformed_campaign_file(tmp_path: Path) -> None:
    """`simcore status --config` reads the campaign file the same way: one line naming it."""
    results = tmp_path / "results" / "c"
    (results / "runs").mkdir(parents=True)
    for name in ("image.png", "list.yaml", "missing.yaml"):
        content, words = BAD_FILES[name]
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        res = run_simcore("status", results, "--config", path)
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f"campaign config {path}: " in lines[0], res.stderr
        assert all(word in lines[0] for word in words), lines[0]


def test_a_valid_config_still_runs(tmp_path: Path) -> None:
    """The stricter reading accepts what it accepted before (the control of the above)."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(small_config(t_max=5, waiting_times=[2])))
    res = run_simcore("run", path, "--out", tmp_path / "run.nc", "--quiet")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "run.nc").exists()

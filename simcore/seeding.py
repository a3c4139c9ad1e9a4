"""Job seeds derived from the campaign, never from the clock.

A job's 64-bit seed is a hash of (campaign seed, campaign name, parameter
point, block index), so two jobs of a campaign never share a random stream,
a rerun of a job draws the same numbers, and adding points or blocks leaves
the seeds of the existing jobs unchanged.
"""

from __future__ import annotations

import hashlib


def job_seed(campaign_seed: int, campaign: str, point: str, block: int) -> int:
    """64-bit seed of block ``block`` of parameter point ``point`` (its canonical name)."""
    if block < 0:
        raise ValueError(f"block index {block} is negative")
    text = f"simcore-seed-v1|{int(campaign_seed)}|{campaign}|{point}|{int(block)}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def philox_key(seed: int) -> tuple[int, int]:
    """The Philox key (k0, k1) of a 64-bit job seed: its low and high 32-bit words
    (the convention of :mod:`simcore.rng`)."""
    seed = int(seed)
    return seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF

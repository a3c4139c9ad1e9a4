"""Files in and out: atomic writes, datasets with provenance, checkpoints."""

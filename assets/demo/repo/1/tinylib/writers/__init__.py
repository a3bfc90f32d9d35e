"""Writers turn lists of dicts back into files."""

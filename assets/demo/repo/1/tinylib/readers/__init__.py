"""Readers turn files into lists of dicts, one dict per record."""

"""Openly licensed dialogue datasets converted into one record format (`recipes/data/imports`)."""

"""Tool schema formats, answer formats and conversions between them."""

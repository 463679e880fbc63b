"""Internal utilities: parameter validation and small linear-algebra helpers."""

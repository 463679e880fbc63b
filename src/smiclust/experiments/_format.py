"""Text formatting shared by the runner, the figures and the report."""

__all__ = ["percent"]


def percent(fraction):
    """``fraction`` as a percentage with three significant digits: ``"2.5 %"``."""
    return f"{100 * fraction:.3g} %"

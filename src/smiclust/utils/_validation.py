"""Parameter validation shared by every public function and estimator.

A constraint table maps each parameter name to a list of accepted forms, in the
shape of scikit-learn's ``_parameter_constraints``::

    {"n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
     "gamma": [Interval(numbers.Real, 0, None, closed="left"), Options({"auto"})]}

:func:`validate_params` checks a mapping of values against such a table and raises
``TypeError`` when no accepted type matches and ``ValueError`` when the type is
right but the value is not, with a message that names the parameter, its owner,
what was expected and what was received.
"""

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Interval",
    "Options",
    "Grid",
    "HasMethods",
    "IntegerGrid",
    "RealGrid",
    "validate_params",
    "check_random_state_param",
    "GRID_TYPES",
    "as_grid",
]


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Interval:
    """Numbers of ``type_`` in an interval; ``None`` bounds are infinite.

    Booleans never count as numbers, and NaN and the infinities are never inside
    an interval: an infinite (``None``) bound is open, so ``gamma=float("inf")``
    is rejected like ``gamma=-1``.
    """

    type_: type
    left: float | None
    right: float | None
    closed: str = "both"

    def type_matches(self, value):
        return isinstance(value, self.type_) and not _is_bool(value)

    def contains(self, value):
        if not self.type_matches(value):
            return False
        if not isinstance(value, numbers.Integral) and not np.isfinite(float(value)):
            return False
        left_ok = self.left is None or (
            value >= self.left if self.closed in ("left", "both") else value > self.left
        )
        right_ok = self.right is None or (
            value <= self.right
            if self.closed in ("right", "both")
            else value < self.right
        )
        return bool(left_ok and right_ok)

    def __str__(self):
        kind = "an int" if self.type_ is numbers.Integral else "a float"
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        left = "-inf" if self.left is None else repr(self.left)
        right = "inf" if self.right is None else repr(self.right)
        return f"{kind} in the range {lb}{left}, {right}{rb}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (typically strings)."""

    values: frozenset

    def __init__(self, values):
        object.__setattr__(self, "values", frozenset(values))

    def type_matches(self, value):
        return isinstance(value, str) and all(isinstance(v, str) for v in self.values)

    def contains(self, value):
        try:
            return value in self.values
        except TypeError:
            return False

    def __str__(self):
        return "a str among {" + ", ".join(repr(v) for v in sorted(self.values)) + "}"


@dataclass(frozen=True)
class HasMethods:
    """An object with every one of ``methods`` (an estimator instance, say;
    a class is refused: its methods are unbound)."""

    methods: tuple

    def type_matches(self, value):
        return not isinstance(value, (str, numbers.Number)) and value is not None

    def contains(self, value):
        return not isinstance(value, type) and all(
            callable(getattr(value, m, None)) for m in self.methods
        )

    def __str__(self):
        return "an instance with methods " + ", ".join(repr(m) for m in self.methods)


#: The sequence types a grid parameter may be (read by the estimators too).
GRID_TYPES = (list, tuple, range, np.ndarray)


@dataclass(frozen=True)
class Grid:
    """A non-empty 1-d sequence of numbers, each satisfying ``element``."""

    element: Interval

    def type_matches(self, value):
        return isinstance(value, GRID_TYPES)

    def contains(self, value):
        if not self.type_matches(value):
            return False
        arr = np.asarray(value, dtype=object)
        if arr.ndim != 1 or arr.size == 0:
            return False
        return all(self.element.contains(_as_python_number(v)) for v in arr)

    def __str__(self):
        return f"a non-empty 1-d list of numbers, each {self.element}"


def _as_python_number(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


def IntegerGrid(left=1, right=None):
    """Grid of integers in ``[left, right]``."""
    return Grid(Interval(numbers.Integral, left, right, closed="both"))


def RealGrid(left=0.0, right=None):
    """Grid of finite real numbers in ``[left, right]``."""
    return Grid(Interval(numbers.Real, left, right, closed="both"))


class _NoneType:
    def type_matches(self, value):
        return value is None

    def contains(self, value):
        return value is None

    def __str__(self):
        return "None"


NONE = _NoneType()


def validate_params(params, constraints, owner):
    """Check each value in ``params`` against its entry in ``constraints``.

    Parameters
    ----------
    params : dict
        Parameter name to received value.
    constraints : dict
        Parameter name to a list of accepted forms (:class:`Interval`,
        :class:`Options`, grids from :func:`IntegerGrid` / :func:`RealGrid`,
        ``None`` for "None is accepted", or a Python type for "any instance").
    owner : str
        Name of the estimator or function, used in the message.

    Raises
    ------
    TypeError
        If the value's type matches none of the accepted forms.
    ValueError
        If the type matches but the value lies outside every accepted form.
    """
    for name, value in params.items():
        if name not in constraints:
            continue
        accepted = [NONE if c is None else c for c in constraints[name]]
        if any(_accepts(c, value) for c in accepted):
            continue
        expected = " or ".join(_describe(c) for c in accepted)
        message = (
            f"The {name!r} parameter of {owner} must be {expected}. "
            f"Got {value!r} instead."
        )
        if any(_type_matches(c, value) for c in accepted):
            raise ValueError(message)
        raise TypeError(message)


def _accepts(constraint, value):
    return _type_matches(constraint, value) if isinstance(constraint, type) else (
        constraint.contains(_as_python_number(value)))


def _type_matches(constraint, value):
    if constraint is bool:
        # NumPy's booleans are booleans, as NumPy's integers are integers
        return _is_bool(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.type_matches(_as_python_number(value))


def _describe(constraint):
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__!r}"
    return str(constraint)


def check_random_state_param():
    """Constraint list for ``random_state`` (None, int or RandomState)."""
    return [None, Interval(numbers.Integral, 0, 2**32 - 1), np.random.RandomState]


def n_jobs_param():
    """Constraint list for ``n_jobs``: None or a non-zero int (joblib's
    meaning: ``-1`` every core, ``-2`` all but one, ...)."""
    return [
        None,
        Interval(numbers.Integral, None, -1, closed="right"),
        Interval(numbers.Integral, 1, None, closed="left"),
    ]


def as_grid(value, default=()):
    """The candidate values of a parameter, as a tuple.

    ``"auto"`` (any str) and ``None`` give ``default``; a list, tuple, range or
    array gives its distinct values in the order given; a scalar gives a
    one-element tuple. Prior validation of ``value`` is assumed.
    """
    if value is None or isinstance(value, str):
        return tuple(default)
    if isinstance(value, GRID_TYPES):
        return tuple(dict.fromkeys(np.asarray(value).tolist()))
    return (value,)

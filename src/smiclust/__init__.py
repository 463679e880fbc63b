"""smiclust: clustering with must-links and cannot-links by squared-loss mutual
information (SMIC and 3SMIC, Calandriello, Niu & Sugiyama).

Public API: :class:`SMIClustering` (and :func:`smi_clustering`), the baselines
:class:`SpectralLearning` and :class:`ConstrainedSpectralClustering`,
:func:`local_scaling_kernel`, :func:`lsmi_score`, the links' helpers
:func:`pairs_from_labels`, :func:`sample_links` and :func:`count_violations`,
the question asking :func:`select_pairs`, :class:`ActiveSMIClustering` and
:class:`StopAsking`, and the modules without a leading underscore
(:mod:`smiclust.constraints`, :mod:`smiclust.datasets`, :mod:`smiclust.io`,
...), each imported on first use: ``smiclust.datasets`` works after
``import smiclust`` alone.

Importing smiclust imports neither matplotlib, dask nor pynndescent (pandas
only through scikit-learn, which imports it when it is installed) and changes
no global state.
"""

import functools as _functools
import importlib as _importlib

__version__ = "0.1.0"

#: Public name -> module that defines it. Loaded on first use (PEP 562), so
#: that ``smiclust --help`` and ``import smiclust.cli`` do not pay for
#: scikit-learn and SciPy.
_EXPORTS = {
    "SMIClustering": "._estimator",
    "smi_clustering": "._estimator",
    "SpectralLearning": ".baselines",
    "ConstrainedSpectralClustering": ".baselines",
    "local_scaling_kernel": ".kernels",
    "lsmi_score": ".lsmi",
    "pairs_from_labels": ".constraints",
    "sample_links": ".constraints",
    "count_violations": ".constraints",
    "select_pairs": ".active",
    "ActiveSMIClustering": ".active",
    "StopAsking": ".active",
}

__all__ = [*_EXPORTS, "__version__"]


@_functools.cache
def _public_submodules():
    """Names of the package's modules and subpackages without a leading
    underscore (``constraints``, ``datasets``, ``io``, ...), read from the
    package's folder once."""
    import pkgutil

    return frozenset(m.name for m in pkgutil.iter_modules(__path__)
                     if not m.name.startswith("_"))


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(_importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    if name in _public_submodules():  # smiclust.datasets without its import
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_EXPORTS, *_public_submodules()})

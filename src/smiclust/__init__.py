"""smiclust: clustering with must-links and cannot-links by squared-loss mutual
information (SMIC and 3SMIC, Calandriello, Niu & Sugiyama).

Public API: :class:`SMIClustering` (and :func:`smi_clustering`), the baselines
:class:`SpectralLearning` and :class:`ConstrainedSpectralClustering`,
:func:`local_scaling_kernel`, :func:`lsmi_score`, and the modules
:mod:`smiclust.constraints` and :mod:`smiclust.datasets`.

Importing smiclust imports neither matplotlib, dask nor pynndescent (pandas
only through scikit-learn, which imports it when it is installed) and changes
no global state.
"""

from ._estimator import SMIClustering, smi_clustering
from .baselines import ConstrainedSpectralClustering, SpectralLearning
from .constraints import (
    count_violations,
    pairs_from_labels,
    sample_links,
)
from .kernels import local_scaling_kernel
from .lsmi import lsmi_score

__version__ = "0.1.0"

__all__ = [
    "SMIClustering",
    "smi_clustering",
    "SpectralLearning",
    "ConstrainedSpectralClustering",
    "local_scaling_kernel",
    "lsmi_score",
    "pairs_from_labels",
    "sample_links",
    "count_violations",
    "__version__",
]

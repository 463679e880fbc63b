"""Semi-supervised spectral baselines of the 3SMIC experiments.

:class:`SpectralLearning` (Kamvar, Klein & Manning, 2003) puts the links into the
affinity; :class:`ConstrainedSpectralClustering` (Wang & Davidson, 2010; K-way:
Wang, Qian & Davidson, 2014) adds them as a constraint on the spectral
embedding. Both use the sparse local-scaling kNN kernel of the paper and follow
the estimator API of :class:`smiclust.SMIClustering`.
"""

from ._constrained_spectral import (
    ConstrainedSpectralClustering,
    constrained_spectral_clustering,
)
from ._spectral_learning import SpectralLearning, spectral_learning

__all__ = [
    "SpectralLearning",
    "spectral_learning",
    "ConstrainedSpectralClustering",
    "constrained_spectral_clustering",
]

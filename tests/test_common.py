"""scikit-learn's estimator checks on every public estimator of smiclust."""

import inspect

from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import smiclust


def _public_estimators():
    found = []
    for name in smiclust.__all__:
        obj = getattr(smiclust, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found.append(obj)
    return found


ESTIMATORS = _public_estimators()


def test_discovery_finds_the_estimators():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert names == {
        "SMIClustering",
        "ActiveSMIClustering",
        "SpectralLearning",
        "ConstrainedSpectralClustering",
    }


@parametrize_with_checks([cls(random_state=0) for cls in ESTIMATORS])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

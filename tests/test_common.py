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


def _expected_failed_checks(estimator):
    """Checks that cannot pass for a reason outside smiclust.

    scikit-learn's sparse-input checks, on an estimator that takes sparse
    input and has ``predict_proba``, read ``tags.classifier_tags.multi_class``
    to know the expected shape of the probabilities: a clusterer has no
    classifier tags, so the check raises AttributeError after fit, predict
    and predict_proba on sparse input have run. What the check asserts is
    asserted by ``tests/test_sparse_input.py`` for csr/csc/coo arrays and
    matrices (fit, predict, predict_proba, and their equality with dense X).
    """
    if getattr(estimator, "_accepts_sparse", False):
        reason = ("scikit-learn reads classifier_tags.multi_class of a clusterer; "
                  "asserted in tests/test_sparse_input.py")
        return {"check_estimator_sparse_array": reason,
                "check_estimator_sparse_matrix": reason}
    return {}


# The active loop refits after every batch of ten questions: twenty questions
# (two batches) run every part of it (questions, a refit with the parameter
# search and one with the parameters kept) for about a fifth of the default
# budget's cost in the checks that fit.
_CHECKED_PARAMS = {"ActiveSMIClustering": {"budget": 20}}


def _checked_instance(cls):
    return cls(random_state=0, **_CHECKED_PARAMS.get(cls.__name__, {}))


@parametrize_with_checks([_checked_instance(cls) for cls in ESTIMATORS],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

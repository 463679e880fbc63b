"""Thread-pool control shared by the numerical modules."""

import threading
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = [
    "SingleThreadedPool",
    "single_threaded_blas",
    "single_threaded_openmp",
    "single_threaded",
]


class SingleThreadedPool:
    """Limit one kind of thread pool to one thread while at least one caller
    is inside.

    Used around work made of many small dense operations: LSMI's per-class
    solves (multi-threaded OpenBLAS made a 250 x 250 Cholesky solve 10-100
    times slower on a busy two-core machine) and the iterative eigen-solves
    (ARPACK's and LOBPCG's operations on ``n x ncv`` blocks, where thread
    hand-offs cost more than they save; measured in ``benchmarks/RESULTS.md``).
    Like ``KMeans.predict`` in scikit-learn (``threadpool_limits`` with
    ``limits=1``), the limit is temporary; a reference count under a lock makes
    concurrent callers (threads of a joblib search) restore the original
    setting only after the last one leaves. One shared instance per pool,
    :data:`single_threaded_blas` and :data:`single_threaded_openmp`, serves
    the whole package.

    ``single_threaded_openmp`` is used around k-means on the small
    embeddings of Spectral Learning's labellings in the vote
    (:func:`smiclust.baselines._spectral_learning.spectral_learning_labels`):
    scikit-learn's k-means gives the same labels with any number of OpenMP
    threads, and on a busy two-core machine its two threads took ten times
    the CPU seconds of one (``benchmarks/RESULTS.md``).

    Parameters
    ----------
    user_api : {"blas", "openmp"}
        The pools :class:`threadpoolctl.ThreadpoolController` limits.
    """

    def __init__(self, user_api="blas"):
        self.user_api = user_api
        self._lock = threading.Lock()
        self._depth = 0
        self._controller = None
        self._limiter = None

    @contextmanager
    def __call__(self):
        with self._lock:
            if self._depth == 0:
                if self._controller is None:
                    self._controller = ThreadpoolController()
                self._limiter = self._controller.limit(limits=1,
                                                       user_api=self.user_api)
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._limiter.restore_original_limits()
                    self._limiter = None


single_threaded_blas = SingleThreadedPool("blas")
single_threaded_openmp = SingleThreadedPool("openmp")


@contextmanager
def single_threaded():
    """BLAS and OpenMP pools both at one thread while inside.

    Around a whole fit (and ``predict``) of
    :class:`~smiclust.SMIClustering`: multi-threaded BLAS sums a matrix
    product in another order than one thread (OpenBLAS's ``A.T @ A`` of
    1,000 x 500 differs by 2e-13), and such rounding, in the neighbour
    distances or in LSMI's Gram matrices, can decide between two nearly equal
    candidates; under this limit the labels do not depend on the number of
    threads of the machine or of its environment variables. On this
    project's two-core machine the fits took the same wall time within noise,
    at less CPU (``benchmarks/RESULTS.md``).
    """
    with single_threaded_blas(), single_threaded_openmp():
        yield

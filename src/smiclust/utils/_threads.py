"""Thread-pool control shared by the numerical modules."""

import threading
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["SingleThreadedBLAS", "single_threaded_blas"]


class SingleThreadedBLAS:
    """Limit BLAS to one thread while at least one caller is inside.

    Used around work made of many small dense operations: LSMI's per-class
    solves (multi-threaded OpenBLAS made a 250 x 250 Cholesky solve 10-100
    times slower on a busy two-core machine) and the iterative eigen-solves
    (ARPACK's and LOBPCG's operations on ``n x ncv`` blocks, where thread
    hand-offs cost more than they save; measured in ``benchmarks/RESULTS.md``).
    Like ``KMeans.predict`` in scikit-learn (``threadpool_limits`` with
    ``limits=1``), the limit is temporary; a reference count under a lock makes
    concurrent callers (threads of a joblib search) restore the original
    setting only after the last one leaves. One shared instance,
    :data:`single_threaded_blas`, serves the whole package.
    """

    def __init__(self):
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
                self._limiter = self._controller.limit(limits=1, user_api="blas")
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._limiter.restore_original_limits()
                    self._limiter = None


single_threaded_blas = SingleThreadedBLAS()

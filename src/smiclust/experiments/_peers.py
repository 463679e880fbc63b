"""Thin adapters to semi-supervised clustering methods users would otherwise pick.

Kept out of the core and of its dependencies: the libraries come with the
optional ``bench`` extra (``pip install 'smiclust[bench]'``) and are imported
only when a peer runs.

``pckmeans``, ``mpckmeans``, ``copkmeans``
    PCKMeans, MPCKMeans and COPKMeans of ``active-semi-supervised-clustering``
    (``fit(X, ml=[(i, j), ...], cl=[...])``). That package calls
    ``np.seterr('raise')`` when it is imported, which changes NumPy's error
    handling for the whole process; :func:`import_active_semi_clustering`
    restores the previous state, and the fits run inside
    ``np.errstate(all="raise")``, the state the package was written for. The
    three draw from NumPy's *global* random state, so each fit seeds it and
    restores it afterwards. The package's COPKMeans skips a must-link whose
    other sample is already in cluster 0 (it tests ``labels[j] > 0`` where
    unassigned is ``-1``), so it could return labellings that break
    must-links; the adapter runs it with that test mended
    (:func:`_mended_copkmeans`), and a COPKMeans labelling that still breaks
    a link is a failed run.
``e2cp``
    Exhaustive and efficient constraint propagation (Lu & Ip, 2010) as
    implemented by ``spectralcluster`` (``constraint.ConstraintPropagation``),
    applied to the sparse local-scaling kNN affinity of the paper (zero
    diagonal, made dense: the propagation inverts an ``n x n`` matrix),
    followed by normalised spectral clustering (:func:`sklearn.cluster.
    spectral_clustering` on the adjusted affinity, k-means labels).

:func:`fit_peer` runs a peer in a long-lived worker process by default
(``isolate=True``), one per calling thread: a run that exceeds its time budget
is stopped by killing the worker (a new one starts on the next call), and
nothing the peer does to NumPy's global state reaches the caller. Run as
``python -m smiclust.experiments._peers`` the module is that worker.
"""

import atexit
import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from contextlib import contextmanager

import numpy as np

__all__ = [
    "PEERS",
    "PeerFailed",
    "PeerSkipped",
    "peer_unavailable_reason",
    "import_active_semi_clustering",
    "fit_peer",
    "shutdown_workers",
]

#: Peer name -> where it comes from.
PEERS = {
    "pckmeans": {
        "module": "active_semi_clustering",
        "distribution": "active-semi-supervised-clustering",
        "class": "PCKMeans",
    },
    "mpckmeans": {
        "module": "active_semi_clustering",
        "distribution": "active-semi-supervised-clustering",
        "class": "MPCKMeans",
    },
    "copkmeans": {
        "module": "active_semi_clustering",
        "distribution": "active-semi-supervised-clustering",
        "class": "COPKMeans",
    },
    "e2cp": {
        "module": "spectralcluster",
        "distribution": "spectralcluster",
        "class": "ConstraintPropagation",
    },
}

#: Seconds a new worker may take to import its libraries and report ready.
STARTUP_TIMEOUT = 300.0


#: The words of :func:`peer_unavailable_reason` for a peer whose package is
#: missing (a run so skipped runs again once it is installed).
NOT_INSTALLED = "is not installed"


class PeerSkipped(RuntimeError):
    """The peer cannot run here (not installed, too slow); the message says why."""


class PeerFailed(RuntimeError):
    """The peer ran and raised; the message is its error."""


def peer_unavailable_reason(name):
    """Why the peer ``name`` cannot run in this environment, or None if it can.

    Only looks the package up (``importlib.util.find_spec``), it imports
    nothing.

    Returns
    -------
    reason : str or None
    """
    if name not in PEERS:
        raise ValueError(
            f"The 'name' parameter of peer_unavailable_reason must be one of "
            f"{sorted(PEERS)}. Got {name!r} instead."
        )
    info = PEERS[name]
    if importlib.util.find_spec(info["module"]) is None:
        return (
            f"{info['distribution']} {NOT_INSTALLED} "
            "(pip install 'smiclust[bench]')"
        )
    return None


def import_active_semi_clustering():
    """Import ``active_semi_clustering`` and undo its ``np.seterr('raise')``.

    NumPy's floating-point error state is the same after the call as before.

    Returns
    -------
    module : module
    """
    old = np.geterr()
    try:
        import active_semi_clustering
    finally:
        np.seterr(**old)
    return active_semi_clustering


@contextmanager
def _global_random_state(seed):
    """Seed NumPy's global random state and restore it on exit."""
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(saved)


@contextmanager
def _recursion_limit(limit):
    """Raise the recursion limit to at least ``limit`` and restore it on exit.

    ``active_semi_clustering`` finds must-link components by a recursive
    depth-first search, one frame per sample of a component.
    """
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, int(limit)))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _fit_asc(name, X, n_clusters, must, cannot, seed, params):
    asc = import_active_semi_clustering()
    from active_semi_clustering.exceptions import (
        ClusteringNotFoundException,
        EmptyClustersException,
        InconsistentConstraintsException,
    )

    cls = (_mended_copkmeans(asc) if name == "copkmeans"
           else getattr(asc, PEERS[name]["class"]))
    model = cls(n_clusters=n_clusters, **params)
    ml = [(int(i), int(j)) for i, j in must]
    cl = [(int(i), int(j)) for i, j in cannot]
    known = (
        ClusteringNotFoundException,
        EmptyClustersException,
        InconsistentConstraintsException,
        FloatingPointError,
        RecursionError,
    )
    try:
        with (
            _global_random_state(seed),
            _recursion_limit(2 * X.shape[0] + 1000),
            np.errstate(all="raise"),
        ):
            model.fit(X, ml=ml, cl=cl)
    except known as exc:
        text = str(exc) or {
            "ClusteringNotFoundException": "no assignment satisfies the links",
            "EmptyClustersException": "a cluster became empty",
        }.get(type(exc).__name__, "")
        raise PeerFailed(f"{type(exc).__name__}: {text}".rstrip(": ")) from exc
    labels = np.asarray(model.labels_, dtype=np.int64)
    if name == "copkmeans":
        from ..constraints import link_violations

        broken = sum(int(v.sum()) for v in link_violations(labels, must, cannot))
        if broken:
            raise PeerFailed(
                f"COPKMeans returned a labelling that breaks {broken} links")
    return labels


def _mended_copkmeans(asc):
    """``active_semi_clustering.COPKMeans`` whose assignment step honours a
    must-link to a sample already in cluster 0.

    COP-KMeans (Wagstaff et al., 2001) puts each sample in the nearest
    cluster that violates none of its links with the samples placed so far.
    The package's check of must-links reads ``labels[j] > 0`` for "``j`` is
    placed", which leaves out cluster 0; here it is ``labels[j] >= 0``.
    """

    class COPKMeans(asc.COPKMeans):
        def _violates_constraints(self, i, cluster_index, labels, ml_graph,
                                  cl_graph):
            if any(labels[j] >= 0 and labels[j] != cluster_index
                   for j in ml_graph[i]):
                return True
            return any(labels[j] == cluster_index for j in cl_graph[i])

    return COPKMeans


def _fit_e2cp(X, n_clusters, must, cannot, seed, params):
    from sklearn.cluster import spectral_clustering
    from spectralcluster.constraint import ConstraintPropagation

    from ..kernels import local_scaling_kernel

    n = X.shape[0]
    t = min(int(params.get("n_neighbors", 7)), n - 1)
    A = local_scaling_kernel(X, t).toarray()
    np.fill_diagonal(A, 0.0)
    Z = np.zeros((n, n))
    Z[must[:, 0], must[:, 1]] = Z[must[:, 1], must[:, 0]] = 1.0
    Z[cannot[:, 0], cannot[:, 1]] = Z[cannot[:, 1], cannot[:, 0]] = -1.0
    W = ConstraintPropagation(float(params.get("alpha", 0.6))).adjust_affinity(A, Z)
    W = 0.5 * (W + W.T)
    return np.asarray(
        spectral_clustering(W, n_clusters=n_clusters, random_state=seed),
        dtype=np.int64,
    )


def _fit_here(name, X, n_clusters, must, cannot, n_neighbors, seed, params):
    reason = peer_unavailable_reason(name)
    if reason is not None:
        raise PeerSkipped(reason)
    X = np.ascontiguousarray(X, dtype=np.float64)
    must = np.asarray(must, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot, dtype=np.intp).reshape(-1, 2)
    params = dict(params or {})
    if name == "e2cp":
        if n_neighbors is not None:
            params["n_neighbors"] = n_neighbors
        return _fit_e2cp(X, n_clusters, must, cannot, seed, params)
    return _fit_asc(name, X, n_clusters, must, cannot, seed, params)


def fit_peer(name, X, n_clusters, must_link, cannot_link, *, n_neighbors=None,
             random_state=0, params=None, time_budget=None, isolate=True):
    """Cluster ``X`` with the peer ``name`` and the given links.

    Parameters
    ----------
    name : {"pckmeans", "mpckmeans", "copkmeans", "e2cp"}
    X : ndarray of shape (n_samples, n_features)
    n_clusters : int
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
    n_neighbors : int, default=None
        Kernel parameter ``t`` of the affinity (``e2cp`` only; default 7).
    random_state : int, default=0
        Seed of the peer's randomness (NumPy's global state for
        active-semi-supervised-clustering, restored afterwards).
    params : dict, default=None
        Further keyword arguments of the peer (``alpha`` for ``e2cp``).
    time_budget : float, default=None
        Seconds the fit may take; only enforced with ``isolate=True``.
    isolate : bool, default=True
        Run in this thread's worker process.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    warnings : list of str
        Warnings the peer issued.

    Raises
    ------
    PeerSkipped
        Not installed here, or the time budget was exceeded.
    PeerFailed
        The peer raised (e.g. COPKMeans when no assignment satisfies the
        links); the message names the error.
    """
    request = {
        "name": name,
        "X": np.asarray(X, dtype=np.float64),
        "n_clusters": int(n_clusters),
        "must": np.asarray(must_link, dtype=np.intp).reshape(-1, 2),
        "cannot": np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2),
        "n_neighbors": None if n_neighbors is None else int(n_neighbors),
        "seed": int(random_state),
        "params": dict(params or {}),
    }
    if isolate:
        reason = peer_unavailable_reason(name)
        if reason is not None:
            raise PeerSkipped(reason)
        response = _thread_worker().call(request, time_budget)
    else:
        response = _handle(request)
    if "skipped" in response:
        raise PeerSkipped(response["skipped"])
    if "error" in response:
        raise PeerFailed(response["error"])
    return response["labels"], response["warnings"]


def _handle(request):
    """Serve one request; never raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            labels = _fit_here(
                request["name"], request["X"], request["n_clusters"],
                request["must"], request["cannot"], request["n_neighbors"],
                request["seed"], request["params"],
            )
            response = {"labels": labels}
        except PeerSkipped as exc:
            response = {"skipped": str(exc)}
        except PeerFailed as exc:
            response = {"error": str(exc)}
        except Exception as exc:  # a peer's own bug is a failed run, not ours
            response = {"error": f"{type(exc).__name__}: {exc}"}
    response["warnings"] = [
        f"{w.category.__name__}: {w.message}" for w in caught
    ]
    return response


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------


class _Worker:
    """A ``python -m smiclust.experiments._peers`` child speaking pickles."""

    def __init__(self):
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smiclust.experiments._peers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        try:
            self._receive(STARTUP_TIMEOUT, what="start")
        except PeerFailed as exc:
            raise PeerSkipped(f"the peer worker did not start: {exc}") from None

    def alive(self):
        return self.proc.poll() is None

    def call(self, request, timeout):
        try:
            pickle.dump(request, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill()
            raise PeerFailed(f"the peer worker died: {self._stderr_tail()}") from None
        return self._receive(timeout, what="run")

    def _receive(self, timeout, *, what):
        box = {}

        def read():
            try:
                box["message"] = pickle.load(self.proc.stdout)
            except BaseException as exc:  # EOF when the child dies
                box["error"] = exc

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            self.kill()
            reader.join()
            if what == "start":
                raise PeerFailed(f"no answer within {timeout:g} s")
            raise PeerSkipped(f"exceeded the time budget of {timeout:g} s")
        if "error" in box:
            self.kill()
            raise PeerFailed(f"the peer worker died: {self._stderr_tail()}")
        return box["message"]

    def _stderr_tail(self, n_chars=300):
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return "(no diagnostics)"
        return " ".join(text[-n_chars:].split()) or "(no diagnostics)"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def close(self):
        try:
            self.proc.stdin.close()  # the child ends at EOF
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()
        self._stderr.close()


_local = threading.local()
_all_workers = []
_workers_lock = threading.Lock()


def _thread_worker():
    worker = getattr(_local, "worker", None)
    if worker is None or not worker.alive():
        worker = _Worker()
        _local.worker = worker
        with _workers_lock:
            _all_workers.append(worker)
    return worker


def shutdown_workers():
    """Stop every worker process this process started."""
    with _workers_lock:
        workers = list(_all_workers)
        _all_workers.clear()
    for worker in workers:
        worker.close()
    _local.__dict__.pop("worker", None)


atexit.register(shutdown_workers)


def _exit_with_parent(interval=1.0):
    """End this worker as soon as its parent process is gone (even mid-fit)."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _serve():
    """Worker loop: read pickled requests on stdin, answer on stdout."""
    _exit_with_parent()
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # the peers' prints must not corrupt the channel
    inp = sys.stdin.buffer
    for name in ("pckmeans", "e2cp"):  # import now, outside the time budgets
        if peer_unavailable_reason(name) is None:
            if name == "pckmeans":
                import_active_semi_clustering()
            else:
                import sklearn.cluster  # noqa: F401
                import spectralcluster.constraint  # noqa: F401
    pickle.dump({"ready": True}, out)
    out.flush()
    while True:
        try:
            request = pickle.load(inp)
        except EOFError:
            return
        pickle.dump(_handle(request), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":
    _serve()

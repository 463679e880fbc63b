r"""The 3SMIC operator :math:`U = K' B K'`, applied and never formed.

.. math::

    U = K'\left(2I + 2\gamma M + \gamma^2 M^2 - 2\eta C + \eta^2 C^2\right)K'
      = K'\,B\,K',\qquad B = (I + \gamma M)^2 + (I - \eta C)^2,

with :math:`M` the must-link matrix with unit diagonal, :math:`C` the
cannot-link matrix (zero diagonal) and :math:`K'` the modified kernel
(:func:`smiclust.kernels.modified_kernel`). :class:`SMICOperator` applies
:math:`U` with two sparse products by :math:`K'` and four by the link
matrices; :func:`dense_smic_matrix` forms it term by term as a reference for
tests and benchmarks. Prior validation of inputs is assumed.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .link_groups import group_sums

__all__ = ["SMICOperator", "GroupSMICOperator", "dense_smic_matrix"]


class SMICOperator(LinearOperator):
    r"""Matrix-free :math:`U = K' B K'` with :math:`B=(I+\gamma M)^2+(I-\eta C)^2`.

    Parameters
    ----------
    K_mod : sparse matrix of shape (n, n)
        The modified kernel :math:`K'`.
    must_matrix, cannot_matrix : sparse matrix of shape (n, n)
        Off-diagonal link matrices (:func:`smiclust.constraints.link_matrix`),
        0/1 or weighted; the unit diagonal of :math:`M` is added implicitly.
    gamma, eta : float
        Link weights, both ``>= 0``.
    """

    def __init__(self, K_mod, must_matrix, cannot_matrix, gamma, eta):
        n = K_mod.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.K_mod = K_mod
        self.must_matrix = must_matrix
        self.cannot_matrix = cannot_matrix
        self.gamma = float(gamma)
        self.eta = float(eta)
        #: number of vectors U has been applied to (a block of k counts k)
        self.n_applied = 0

    def apply_middle(self, W):
        """Return :math:`B W` for a vector or block ``W``."""
        g, e = self.gamma, self.eta
        A = (1.0 + g) * W
        if g and self.must_matrix.nnz:
            A = A + g * (self.must_matrix @ W)
        Z = (1.0 + g) * A
        if g and self.must_matrix.nnz:
            Z = Z + g * (self.must_matrix @ A)
        if e and self.cannot_matrix.nnz:
            Bc = W - e * (self.cannot_matrix @ W)
            Z = Z + Bc - e * (self.cannot_matrix @ Bc)
        else:
            Z = Z + W
        return Z

    def apply_kernel(self, W):
        """Return :math:`K' W`."""
        return self.K_mod @ W

    def _matvec(self, v):
        self.n_applied += 1
        return self.K_mod @ self.apply_middle(self.K_mod @ v)

    def _matmat(self, V):
        self.n_applied += V.shape[1]
        return self.K_mod @ self.apply_middle(self.K_mod @ V)

    def _adjoint(self):
        return self


class GroupSMICOperator(LinearOperator):
    r""":math:`U = K'BK'` for closed links (:mod:`smiclust.link_groups`).

    With the group indicator :math:`G` (``n × g``), group sizes
    :math:`D = G^\top G` and the group cannot-link matrix :math:`C_g`:
    :math:`K' = K_{\mathrm{off}} + GG^\top`, :math:`M = GG^\top` (unit
    diagonal included), :math:`C = GC_gG^\top`, and :math:`B` is applied in
    group space,

    .. math::

        BW = 2W + G\left[(2\gamma + \gamma^2 D)Z - 2\eta C_gZ
        + \eta^2 C_g D C_g Z\right],\qquad Z = G^\top W,

    so one application costs two products by :math:`K'` and two by
    :math:`G`. This is the paper's :math:`U` for the explicit closed links
    (:func:`smiclust.link_groups.closed_links`), without their
    ``O(sum of squared group sizes)`` pairs, for a kernel of unit diagonal
    (the local-scaling kernel). Every diagonal entry of :math:`K'` here is
    the block's weight (1 by default), samples in no link included: with the
    degree-normalised kernel (diagonal :math:`\bar d/d_i`, entries that may
    exceed 1) the diagonal of the samples in no link is 1 instead, where
    :func:`smiclust.kernels.modified_kernel` keeps :math:`\bar d/d_i`; the
    default's measurements with ``kernel="auto"`` were made with this
    operator.

    Parameters
    ----------
    K_off : sparse matrix of shape (n, n)
        :func:`smiclust.link_groups.off_group_kernel` of the kernel.
    groups : LinkGroups
    gamma, eta : float
        Link weights, both ``>= 0``.
    block_weights : ndarray of shape (n_groups,), default=None
        Weights :math:`w` of the group blocks of the kernel,
        :math:`K' = K_{\mathrm{off}} + G\,\mathrm{diag}(w)\,G^\top`
        (:func:`smiclust.link_groups.group_block_weights`); ``None``: 1 each,
        the kernel of the explicit closed links. :math:`M` and :math:`C` are
        not weighted.
    """

    def __init__(self, K_off, groups, gamma, eta, block_weights=None):
        n = K_off.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.K_off = K_off
        self.G = groups.indicator
        self.group = groups.group
        self.n_groups = groups.n_groups
        self.cannot_matrix = groups.cannot_matrix
        self.sizes = groups.sizes.astype(np.float64)
        self.block_weights = (
            np.ones(groups.n_groups) if block_weights is None
            else np.asarray(block_weights, dtype=np.float64)
        )
        self.gamma = float(gamma)
        self.eta = float(eta)
        #: number of vectors U has been applied to (a block of k counts k)
        self.n_applied = 0

    def apply_kernel(self, W):
        r"""Return :math:`K' W = K_{\mathrm{off}}W + G\,\mathrm{diag}(w)(G^\top W)`."""
        w = self.block_weights
        Z = group_sums(self.group, self.n_groups, W)
        return self.K_off @ W + (w * Z if Z.ndim == 1 else w[:, None] * Z)[self.group]

    def kernel_matrix(self):
        """The sparse :math:`K'` (its group blocks stored entry by entry)."""
        G = self.G
        return (self.K_off + G @ sp.diags(self.block_weights) @ G.T.tocsr()).tocsr()

    def apply_middle(self, W):
        """Return :math:`B W` for a vector or block ``W``."""
        g, e = self.gamma, self.eta
        use_cannot = bool(e) and self.cannot_matrix.nnz > 0
        if not g and not use_cannot:
            return 2.0 * W
        Z = group_sums(self.group, self.n_groups, W)
        D = self.sizes if Z.ndim == 1 else self.sizes[:, None]
        Y = (2.0 * g + g * g * D) * Z if g else np.zeros_like(Z)
        if use_cannot:
            CZ = self.cannot_matrix @ Z
            Y = Y - 2.0 * e * CZ + e * e * (self.cannot_matrix @ (D * CZ))
        return 2.0 * W + Y[self.group]

    def _matvec(self, v):
        self.n_applied += 1
        return self.apply_kernel(self.apply_middle(self.apply_kernel(v)))

    def _matmat(self, V):
        self.n_applied += V.shape[1]
        return self.apply_kernel(self.apply_middle(self.apply_kernel(V)))

    def _adjoint(self):
        return self


def dense_smic_matrix(
    K_mod, must_link, cannot_link, gamma, eta, must_weight=None, cannot_weight=None
):
    """Dense :math:`U` formed term by term from the paper's formula.

    A reference for tests and benchmarks only: ``O(n^2)`` memory. Link weights
    (default 1) are the entries of :math:`M` and :math:`C`.
    """
    n = K_mod.shape[0]
    Kd = K_mod.toarray() if sp.issparse(K_mod) else np.asarray(K_mod)
    must_link = np.asarray(must_link).reshape(-1, 2)
    cannot_link = np.asarray(cannot_link).reshape(-1, 2)
    if must_weight is None:
        must_weight = np.ones(len(must_link))
    if cannot_weight is None:
        cannot_weight = np.ones(len(cannot_link))
    M = np.eye(n)
    for (i, j), w in zip(must_link, must_weight):
        M[i, j] = M[j, i] = w
    C = np.zeros((n, n))
    for (i, j), w in zip(cannot_link, cannot_weight):
        C[i, j] = C[j, i] = w
    middle = (
        2 * np.eye(n) + 2 * gamma * M + gamma**2 * M @ M - 2 * eta * C + eta**2 * C @ C
    )
    return Kd @ middle @ Kd

r"""Spectrum slicing of the reduced CSC pencil: inertia counts and shifts.

Sylvester's law of inertia on sparse symmetric factorisations counts the
eigenvalues :math:`\theta` of :class:`~._csc_pencil.ReducedPencil` above a
shift :math:`\sigma`; :class:`_Slicer` uses the counts to find a shift above
every :math:`\theta`, and the same factorisation to apply the shift-inverse.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

__all__ = []


def _symmetric_lu(K):
    """Sparse LU of the symmetric ``K`` with symmetric permutation and no row
    pivoting, so that ``diag(U)`` has the inertia of ``K`` (Sylvester); None when
    ``K`` is singular or SuperLU had to pivot."""
    try:
        lu = splu(
            sp.csc_matrix(K),
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,
            options=dict(SymmetricMode=True),
        )
    except RuntimeError:
        return None
    if not np.array_equal(lu.perm_r, lu.perm_c):
        return None
    d = lu.U.diagonal()
    if not np.all(np.isfinite(d)) or np.any(d == 0):
        return None
    return lu


def _n_negative(lu):
    return int(np.count_nonzero(lu.U.diagonal() < 0))


class _Slicer:
    r"""Spectrum slicing of the reduced pencil.

    With :math:`K_\sigma = \sigma\bar L - \bar B` (sparse), Haynsworth's
    inertia formula in the basis :math:`[Z, Z_\perp]` gives

    .. math::

        \#\{\theta > \sigma\} = \#\mathrm{neg}(K_\sigma) - \#\mathrm{pos}(G),

    since :math:`Z^\top K_\sigma Z = -G` and the Schur complement is
    :math:`\sigma \bar L - S` on :math:`Z_\perp`. The same factorisation applies
    :math:`(\sigma M - S)^{-1} y = (I - ZZ^\top) K_\sigma^{-1} (I - ZZ^\top) y
    + ZZ^\top y / \sigma` (:meth:`shift_inverse`).
    """

    def __init__(self, pencil):
        self.pencil = pencil
        G = pencil.G
        p = G.shape[0]
        lu = _symmetric_lu(-G) if p else None
        if lu is not None:
            self.n_pos_G = _n_negative(lu)
        elif p <= 2000:
            w = np.linalg.eigvalsh(G.toarray()) if p else np.zeros(0)
            self.n_pos_G = int(np.count_nonzero(w > 0))
        else:
            self.n_pos_G = None
        self.n_factorizations = 0

    def factor(self, sigma):
        """``(count, lu, sigma)``; sigma nudged if the factorisation fails."""
        pen = self.pencil
        n = pen.n
        for attempt in range(3):
            K = sigma * pen.L_bar - pen.Q_bar + pen.beta_scaled * sp.identity(n)
            lu = _symmetric_lu(K)
            self.n_factorizations += 1
            if lu is not None and self.n_pos_G is not None:
                return _n_negative(lu) - self.n_pos_G, lu, sigma
            sigma = sigma * (1.0 + 1e-6 * 10**attempt)
        return None, None, sigma

    def shift_inverse(self, lu, sigma, Y):
        r""":math:`(\sigma M - S)^{-1} Y`, using ``lu`` of :math:`K_\sigma`."""
        Z = self.pencil.Z
        Y = np.asarray(Y, dtype=np.float64)
        par = Z @ (Z.T @ Y)
        perp = (Y - par).reshape(self.pencil.n, -1)
        V = lu.solve(perp).reshape(Y.shape)
        V = V - Z @ (Z.T @ V)
        return V + par / sigma

    def upper_shift(self, lower, guess):
        r"""A shift :math:`\sigma > \theta_{\max}`: ``(sigma, lu)`` or
        ``(None, None)``.

        ``lower`` is a known eigenvalue (so :math:`\theta_{\max} \ge` it) or
        None; ``guess`` the first shift tried. Shifts grow by 4 until none of the
        :math:`\theta` lies above; without ``lower``, they then shrink by 4 until
        one does, so :math:`\sigma \le 4\,\theta_{\max}`.
        """
        sigma = float(guess)
        hi = hi_lu = None
        lo = lower
        for _ in range(80):
            count, lu, sigma = self.factor(sigma)
            if count is None:
                return None, None
            if count > 0:
                lo = sigma
                if hi is not None:
                    break
                sigma *= 4.0
            else:
                hi, hi_lu = sigma, lu
                if lo is not None:
                    break
                sigma /= 4.0
        if hi is None:
            return None, None
        return hi, hi_lu

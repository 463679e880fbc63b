"""smiclust: clustering with must-links and cannot-links by squared-loss mutual
information (SMIC and 3SMIC, Calandriello, Niu & Sugiyama).

Nothing here imports matplotlib, pandas, dask or pynndescent, and importing the
package changes no global state.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]

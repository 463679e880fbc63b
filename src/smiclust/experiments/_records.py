"""The records file of a reproduction: columns, reading, appending.

One record per run, one line of CSV per record, in :data:`RECORDS_FILE` of the
output directory; the last record of a ``run_id`` is the one that counts. The
file only grows: :class:`RecordWriter` appends one whole line per ``write``
call (a single ``os.write`` in append mode), so a process killed in the middle
of a line leaves a partial last line, which :func:`read_records` ignores and
the next :class:`RecordWriter` cuts off before appending.
"""

import csv
import io
import math
import os
from pathlib import Path

import numpy as np

from ..io import atomic_write
from ._output import append_line, cut_partial_last_line, read_records_text

__all__ = [
    "RECORDS_FILE",
    "RECORD_FIELDS",
    "LEGACY_RECORD_FIELDS",
    "BEYOND_RECORD_FIELDS",
    "HEADERS",
    "read_records",
    "RecordWriter",
]

#: Name of the records file in the output directory.
RECORDS_FILE = "records.csv"

#: Columns of a record, in file order.
#:
#: ``run_id`` key of the run (the cache key: data set, preprocessing, method,
#: ``t``, link fraction, seed, and a hash of the method's parameters when they
#: differ from the registry's, as in ``--quick``); ``dataset``, ``preprocessing``,
#: ``method``; ``t`` kernel parameter set by the config (empty for 3SMIC, which
#: tunes it, and for peers without one); ``link_fraction`` links as a fraction
#: of all pairs; ``links``, ``must``, ``cannot`` numbers of links drawn;
#: ``seed``; ``n_samples``, ``n_features``, ``n_clusters``; ``t_chosen``,
#: ``gamma``, ``eta`` parameters used (3SMIC's choice; ``t`` for SL, CSC and
#: E2CP; empty where not applicable); ``ari`` adjusted Rand index against the
#: true labels (empty unless ``status`` is ``ok``); ``violations`` links the
#: labels violate; ``n_clusters_found``; ``seconds`` fit time; ``status``
#: ``ok``, ``failed`` (the method raised) or ``skipped`` (not run: peer not
#: installed, too slow, data set too large); ``error`` the reason when not ok;
#: ``warnings`` distinct warnings of the fit, ``" | "``-separated;
#: ``finished_at`` UTC time stamp; then the fields added beyond the paper
#: (absent from files written before, :data:`LEGACY_RECORD_FIELDS`; read as
#: empty): ``protocol`` how the links were drawn (``pairs``: random pairs,
#: the paper's; ``labels``: a fraction ``link_fraction`` of the samples
#: labelled, every pair of them linked); ``unlinked`` samples in no link;
#: ``ari_unlinked`` ARI on those samples (empty when fewer than 2 or not
#: ``ok``); ``ari_links_only`` ARI of the labelling the links alone give
#: (the must-link closure groups, every other sample alone; written for every
#: run, as it does not depend on the method); then the fields of the noise
#: protocol (absent from files written before,
#: :data:`BEYOND_RECORD_FIELDS`; read as empty, and as 0 flipped by
#: :func:`~smiclust.experiments.load_records`): ``noise`` fraction of the
#: links flipped (must <-> cannot, :mod:`~smiclust.experiments._noise`);
#: ``n_flipped`` how many; ``flipped_links`` which, as ``i-j`` pairs
#: separated by spaces in the order of the given links (must-links first; a
#: flipped pair is given as a must-link exactly when its samples differ);
#: ``suspect_precision``, ``suspect_recall`` (equal: at ``k`` = ``n_flipped``),
#: ``suspect_recall_2k`` and ``suspect_ap`` how well the fit's
#: ``suspect_links_`` ranking finds the flipped links (fits of
#: :class:`~smiclust.SMIClustering` with flipped links only).
LEGACY_RECORD_FIELDS = (
    "run_id",
    "dataset",
    "preprocessing",
    "method",
    "t",
    "link_fraction",
    "links",
    "must",
    "cannot",
    "seed",
    "n_samples",
    "n_features",
    "n_clusters",
    "t_chosen",
    "gamma",
    "eta",
    "ari",
    "violations",
    "n_clusters_found",
    "seconds",
    "status",
    "error",
    "warnings",
    "finished_at",
)

#: Columns of the files written before the noise protocol (e.g.
#: ``docs/beyond-the-paper``): the legacy ones, then those beyond the paper.
BEYOND_RECORD_FIELDS = LEGACY_RECORD_FIELDS + (
    "protocol",
    "unlinked",
    "ari_unlinked",
    "ari_links_only",
)

#: Columns of a record, in file order (those of :data:`BEYOND_RECORD_FIELDS`,
#: then the noise protocol's).
RECORD_FIELDS = BEYOND_RECORD_FIELDS + (
    "noise",
    "n_flipped",
    "flipped_links",
    "suspect_precision",
    "suspect_recall",
    "suspect_recall_2k",
    "suspect_ap",
)

#: Headers a records file may have: the current one, and those of files
#: written before the noise protocol (``docs/beyond-the-paper``) and before
#: the fields beyond the paper (``docs/reproduction``).
HEADERS = (RECORD_FIELDS, BEYOND_RECORD_FIELDS, LEGACY_RECORD_FIELDS)


def read_records(path):
    """Records of a records file as a list of dicts of strings.

    Every key of :data:`RECORD_FIELDS` is present; the fields a file with
    the legacy header lacks are empty strings. Reads only. A partial last
    line (left by an interruption) and rows whose number of fields is wrong
    are ignored; a missing or empty file has no records.

    Raises
    ------
    OutputDirError
        (a ``ValueError``) If the file is not UTF-8 text whose first line is
        the header of :data:`RECORD_FIELDS`; the message names the file.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return []
    text = read_records_text(path)  # checks the file first
    fields = records_header(path)
    missing = {k: "" for k in RECORD_FIELDS if k not in fields}
    reader = csv.reader(io.StringIO(text, newline=""))
    return [{**dict(zip(fields, row)), **missing} for row in reader
            if len(row) == len(fields)]


def records_header(path):
    """The fields of the header of the records file ``path`` (one of
    :data:`HEADERS`); :data:`RECORD_FIELDS` for a file holding only a part of
    a header."""
    with open(path, "rb") as f:
        first = f.readline()
    if first.endswith(b"\n"):
        text = first.decode("utf-8", errors="replace").rstrip("\r\n")
        for fields in HEADERS:
            if text == ",".join(fields):
                return fields
    return RECORD_FIELDS


def _format(value):
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else format(float(value), ".10g")
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value)


def _csv_line(values):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue()


class RecordWriter:
    """Appends records to ``path``, one whole line per ``write`` call.

    A missing file, or one holding only a part of the header, is (re)written
    with the header alone, atomically; a partial last line is cut off. A file
    with the legacy header gets records of the legacy fields (so that every
    line has as many fields as its header). The caller holds the lock of the
    directory.
    """

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.exists() or b"\n" not in self.path.read_bytes():
            with atomic_write(self.path, encoding="utf-8") as f:
                f.write(_csv_line(RECORD_FIELDS))
        else:
            cut_partial_last_line(self.path)
        self.fields = records_header(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def write(self, record):
        append_line(self._fd, _csv_line([_format(record.get(k))
                                         for k in self.fields]))

    def close(self):
        os.close(self._fd)

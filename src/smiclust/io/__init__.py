"""Read data, links and partial labels from files; write cluster assignments.

Pure readers and writers behind ``smiclust fit``, ``smiclust predict`` and
``smiclust ask``:

- :func:`read_table`: a data matrix from delimited text (CSV, TSV, ...), a
  ``.npy`` array, or Parquet (needs pyarrow, extra ``io``);
- :func:`read_links`: must-links or cannot-links, two row references a line;
- :func:`read_weighted_links`: the same with an optional third column, the
  weight (confidence) of each link;
- :func:`read_labels`: partial labels, unknown ones as ``-1``;
- :func:`read_answers`: "same cluster?" answers (``must``, ``cannot`` or
  ``skip``), two row references and the answer a line; :func:`write_answers`
  writes such a file (atomically), :func:`answers_header` names its columns
  and :func:`links_of` turns the answers into must-links and cannot-links;
- :func:`write_assignments`: one cluster (and optionally the class
  probabilities) per input row, in input order, as CSV, JSON or Parquet;
- :func:`write_columns`: any table of named columns, in the same formats;
- :func:`atomic_write`: a file object whose content replaces a file only
  once complete (every file the command line writes goes through it), and
  :func:`atomic_writes`, a block whose files are all replaced only when every
  one of them is written (``smiclust fit``'s outputs).

Conventions. Line and column numbers in messages are 1-based, as a text editor
or a spreadsheet shows them. Row references in link, label and answers files
are values of the data's id column (compared as text) when the data has one,
else 0-based row indices; never a mix. Column arguments (``id_column``,
``columns``) are names from the header or 0-based positions.

Every malformed input raises a :class:`ValueError` whose message is one line:
the file, where (line and column, or row and column name) and what was expected.
An unreadable file (missing, a directory, no permission) raises the usual
:class:`OSError`; Parquet without pyarrow raises :class:`ImportError`.

Examples
--------
>>> import os, tempfile
>>> from smiclust.io import read_links, read_table
>>> tmp = tempfile.mkdtemp()
>>> data = os.path.join(tmp, "data.csv")
>>> with open(data, "w") as f:
...     _ = f.write("id,x,y\\na,0.0,1.0\\nb,0.5,1.5\\nc,3.0,0.0\\n")
>>> X, ids, names = read_table(data, id_column="id")
>>> X.shape, ids.tolist(), names
((3, 2), ['a', 'b', 'c'], ['x', 'y'])
>>> links = os.path.join(tmp, "must.csv")
>>> with open(links, "w") as f:
...     _ = f.write("a,b\\n")
>>> read_links(links, ids=ids, n_samples=3).tolist()
[[0, 1]]
"""

from ._answers import answers_header, links_of, read_answers, write_answers
from ._atomic import atomic_write, atomic_writes
from ._common import ANSWERS
from ._labels import UNKNOWN_LABELS, read_labels
from ._links import read_links, read_weighted_links
from ._tables import read_table
from ._writers import (
    OUTPUT_FORMATS,
    assignment_columns,
    format_from_suffix,
    write_assignments,
    write_columns,
)

__all__ = [
    "read_table",
    "read_links",
    "read_weighted_links",
    "read_labels",
    "read_answers",
    "write_answers",
    "answers_header",
    "links_of",
    "write_assignments",
    "write_columns",
    "assignment_columns",
    "atomic_write",
    "atomic_writes",
    "format_from_suffix",
    "OUTPUT_FORMATS",
    "UNKNOWN_LABELS",
    "ANSWERS",
]

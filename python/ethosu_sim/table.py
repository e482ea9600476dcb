"""Table: a list of rows (dicts with the same keys) that also reads by column and converts to numpy.

Used for per-operation tables (Result.ops) and sweep results. ``t[3]`` is a row, ``t["cycles"]`` a column
as a numpy array, ``t.to_numpy()`` a structured array, ``t.to_csv(path)`` a CSV file.
"""

import csv
import numbers

import numpy as np


def _column_dtype(values):
    if not values:
        return np.dtype(np.float64)  # an empty column still sums and compares as numbers
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, (bool, np.bool_)) for v in present) and len(present) == len(values):
        return np.dtype(bool)
    if present and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in present):
        return np.dtype(np.int64) if len(present) == len(values) else np.dtype(np.float64)
    if present and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in present):
        return np.dtype(np.float64)
    if all(isinstance(v, str) for v in values):
        return np.dtype(f"U{max((len(v) for v in values), default=1) or 1}")
    return np.dtype(object)


class Table(list):
    """Rows as dicts; str keys select columns."""

    @property
    def columns(self):
        names = []
        for row in self:
            names.extend(k for k in row if k not in names)
        return names

    def column(self, name):
        if self and name not in self.columns:
            raise KeyError(f"no column '{name}' (columns: {', '.join(self.columns)})")
        values = [row.get(name) for row in self]
        dtype = _column_dtype(values)
        if dtype == np.float64:
            values = [np.nan if v is None else v for v in values]
        return np.array(values, dtype=dtype)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.column(key)
        item = super().__getitem__(key)
        return Table(item) if isinstance(key, slice) else item

    def where(self, **equal):
        """The rows whose columns equal the given values."""
        return Table(r for r in self if all(r.get(k) == v for k, v in equal.items()))

    def to_numpy(self):
        """A numpy structured array, one field per column (numbers as int64/float64, text as str)."""
        cols = self.columns
        arrays = [self.column(c) for c in cols]
        out = np.empty(len(self), dtype=[(c, a.dtype) for c, a in zip(cols, arrays)])
        for c, a in zip(cols, arrays):
            out[c] = a
        return out

    def to_csv(self, path):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=self.columns)
            w.writeheader()
            w.writerows(self)

    def format(self, columns=None, max_rows=40):
        """Aligned text of the given columns (default all)."""
        cols = columns or self.columns

        def cell(v):
            if isinstance(v, float):
                return f"{v:.4g}"
            return "" if v is None else str(v)

        rows = [[cell(r.get(c)) for c in cols] for r in self[:max_rows]]
        widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
        if len(self) > max_rows:
            lines.append(f"... {len(self) - max_rows} more rows")
        return "\n".join(lines)

    def __repr__(self):
        return f"Table({len(self)} rows)\n" + self.format()

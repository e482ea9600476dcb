"""Table: a list of rows (dicts with the same keys) that also reads by column and converts to numpy and pandas.

Used for per-operation tables (Result.ops) and sweep results. ``t[3]`` is a row, ``t["cycles"]`` a column
as a numpy array, ``t.to_numpy()`` a structured array, ``t.to_pandas()`` a DataFrame (with Debian's
python3-pandas), ``t.to_csv(path)`` a CSV file. ``t.meta`` says what the rows come from (the ethosu_sim version,
the job, the configuration, ...); the CSV file carries it as leading '# key: value' lines (pandas reads the
file with ``read_csv(path, comment="#")``, Table.read_csv() reads both back) and a DataFrame as its ``attrs``.
In a notebook a Table shows as an HTML table.
"""

import csv
import html
import json
import numbers

import numpy as np

from . import _ethosu_sim


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


def _cell(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def _parsed(text):
    """A CSV cell as the value to_csv() wrote: int, float, bool, None (empty) or text."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


class Table(list):
    """Rows as dicts; str keys select columns; `meta` describes where they come from (always the ethosu_sim
    version that made them)."""

    def __init__(self, rows=(), meta=None):
        super().__init__(rows)
        self.meta = {"ethosu_sim": _ethosu_sim.__version__, **(meta or {})}

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
        return Table(item, self.meta) if isinstance(key, slice) else item

    def where(self, **equal):
        """The rows whose columns equal the given values."""
        return Table((r for r in self if all(r.get(k) == v for k, v in equal.items())), self.meta)

    def to_numpy(self):
        """A numpy structured array, one field per column (numbers as int64/float64, text as str)."""
        cols = self.columns
        arrays = [self.column(c) for c in cols]
        out = np.empty(len(self), dtype=[(c, a.dtype) for c, a in zip(cols, arrays)])
        for c, a in zip(cols, arrays):
            out[c] = a
        return out

    def to_pandas(self):
        """A pandas DataFrame of the rows, `meta` as its attrs (needs Debian's python3-pandas)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Table.to_pandas() needs pandas: apt install python3-pandas (Debian's package); "
                              "to_numpy() and to_csv() need nothing more") from None
        frame = pandas.DataFrame.from_records(list(self), columns=self.columns)
        frame.attrs.update(self.meta)
        return frame

    def to_csv(self, path, meta=True):
        """Writes the rows as CSV, after `meta` as '# key: value' lines (values as JSON) unless meta=False."""
        with open(path, "w", newline="", encoding="utf-8") as f:
            if meta:
                for key, value in self.meta.items():
                    f.write(f"# {key}: {json.dumps(value, default=str)}\n")
            w = csv.DictWriter(f, fieldnames=self.columns)
            w.writeheader()
            w.writerows(self)

    @classmethod
    def read_csv(cls, path):
        """A Table from a CSV file to_csv() wrote: its rows (numbers, booleans, empty cells as None) and meta."""
        meta, lines = {}, []
        with open(path, newline="", encoding="utf-8") as f:
            for line in f:
                if line.startswith("# ") and not lines and ": " in line:
                    key, value = line[2:].rstrip("\n").split(": ", 1)
                    meta[key] = json.loads(value)
                else:
                    lines.append(line)
        return cls(({k: _parsed(v) for k, v in row.items()} for row in csv.DictReader(lines)), meta)

    def format(self, columns=None, max_rows=40):
        """Aligned text of the given columns (default all)."""
        cols = columns or self.columns
        rows = [[_cell(r.get(c)) for c in cols] for r in self[:max_rows]]
        widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
        if len(self) > max_rows:
            lines.append(f"... {len(self) - max_rows} more rows")
        return "\n".join(lines)

    def __repr__(self):
        return f"Table({len(self)} rows)\n" + self.format()

    def _repr_html_(self, max_rows=30):
        """A notebook's view: the meta in one line, then the first rows as an HTML table."""
        cols = self.columns
        about = ", ".join(f"{k}: {v}" for k, v in self.meta.items() if isinstance(v, (str, int, float, bool)))
        out = [f"<p><b>Table</b>: {len(self)} rows &times; {len(cols)} columns"
               + (f" <small>({html.escape(about)})</small>" if about else "") + "</p>",
               "<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr></thead><tbody>"]
        for r in self[:max_rows]:
            out.append("<tr>" + "".join(f"<td>{html.escape(_cell(r.get(c)))}</td>" for c in cols) + "</tr>")
        out.append("</tbody></table>")
        if len(self) > max_rows:
            out.append(f"<p>... {len(self) - max_rows} more rows</p>")
        return "\n".join(out)

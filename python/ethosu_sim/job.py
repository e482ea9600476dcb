"""Jobs: a submission loaded once, with inputs set from numpy arrays, run any number of times.

A Job comes from a conformance-case folder (manifest.json layout), a Vela-compiled .tflite whose graph is
one ethos-u operator, or a raw command stream (bare, COP1 or COP2) with region files or sizes. Each run works on
a copy, so the Job keeps its inputs between runs. Jobs pickle as their source (absolute paths) plus the
bytes written into them, so that sweeps can send them to worker processes and rebuild them there; workers
on other machines need the same files at the same paths.
"""

import os
from pathlib import Path

import numpy as np

from . import _ethosu_sim
from .errors import InputError


class Job:
    """A loaded submission. ``Job(path)`` takes a case folder, a compilation folder (CASE/<accelerator> of the
    U55 and U85 corpora: Vela's model for one configuration, the case's inputs) or a .tflite; raw streams use
    from_stream()."""

    def __init__(self, path, allow_outside_case=False, layers=None):
        """allow_outside_case: a case folder's manifest may name files outside the folder (by default they
        must lie inside it, or inside its parent case for a nested build such as u65_512/).
        layers: where the operations' layer names come from: None, Vela's files beside the job
        (vela_cmdstream.txt, vela_per_layer.csv); a path, that register listing or per-layer CSV; False, none."""
        path = os.path.abspath(os.fspath(path))  # absolute: the spec travels to workers with other cwds
        layers = _layers_spec(layers)
        if os.path.isdir(path) and not os.path.exists(os.path.join(path, "manifest.json")) and \
                os.path.exists(os.path.join(path, "model_vela.tflite")):
            self._spec = ("compilation", path, bool(allow_outside_case), layers)
        elif os.path.isdir(path) or os.path.basename(path) == "manifest.json":
            self._spec = ("case", path, bool(allow_outside_case), layers)
        elif path.endswith(".tflite"):
            self._spec = ("tflite", path, layers)
        elif not os.path.exists(path):
            raise InputError(f"{path}: no such file or folder")
        else:
            raise InputError(f"{path}: a raw command stream needs its regions: use Job.from_stream(path, regions=...)")
        self._writes = []
        self._load()

    @classmethod
    def from_case(cls, path, allow_outside_case=False, layers=None):
        return cls._from_spec(("case", os.path.abspath(os.fspath(path)), bool(allow_outside_case),
                               _layers_spec(layers)))

    @classmethod
    def from_tflite(cls, path, layers=None):
        return cls._from_spec(("tflite", os.path.abspath(os.fspath(path)), _layers_spec(layers)))

    @classmethod
    def from_stream(cls, path, regions, outputs=None, layers=False):
        """A raw stream (bare, COP1 or COP2): a file's path, or the stream's bytes.

        regions: {index: file | size | (file, size)}: contents from a file, zeros of a size, or a file in a
            larger region.
        outputs: {name: (region, offset, size_bytes)}: the byte ranges to read back after a run (uint8).
        layers: Vela's register listing or per-layer CSV that names the operations' layers (default none).
        Place inputs with write(): a raw stream does not say where its inputs go.
        """
        region_args = []
        stream_bytes = isinstance(path, (bytes, bytearray, memoryview))
        for index, spec in sorted(regions.items()):
            if isinstance(spec, tuple):
                file, size = spec
            elif isinstance(spec, (int, np.integer)):
                file, size = None, int(spec)
            else:
                file, size = spec, None
            region_args.append((int(index), None if file is None else os.path.abspath(os.fspath(file)), size))
        dumps = [(int(r), int(o), int(s), name) for name, (r, o, s) in (outputs or {}).items()]
        layers = _layers_spec(layers) or False
        if stream_bytes:
            return cls._from_spec(("stream_bytes", bytes(path), tuple(region_args), tuple(dumps), layers))
        return cls._from_spec(("stream", os.path.abspath(os.fspath(path)), tuple(region_args), tuple(dumps), layers))

    @classmethod
    def _from_spec(cls, spec):
        job = cls.__new__(cls)
        job._spec = spec
        job._writes = []
        job._load()
        return job

    def _load(self):
        """Reads the submission (again, after unpickling) and replays the writes."""
        kind, path, layers = self._spec[0], self._spec[1], self._spec[-1]
        # The native loaders read everything, manifest shapes included: Python parses no file of the job's, so
        # that whatever the C++ reader accepts (a manifest nested 100,000 levels deep) Python accepts too.
        if kind == "case":
            self._native = _ethosu_sim.load_case(path, self._spec[2])
        elif kind == "tflite":
            self._native = _ethosu_sim.load_tflite(path)
        elif kind == "compilation":
            self._native = _ethosu_sim.load_compilation(path, self._spec[2])
        elif kind == "stream_bytes":
            self._native = _ethosu_sim.load_stream_bytes(path, list(self._spec[2]), list(self._spec[3]))
        else:
            self._native = _ethosu_sim.load_stream(path, list(self._spec[2]), list(self._spec[3]))
        if layers is not None:  # None: the files beside the job, which the loader read
            self._native.name_layers(layers or None)
        self._inputs = [self._tensor(t) for t in self._native.inputs]
        self._outputs = [self._tensor(t) for t in self._native.outputs]
        for region, offset, data in self._writes:
            self._native.write(region, offset, data)

    @staticmethod
    def _tensor(t):
        """A tensor description with a numpy dtype and a shape whose size matches its bytes."""
        t = dict(t)
        dtype = np.dtype(t["dtype"]) if t["dtype"] else np.dtype(np.uint8)
        count = t["size_bytes"] // dtype.itemsize
        shape = tuple(t["shape"]) or (count,)
        if int(np.prod(shape)) * dtype.itemsize != t["size_bytes"]:
            shape = (count,)  # the format's shape does not describe the bytes (packed or padded): stay flat
        t["dtype"], t["shape"] = dtype, shape
        return t

    def __getstate__(self):
        return {"spec": self._spec, "writes": self._writes}

    def __setstate__(self, state):
        # Loaded on first use: a worker that already holds an identical job (sweep's cache) never reads it.
        self._spec = state["spec"]
        self._writes = list(state["writes"])

    def __getattr__(self, name):
        # Only called for missing attributes: the loaded parts of an unpickled job.
        if name in ("_native", "_inputs", "_outputs") and "_spec" in self.__dict__:
            self._load()
            return self.__dict__[name]
        raise AttributeError(name)

    def identity(self):
        """What the job is made of (source and writes): equal identities run identically."""
        return (self._spec, tuple(self._writes))

    def copy(self):
        job = Job.__new__(Job)
        job._spec, job._writes = self._spec, list(self._writes)
        job._native = self._native.copy()
        job._inputs, job._outputs = self._inputs, self._outputs
        return job

    @property
    def name(self):
        return self._native.name

    @property
    def kind(self):
        """'case', 'tflite' or 'stream'."""
        return self._native.kind

    @property
    def source(self):
        return self._spec[1]

    @property
    def variant(self):
        """The NPU variant the job was built for."""
        return self._native.variant

    @property
    def inputs(self):
        """Input tensors: name, region, offset, size_bytes, dtype, shape."""
        return [dict(t) for t in self._inputs]

    @property
    def outputs(self):
        """Output tensors: as inputs, plus the expected-output file and its reference engine when known."""
        return [dict(t) for t in self._outputs]

    @property
    def layers(self):
        """{stream offset of an operation's NPU_OP_* command: the name of its layer}, from Vela's files."""
        return dict(self._native.layers)

    @property
    def layers_note(self):
        """Where the layer names came from, or why there are none."""
        return self._native.layers_note

    @property
    def region_sizes(self):
        return list(self._native.region_sizes)

    def _index(self, key, tensors, what):
        if isinstance(key, (int, np.integer)):
            if not 0 <= key < len(tensors):
                raise InputError(f"{self.name}: no {what} {key} (the job has {len(tensors)})")
            return int(key)
        for k, t in enumerate(tensors):
            if t["name"] == key:
                return k
        names = ", ".join(t["name"] for t in tensors) or "none"
        raise InputError(f"{self.name}: no {what} named '{key}' (it has: {names})")

    def set_input(self, key, value):
        """Places an input (by index or name) from a numpy array of its dtype and shape (or flat, of its size),
        Python numbers that its dtype holds, or raw bytes."""
        t = self._inputs[self._index(key, self._inputs, "input")]
        what = f"{self.name}: input '{t['name']}'"
        if isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
        else:
            if isinstance(value, np.ndarray):
                array = value
            else:
                # Python numbers: refuse what the tensor's type cannot hold rather than wrap it.
                values = np.asarray(value)
                dtype = np.dtype(t["dtype"])
                if dtype.kind in "iu" and values.size:
                    if values.dtype.kind not in "iub":
                        raise InputError(f"{what} is {t['dtype']}, got {values.dtype} values")
                    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
                    if int(values.min()) < lo or int(values.max()) > hi:
                        raise InputError(f"{what} is {t['dtype']}: values from {int(values.min())} to "
                                         f"{int(values.max())} do not fit [{lo}, {hi}]")
                array = values.astype(dtype)
            if array.dtype != t["dtype"]:
                raise InputError(f"{what} is {t['dtype']}, got an array of {array.dtype}")
            data = np.ascontiguousarray(array).tobytes()
            shape = tuple(array.shape)
        if len(data) != t["size_bytes"]:
            raise InputError(f"{self.name}: input '{t['name']}' has {t['size_bytes']} bytes (shape {t['shape']}), "
                             f"got {len(data)}")
        # A flat array (as read from a file) carries no shape; any other shape must be the tensor's.
        if (not isinstance(value, (bytes, bytearray, memoryview)) and t["shape"] and len(shape) > 1
                and shape != tuple(t["shape"])):
            raise InputError(f"{what} has shape {tuple(t['shape'])}, got {shape} "
                             f"(reshape it if the layout is what you mean)")
        self.write(t["region"], t["offset"], data)

    def set_inputs(self, inputs):
        """Several inputs: a list in input order, or a dict of name or index -> array."""
        items = inputs.items() if isinstance(inputs, dict) else enumerate(inputs)
        for key, value in items:
            self.set_input(key, value)

    def input(self, key):
        """An input's current bytes as a numpy array of its dtype and shape."""
        t = self._inputs[self._index(key, self._inputs, "input")]
        data = self._native.read(t["region"], t["offset"], t["size_bytes"])
        return np.frombuffer(data, dtype=t["dtype"]).reshape(t["shape"]).copy()

    def write(self, region, offset, data):
        """Copies bytes into a region before the run (checked against the region's size)."""
        data = bytes(data)
        self._native.write(int(region), int(offset), data)
        self._writes.append((int(region), int(offset), data))

    def read(self, region, offset, size_bytes):
        return self._native.read(int(region), int(offset), int(size_bytes))

    def __repr__(self):
        return f"Job({self.name!r}, {self.kind}, {self.variant}, {len(self._inputs)} inputs, {len(self._outputs)} outputs)"


def _layers_spec(layers):
    """Job's layers argument as its spec keeps it: None, False or an absolute path."""
    if layers is None or layers is False:
        return layers
    return os.path.abspath(os.fspath(layers))


def as_job(job):
    """A Job from a Job or a path."""
    return job if isinstance(job, Job) else Job(job)

"""The machine a job runs on, as a Python object.

A Config layers, in this order, on what the job was compiled for: a system (a preset such as ``imx93``, or
a vela.ini system config, from the built-in sections or the user's ``vela_ini`` files) with a memory mode
(any system takes any), a parameter file, parameters by hierarchical name, and the NPU variant. Unset fields change
nothing. Configs are immutable; ``replace()`` makes a changed copy, which is how sweeps build their points.
Nothing is checked until the config is resolved (``resolve()``, ``run()``, ``sweep()``), where the
simulator raises InputError naming an unknown system, parameter or value.
"""

import dataclasses
import json
import os
from typing import Mapping, Optional, Tuple

from . import _ethosu_sim

# Keys of replace()/run() that are Config fields; any key with a dot is a parameter name.
FIELDS = ("variant", "system", "memory_mode", "vela_ini", "config_file", "allow_variant_mismatch")


def _value_text(name, value):
    """A parameter value as the simulator's text syntax."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    # numpy scalars and the like
    if hasattr(value, "item"):
        return _value_text(name, value.item())
    raise _ethosu_sim.InputError(f"parameter {name}: cannot use a value of type {type(value).__name__}")


@dataclasses.dataclass(frozen=True)
class Config:
    variant: Optional[str] = None  # a name of variants() ("ethos-u55-128", ...); default: what the job was built for
    system: Optional[str] = None  # preset or vela.ini system config
    memory_mode: Optional[str] = None  # vela.ini memory mode or No_Sram, on any system (default: the system's)
    vela_ini: Tuple[str, ...] = ()  # the user's vela.ini files
    config_file: Optional[str] = None  # 'name = value' lines
    params: Mapping[str, object] = dataclasses.field(default_factory=dict)  # hierarchical name -> value
    # Run a case or model on another variant than it was compiled for (a what-if: VariantMismatchWarning) instead
    # of refusing it with InputError.
    allow_variant_mismatch: bool = False

    def __post_init__(self):
        vela_ini = self.vela_ini
        if isinstance(vela_ini, (str, os.PathLike)):
            vela_ini = (vela_ini,)
        object.__setattr__(self, "vela_ini", tuple(os.fspath(p) for p in vela_ini))
        if self.config_file is not None:
            object.__setattr__(self, "config_file", os.fspath(self.config_file))
        object.__setattr__(self, "params", dict(self.params))

    @classmethod
    def of(cls, config=None, **settings):
        """A Config from None, a Config or a dict, with settings (fields or parameter names) on top."""
        if config is None:
            config = cls()
        elif isinstance(config, Mapping):
            config = cls().replace(**config)
        elif not isinstance(config, cls):
            raise TypeError(f"config must be a Config or a dict, not {type(config).__name__}")
        return config.replace(**settings) if settings else config

    def replace(self, **changes):
        """A copy with fields (variant, system, ...) or parameters (names with a dot) changed."""
        fields, params = {}, dict(self.params)
        for key, value in changes.items():
            if key in FIELDS:
                fields[key] = value
            elif key == "params":
                params.update(value)
            elif "." in key:
                params[key] = value
            else:
                raise _ethosu_sim.InputError(
                    f"'{key}' is neither a configuration field ({', '.join(FIELDS)}) nor a parameter name "
                    "(parameters have dotted names; ethosu_sim.parameters() lists them)")
        return dataclasses.replace(self, params=params, **fields)

    def describe(self):
        """The fields and parameters set, as plain values (for tables' metadata)."""
        out = {name: getattr(self, name) for name in FIELDS if getattr(self, name)}
        if "vela_ini" in out:
            out["vela_ini"] = list(out["vela_ini"])
        out.update({name: value.item() if hasattr(value, "item") else value for name, value in self.params.items()})
        return out

    def request(self):
        """The native MachineRequest."""
        r = _ethosu_sim.MachineRequest()
        r.variant = self.variant
        r.system = self.system
        r.memory_mode = self.memory_mode
        r.vela_ini = list(self.vela_ini)
        r.config_file = self.config_file
        r.assignments = [f"{name}={_value_text(name, value)}" for name, value in self.params.items()]
        r.origin = "python"
        r.allow_variant_mismatch = bool(self.allow_variant_mismatch)
        return r

    def resolve(self, job_variant=_ethosu_sim.default_variant):
        """Every parameter's resolved value, unit, source and origin, for a job built for job_variant."""
        return json.loads(_ethosu_sim.resolve_config(self.request(), job_variant))

    def check(self, job_variant=_ethosu_sim.default_variant):
        """Raises InputError, naming the problem, when the config does not resolve."""
        _ethosu_sim.check_config(self.request(), job_variant)

    def values(self, job_variant=_ethosu_sim.default_variant):
        """name -> resolved value."""
        return {name: p["value"] for name, p in self.resolve(job_variant).items()}


def parameters():
    """Every parameter: name -> {type, value (the imx93 default), unit, description, choices, range (as text),
    and min and max for numbers}."""
    return {p.pop("name"): p for p in _ethosu_sim.parameters()}

"""Exceptions raised by ethosu_sim.

InputError (a ValueError) is the simulator's own: a wrong file, parameter, value or placement, with the
simulator's message naming what and where. NpuFault (a RuntimeError) means the simulated NPU stopped on
a fault, as a driver would see it; its ``result`` holds what the run produced up to the fault.
"""

from ._ethosu_sim import InputError


class VariantMismatchWarning(UserWarning):
    """A job runs on another NPU variant than it was compiled for, as asked with allow_variant_mismatch=True (or
    under a payload header of Vela 3.2 and older): its cycles are those of that NPU running this stream, not of
    Vela's build for it. Filter it by this class to silence it in a what-if study."""


class NpuFault(RuntimeError):
    """The NPU faulted; str(e) is the fault as the driver reports it, e.result the partial Result."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result

    def __reduce__(self):
        # Pickled across worker processes without the (large, process-local) result.
        return (NpuFault, (str(self),))


__all__ = ["InputError", "NpuFault", "VariantMismatchWarning"]

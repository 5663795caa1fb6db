"""A stand-in for pynvml: the node's FAKE_NVML ("COUNT:MODEL"; absent: no driver)."""

import os


class NVMLError(Exception):
    pass


def _spec():
    spec = os.environ.get("FAKE_NVML")
    if spec is None:
        raise NVMLError("NVML Shared Library Not Found")
    count, _, model = spec.partition(":")
    return int(count), model


def nvmlInit():
    _spec()


def nvmlShutdown():
    pass


def nvmlDeviceGetCount():
    return _spec()[0]


def nvmlDeviceGetHandleByIndex(i):
    return i


def nvmlDeviceGetName(handle):
    return _spec()[1].encode()  # bytes, as pynvml before 11.5

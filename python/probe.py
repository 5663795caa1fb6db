"""rlsolve's inventory probe: a short Ray job that `rlsolve topology --ray URL` submits.

It reports, for every alive node, what Ray's HTTP APIs cannot see and RLinf's own node probe
reads (rlinf/scheduler/cluster/node.py): the raylet's RLINF_NODE_RANK, the GPU count and model
as NVML reports them (RLinf counts NVML, not Ray's GPU resource), the Python and the node's IP.
Everything goes out as one line of JSON after MARKER, which rlsolve parses (topology/rayprobe.go).
"""

import ctypes
import json
import os
import sys

MARKER = "RLSOLVE_PROBE_RESULT "
# How long one node may take to answer; a node that does not is reported, not waited for.
NODE_TIMEOUT_S = 60


def nvml():
    """The node's GPUs as NVML sees them: pynvml when importable, else libnvidia-ml.so.1
    through ctypes; {"nvml": "unavailable"} where neither works (no driver, fake GPUs)."""
    try:
        import pynvml
    except ImportError:
        return nvml_ctypes()
    try:
        pynvml.nvmlInit()
    except Exception as e:  # pynvml.NVMLError: no driver
        return {"nvml": "unavailable", "error": str(e)}
    try:
        count = pynvml.nvmlDeviceGetCount()
        name = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0)) if count else ""
        if isinstance(name, bytes):  # pynvml before 11.5 returns bytes
            name = name.decode(errors="replace")
        return {"nvml": "pynvml", "gpus": count, "model": name}
    finally:
        pynvml.nvmlShutdown()


def nvml_ctypes():
    """nvml() without pynvml: the C library's count and the first device's name."""
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        return {"nvml": "unavailable", "error": str(e)}
    if lib.nvmlInit_v2() != 0:
        return {"nvml": "unavailable", "error": "nvmlInit_v2 failed"}
    try:
        count = ctypes.c_uint()
        if lib.nvmlDeviceGetCount_v2(ctypes.byref(count)) != 0:
            return {"nvml": "unavailable", "error": "nvmlDeviceGetCount_v2 failed"}
        name = ""
        handle = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(96)
        if count.value and lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0:
            if lib.nvmlDeviceGetName(handle, buf, len(buf)) == 0:
                name = buf.value.decode(errors="replace")
        return {"nvml": "libnvidia-ml", "gpus": count.value, "model": name}
    finally:
        lib.nvmlShutdown()


def node_facts():
    """Runs on one node, in a worker the raylet started: its environment is the raylet's,
    so RLINF_NODE_RANK is the one exported before `ray start`, as RLinf reads it."""
    import ray

    facts = {"rank": os.environ.get("RLINF_NODE_RANK"), "ip": ray.util.get_node_ip_address(),
             "python": sys.executable}
    facts.update(nvml())
    return facts


def main(ray):
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray.init(address="auto")
    alive = [n for n in ray.nodes() if n.get("Alive")]
    # num_cpus=0: the probe runs even on a node whose CPUs are all taken.
    probe = ray.remote(num_cpus=0)(node_facts)
    refs = {}
    for n in alive:
        pin = NodeAffinitySchedulingStrategy(node_id=n["NodeID"], soft=False)
        refs[n["NodeID"]] = probe.options(scheduling_strategy=pin).remote()
    out = {}
    for node_id, ref in refs.items():
        try:
            out[node_id] = ray.get(ref, timeout=NODE_TIMEOUT_S)
        except Exception as e:  # a node that died or hangs: say so, keep the others
            out[node_id] = {"error": "%s: %s" % (type(e).__name__, e)}
    print(MARKER + json.dumps({"nodes": out}, sort_keys=True), flush=True)


if __name__ == "__main__":
    import ray as _ray

    main(_ray)

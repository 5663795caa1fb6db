"""A stand-in worker: says where the plan put it, then waits a little, as a
training step would."""

import os
import time

keys = ["WORKER_NAME", "CLUSTER_NODE_RANK", "CUDA_VISIBLE_DEVICES", "MASTER_ADDR", "MASTER_PORT"]
print(" ".join("%s=%s" % (k, os.environ.get(k, "")) for k in keys), flush=True)
time.sleep(float(os.environ.get("WORKER_SECONDS", "1")))

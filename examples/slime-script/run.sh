#!/bin/bash

# for rerun the task (stubbed by rlsolve: nothing is killed)
pkill -9 sglang
sleep 3
ray stop --force
pkill -9 python

set -ex

NUM_NODES=${NUM_NODES:-2}
GPUS_PER_NODE=$(nvidia-smi -L | wc -l)
ACTOR_GPUS=$((NUM_NODES * GPUS_PER_NODE))

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/tiny-moe.sh"

# prefill/decode disaggregation: one prefill engine of 4 GPUs, then decode
SGLANG_CONFIG=$(mktemp /tmp/sglang_XXXXXX.yaml)
cat > "${SGLANG_CONFIG}" <<CFG
sglang:
  - name: default
    server_groups:
      - worker_type: prefill
        num_gpus: 4
        num_gpus_per_engine: 4
      - worker_type: decode
        num_gpus: 12
        num_gpus_per_engine: 4
CFG

ROLLOUT_ARGS=(
   --rollout-num-gpus $((ACTOR_GPUS))
   --sglang-config "${SGLANG_CONFIG}"
)

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes ${NUM_NODES} \
   --actor-num-gpus-per-node ${GPUS_PER_NODE} \
   --colocate \
   "${MODEL_ARGS[@]}" \
   "${ROLLOUT_ARGS[@]}"

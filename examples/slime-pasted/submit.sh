ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json='{
     "env_vars": {
        "PYTHONPATH": "/root/Megatron-LM/",
        "CUDA_DEVICE_MAX_CONNECTIONS": "1"
     }
   }' \
   -- python3 train.py \
   --actor-num-nodes 2 \
   --actor-num-gpus-per-node 8 \
   --rollout-num-gpus 8 \
   --rollout-num-gpus-per-engine 2 \
   --hf-checkpoint /root/Qwen3-4B \
   --ref-load /root/Qwen3-4B_torch_dist \
   --rollout-batch-size 32 \
   --n-samples-per-prompt 8 \
   --tensor-model-parallel-size 2 \
   --sequence-parallel \
   --sglang-mem-fraction-static 0.7 \
   --attention-backend flash

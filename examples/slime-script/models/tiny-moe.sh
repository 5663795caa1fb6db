# A model file as slime's scripts/models/*.sh: Megatron's shape flags.
N_DENSE_LAYERS=1
N_MOE_LAYERS=3
MODEL_ARGS=(
   --num-layers $((N_DENSE_LAYERS + N_MOE_LAYERS))
   --moe-layer-freq [0]*$N_DENSE_LAYERS+[1]*$N_MOE_LAYERS
   --hidden-size 1024
)

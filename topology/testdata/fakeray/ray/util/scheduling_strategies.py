"""ray.util.scheduling_strategies for the fake ray."""


class NodeAffinitySchedulingStrategy:
    def __init__(self, node_id, soft):
        self.node_id, self.soft = node_id, soft

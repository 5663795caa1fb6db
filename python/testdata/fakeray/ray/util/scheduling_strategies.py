class NodeAffinitySchedulingStrategy:
    def __init__(self, node_id, soft):
        self.node_id, self.soft = node_id, soft


class PlacementGroupSchedulingStrategy:
    def __init__(self, placement_group, placement_group_bundle_index=-1):
        self.placement_group = placement_group
        self.placement_group_bundle_index = placement_group_bundle_index

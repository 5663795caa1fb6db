from .. import STATE, _done


class PlacementGroup:
    def __init__(self, bundles, strategy, name):
        self.bundles, self.strategy, self.name = bundles, strategy, name

    def ready(self):
        return _done(True)


def placement_group(bundles, strategy="PACK", name=""):
    pg = PlacementGroup(bundles, strategy, name)
    STATE.pgs.append(pg)
    return pg


def remove_placement_group(pg):
    STATE.removed.append(pg)

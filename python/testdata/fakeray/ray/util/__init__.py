from .. import current_ip as get_node_ip_address  # noqa: F401
from . import placement_group, scheduling_strategies  # noqa: F401

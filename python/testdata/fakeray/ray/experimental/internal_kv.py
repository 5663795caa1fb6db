from .. import STATE


def _internal_kv_get(key):
    return STATE.kv.get(key)

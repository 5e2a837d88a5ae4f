"""Host-side libraries: ``asc.lib.runtime`` (streams) and ``asc.lib.host`` (tiling)."""

"""What Pyodide's kernel sets and calls on piplite, answered without any network."""

import micropip

#: set by the kernel at start-up; kept so the kernel's assignments land somewhere
_PIPLITE_URLS = []
_PIPLITE_DISABLE_PYPI = True


async def install(requirements, *args, **kwargs):
    """Refuse, as the site's micropip does."""
    return await micropip.install(requirements)

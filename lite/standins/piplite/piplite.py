"""What Pyodide's kernel sets and calls on piplite, answered without any network."""

import micropip

#: set by the kernel at start-up; kept so the kernel's assignments land somewhere
_PIPLITE_URLS = []
_PIPLITE_DISABLE_PYPI = True


async def install(requirements, *args, **kwargs):
    """The kernel's start asks for jedi, which the site serves but does not unpack at start:
    it is unpacked at its first import (later.py). Anything else is refused, as the site's
    micropip does."""
    if requirements == "jedi":
        from .later import wait_for_first_import

        return wait_for_first_import()
    return await micropip.install(requirements)

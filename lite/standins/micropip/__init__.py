"""The course site's micropip: the site is offline and ships every package it needs.

Pyodide's kernel loads a package named micropip before anything else; the real one fetches
wheels from the network, which this site never does. Installing anything says so plainly.
"""

__version__ = "0+course"

OFFLINE = (
    "This course site runs offline: it ships everything the notebooks need "
    "(Python's standard library), and installs nothing else."
)


async def install(requirements, *args, **kwargs):
    """Refuse, naming what was asked for."""
    raise RuntimeError(f"cannot install {requirements!r}. {OFFLINE}")

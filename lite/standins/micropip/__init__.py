"""The course site's micropip: the site ships every package it needs and fetches no other.

Pyodide's kernel loads a package named micropip before anything else; the real one fetches
wheels from the web, which this site never does. Installing anything says so plainly.
"""

__version__ = "0+course"

WHY = (
    "this course site has no package installer. The notebooks need only Python's standard "
    "library, which is already here."
)


async def install(requirements, *args, **kwargs):
    """Refuse, naming what was asked for."""
    names = [requirements] if isinstance(requirements, str) else list(requirements)
    raise RuntimeError(f"{', '.join(names)} cannot be installed here: {WHY}")

"""The course site's piplite: the kernel's `%pip` and `piplite.install` say the site is offline."""

from .piplite import install

__all__ = ["install"]

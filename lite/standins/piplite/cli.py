"""`%pip ...` in a notebook cell becomes a call that explains the site is offline."""


async def get_transformed_code(argv):
    """The code the kernel runs in place of a `%pip` line."""
    return f'await __import__("piplite").install({argv!r})\n'

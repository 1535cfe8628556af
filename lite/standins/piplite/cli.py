"""`%pip ...` in a notebook cell becomes a call that explains the site installs nothing."""


async def get_transformed_code(argv):
    """The code the kernel runs in place of a `%pip` line: the packages named, without options."""
    if argv[:1] == ["install"]:
        names = [a for a in argv[1:] if not a.startswith("-")]
        return f'await __import__("piplite").install({names!r})\n'
    return f"raise RuntimeError({'this course site has no pip: ' + ' '.join(argv)!r})\n"

# The site's kernel runs this file as its IPython shell starts (PYTHONSTARTUP, lite/build.py), in
# the learner's namespace: so it leaves no name there.
__import__("piplite").cwd_last()

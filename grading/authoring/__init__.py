"""Making the course: master notebooks and their text forms, language editions, releases and
workspaces, the mistake catalogue's code and the answer tables built from it."""

"""Instructor-side grading; nothing here ships to learners.

    paths      every path of the repository and of the class, in one place
    parts      the registry of the course's parts: one entry each, nothing else names a part
    cli        the one command line, `python -m grading <command>` (__main__ runs it)
    judge/     the trusted judge: its workers, the reference, hidden cases; decides every point
    nbgrader/  nbgrader's side: intake, the preprocessors, feedback, collect, the class records
    scale/     parallel grading servers, Dask, warm kernels, the PostgreSQL gradebook
    authoring/ masters, text forms, editions, releases, the mistakes as code, answer tables
    machine/   Debian packages, the interpreter, the course user, the sandbox and its cgroups
    classroom  the instructor's commands over a whole class: autograde, feedback, grades, demo
    verdicts   the judge command: every verdict of one submission, as the course user

This package lives outside nbgrader's source folders (notebooks/masters/<part>), so
`nbgrader generate_assignment` never copies it.
"""

"""The grading machine: Debian packages (system), the course's interpreter (interpreter), the
unprivileged course user that grades in root's place (course_user), and the confinement every
piece of learner code runs in, kernels and the judge's workers alike (sandbox: bubblewrap, uids
and limits; cgroups: every process counted and ended)."""

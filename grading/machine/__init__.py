"""The grading machine: Debian packages (system), the course's interpreter (interpreter), and the
confinement every piece of learner code runs in, kernels and the judge's workers alike (sandbox:
bubblewrap, uids and limits; cgroups: every process counted and ended). The course user that
grades in root's place builds on them from above (grading.course_user)."""

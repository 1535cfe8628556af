"""Instructor-side grading: the reference, the hidden checks and the mistake catalogue's code.

Nothing here ships to learners: this package lives outside nbgrader's source folders
(notebooks/<part>), so `nbgrader generate_assignment` never copies it.
"""

"""The live lab view: during a lab on the course's hub, which checkpoint each learner is on, what
the room gets wrong right now, and who has been stuck longest.

A learner's checkpoint run, on the hub only, reports its result (checkpoints/labview.py) to the hub
service `lab-view` (service.py) with the learner's own server token: the hub says who sent it.
The service keeps every report (store.py: SQLite, exported as CSV) and shows the instructors the
room (page.py). It never changes a grade: points come from the judge alone.

    python -m grading.hub.labview.service     # run by the hub as the course user
"""

SERVICE = "lab-view"

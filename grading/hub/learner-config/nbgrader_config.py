"""nbgrader's configuration in a learner's server on the course's hub: the course's exchange
(grading/hub/exchange/learner.py), reached with the token the hub gave the server."""

import os

from grading import hub

c = get_config()  # noqa: F821  (nbgrader gives the file get_config)
c.CourseDirectory.course_id = "attention-by-hand"
# Parts are fetched into the workspace the hub made (nbgrader would take the server's cwd, the home)
c.Exchange.assignment_dir = os.path.join(os.path.expanduser("~"), hub.WORKSPACE)
c.ExchangeFactory.list = "grading.hub.exchange.learner.List"
c.ExchangeFactory.fetch_assignment = "grading.hub.exchange.learner.FetchAssignment"
c.ExchangeFactory.submit = "grading.hub.exchange.learner.Submit"
c.ExchangeFactory.fetch_feedback = "grading.hub.exchange.learner.FetchFeedback"

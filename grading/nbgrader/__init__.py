"""nbgrader's side of grading: intake of a submission, the preprocessors that put the judge's
verdicts into the graded cells, feedback pages, collecting learners' zips, and the class records."""

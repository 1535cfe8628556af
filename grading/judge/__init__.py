"""The trusted judge: the only code that decides a point.

It reads a submission's files as data, runs the learner's functions in sandboxed workers (core,
worker; the sandbox itself is machine.sandbox), and compares them with the reference (reference,
isolation) on the visible and hidden cases of each part (attention + attention_hidden, xslm +
xslm_hidden). It imports nothing of nbgrader, and nothing here ships to learners.
"""

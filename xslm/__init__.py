"""Part two's reference: engine.py and gpt.py exactly as the master notebooks write them.

`make reference` refreshes them from notebooks/masters/xslm; test_xslm_notebooks.py fails when they
drift. `from xslm import engine, gpt` gives the two modules, gpt.py importing this engine.
"""

import os

from checkpoints.xslm.files import load_learner

HERE = os.path.dirname(os.path.abspath(__file__))

engine, gpt = load_learner(HERE)

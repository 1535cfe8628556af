"""`python -m grading <command>`: see grading.cli."""

import sys

from grading.cli import main

sys.exit(main())

"""Build checkpoints/fingerprints.json.

It records how the reference and every catalogued mistake answer each probe.

python -m grading.fingerprints          # rewrite the file
python -m grading.fingerprints --check  # exit 1 if the committed file is stale
"""

import json
import sys

from checkpoints.catalogue import at_checkpoint
from checkpoints.diagnose import FINGERPRINTS_FILE, probe_signatures
from checkpoints.probes import CHECKPOINTS
from grading.mistakes import buggy_model
from grading.reference import reference


def build():
    """{checkpoint: {"correct": signatures, "mistakes": {name: signatures}}} from the real code."""
    table = {}
    for checkpoint in CHECKPOINTS:
        table[checkpoint] = {
            "correct": probe_signatures(checkpoint, reference()),
            "mistakes": {
                m.name: probe_signatures(checkpoint, buggy_model(m.name))
                for m in at_checkpoint(checkpoint)
            },
        }
    return table


def render(table):
    """The table as the file's text: sorted keys, so the same table always gives the same bytes."""
    return json.dumps(table, indent=1, sort_keys=True) + "\n"


def main(argv):
    """Rewrite fingerprints.json, or with --check only compare it; the exit status (1: stale)."""
    text = render(build())
    if "--check" in argv:
        with open(FINGERPRINTS_FILE, encoding="utf-8") as f:
            stale = f.read() != text
        print(
            "fingerprints.json is stale: run `python -m grading.fingerprints`"
            if stale
            else "fingerprints.json is up to date"
        )
        return 1 if stale else 0
    with open(FINGERPRINTS_FILE, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {FINGERPRINTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

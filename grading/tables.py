"""Every CSV the course writes (grades.csv, the LMS exports) goes through writer(): a spreadsheet
runs a cell that starts with =, +, -, @, a tab or a carriage return (full-width forms too) as a
formula, and a learner's file names and words reach these tables. Such a text cell is written
with a leading ' (shown as text); a number stays a number, a negative one included.

Standard library only.
"""

import csv
import re
import unicodedata

FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that starts so
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")  # a plain number a spreadsheet reads as one


def starts_like_formula(value):
    """True when a spreadsheet would run the text as a formula (after NFKC, as it reads it),
    leading spaces and invisible characters (which an import may trim) passed over."""
    text = unicodedata.normalize("NFKC", value)
    start = next((i for i, c in enumerate(text) if not invisible(c)), len(text))
    return text.startswith(FORMULA, start)


def invisible(char):
    """A space, a control or a format character (a zero-width space, a BOM): nothing shown."""
    return unicodedata.category(char) in ("Zs", "Cc", "Cf") and char not in "\t\r"


def safe_cell(value):
    """A cell as written: a text starting like a formula gets a leading '; the rest as it is."""
    if isinstance(value, str) and starts_like_formula(value) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


class writer:  # noqa: N801 - named and used as csv.writer is
    """csv.writer whose every cell passes through safe_cell()."""

    def __init__(self, f):
        self.rows = csv.writer(f)

    def writerow(self, row):
        """Write one row, each cell made safe."""
        self.rows.writerow([safe_cell(value) for value in row])

    def writerows(self, rows):
        """Write each row, as writerow."""
        for row in rows:
            self.writerow(row)

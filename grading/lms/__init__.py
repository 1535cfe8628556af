"""Grades into the LMS: the class roster into the gradebook, and the grades out in an LMS's layout.

    python -m grading roster ROSTER.csv [--force]        # make roster ROSTER=roster.csv [FORCE=1]
    python -m grading export --to canvas|moodle|plain [--columns total|checkpoints]
                             [--title TITLE] [--part xslm]   # make export LMS=canvas ...

`roster` adds the students a roster lists to the gradebook, with their names, emails and LMS ids
(roster.py says what a roster holds). A student the gradebook knows keeps every field the roster
leaves empty; a field the roster would change is listed and nothing is written, unless --force.
`export` writes records/exports/<lms>.csv (<lms>-<part>.csv after the first part): a row per
student of the gradebook or submitted/, and either the part's total or a column per graded cell
(layouts.py says what each LMS reads). Both run as the course user, which owns records/; the
roster is read first by whoever runs the command, since the instructor's file may be theirs alone.
"""

import argparse
import json
import os
import sys
import tempfile

from grading import classroom, course_user, tables
from grading.lms import layouts, roster
from grading.lms.layouts import Column, Person
from grading.nbgrader import deadlines, records
from grading.parts import ASSIGNMENT, PARTS, suffix
from grading.paths import COURSE, DEMO, EXPORTS, ROOT, db_url


def known_people():
    """{id: {field: value}} of every student in the gradebook ("" for a field it lacks)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url()) as gb:
        return {s.id: {f: getattr(s, f) or "" for f in roster.FIELDS} for s in gb.students}


def import_roster(people, force=False):
    """Add or update people ({id: {field: value}}) in the gradebook; SystemExit listing the
    changes to fields it already holds, unless force. Returns (added, updated, unchanged)."""
    from nbgrader.api import Gradebook

    known = known_people()
    changed = roster.changes(people, known)
    if changed and not force:
        for student, field, was, becomes in changed:
            print(f"  {student}: {field} {was!r} -> {becomes!r}")
        raise SystemExit(f"roster: the {len(changed)} change(s) above would overwrite what the "
                         "gradebook holds; nothing was written (FORCE=1 makes them)")  # fmt: skip
    counts = {"added": 0, "updated": 0, "unchanged": 0}
    with Gradebook(db_url()) as gb:
        for student, fields in people.items():
            given = {f: v for f, v in fields.items() if v}  # an empty cell keeps what is known
            if student not in known:
                counts["added"] += 1
            elif all(known[student][f] == v for f, v in given.items()):
                counts["unchanged"] += 1
                continue
            else:
                counts["updated"] += 1
            gb.update_or_create_student(student, **given)
    missing = sorted(set(known) - set(people))
    print(f"roster: {counts['added']} added, {counts['updated']} updated, "
          f"{counts['unchanged']} unchanged in the gradebook")  # fmt: skip
    if missing:
        print(f"roster: in the gradebook but not on the roster (left as they are): "
              f"{', '.join(missing)}")  # fmt: skip
    return counts


def cell_points(assignment):
    """[(grade_id, points possible)] of a part's graded cells, in notebook order."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url()) as gb:
        try:
            found = gb.find_assignment(assignment)
        except MissingEntry:
            return []
        notebooks = sorted(found.notebooks, key=lambda n: n.name)
        return [(c.name, c.max_score) for n in notebooks
                for c in sorted(n.grade_cells, key=lambda c: c.name)]  # fmt: skip


def columns_of(assignment, table, kind, title, late):
    """The export's grade items: the part's total (after late penalties), or one per graded cell
    ("title: grade_id"), plus the late penalties as negative scores if any were taken."""
    if kind == "total":
        top = max((top for _, _, _, top, _ in table), default=0.0)
        return [Column(title, top, {s: (total if scores else None)
                                    for s, scores, total, _, _ in table})]  # fmt: skip
    cells = [Column(f"{title}: {grade_id}", points, {s: scores.get(grade_id) if scores else None
                                                     for s, scores, *_ in table})
             for grade_id, points in cell_points(assignment)]  # fmt: skip
    taken = {s: -late[s].penalty for s, scores, *_ in table if scores and s in late}
    if any(taken.values()):
        cells.append(Column(f"{title}: late penalty", 0.0, taken))
    return cells


def export_file(lms, assignment=ASSIGNMENT):
    """records/exports/<lms>.csv, or <lms>-<part>.csv for a part after the first."""
    return os.path.join(EXPORTS, f"{lms}{suffix(assignment)}.csv")


def export(lms, kind="total", title=None, assignment=ASSIGNMENT):
    """Write the part's grades in the LMS's layout; print where, and who it cannot match."""
    table = classroom.grade_table(assignment)
    known = known_people()
    people = [Person(s, **known.get(s, {})) for s, *_ in table]
    late = deadlines.lateness(assignment)
    columns = columns_of(assignment, table, kind, title or assignment, late)
    path = export_file(lms, assignment)
    os.makedirs(EXPORTS, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        tables.writer(f).writerows(layouts.LAYOUTS[lms](people, columns, late))
    graded = sum(bool(scores) for _, scores, *_ in table)
    print(f"wrote {os.path.relpath(path, ROOT)}: {len(people)} students ({graded} graded, the "
          f"others blank), {len(columns)} grade item(s)")  # fmt: skip
    field, why = layouts.NEEDS[lms]
    unmatched = [p.id for p in people if field and not getattr(p, field)]
    if unmatched:
        print(f"export: no {field} for {', '.join(unmatched)}: {why}; make roster adds it")
    return path


def arguments(parser, command):
    """`python -m grading roster FILE [--force]`, `python -m grading export --to LMS ...`."""
    if command == "roster":
        parser.add_argument("file", help="the roster: id,first_name,last_name,email,lms_user_id")
        parser.add_argument("--force", action="store_true",
                            help="change names, emails, ids the gradebook holds")  # fmt: skip
        parser.add_argument("--people-fd", type=int, help=argparse.SUPPRESS)
        parser.add_argument("--demo", action="store_true", help="into make demo's gradebook")
        return
    parser.add_argument("--to", dest="lms", choices=list(layouts.LAYOUTS), required=True,
                        help="the LMS whose import layout to write")  # fmt: skip
    parser.add_argument("--columns", choices=["total", "checkpoints"], default="total",
                        help="the part's total (default), or a column per graded cell")  # fmt: skip
    parser.add_argument("--title", help="the grade item's name in the LMS (default: the part's)")
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part (nbgrader assignment; default attention)")  # fmt: skip
    parser.add_argument("--demo", action="store_true", help="export make demo's class")


def hand_roster_over(people, force):
    """As root: the checked roster handed to the course user through a file only this process
    has a name for, so the course user never needs to read the instructor's file."""
    with tempfile.TemporaryFile("w+") as given:
        json.dump(people, given)
        given.seek(0)
        argv = [sys.executable, "-m", "grading", "roster", "-", "--people-fd", str(given.fileno())]
        code = course_user.handed_over(argv + (["--force"] if force else []),
                                       pass_fds=(given.fileno(),))  # fmt: skip
    return code


def main(args):
    """Import the roster, or write the export, as the course user."""
    if args.demo and COURSE != DEMO:
        return classroom.in_demo_class([args.command, *(a for a in args.argv if a != "--demo")])
    if args.command == "roster":
        if args.people_fd is not None:
            with os.fdopen(args.people_fd) as given:
                people = json.load(given)
        else:
            try:
                people = roster.parse(roster.read_text(args.file))
            except roster.RosterError as err:
                raise SystemExit(f"roster: {err}") from None
            if os.geteuid() == 0:
                return hand_roster_over(people, args.force)
        records.settle()
        import_roster(people, args.force)
        return 0
    course_user.become([sys.executable, "-m", "grading", "export", *args.argv])
    records.settle()
    export(args.lms, args.columns, args.title, args.part)
    return 0

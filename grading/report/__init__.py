"""The class report: what a class got right and wrong in one part, for the instructor.

    python -m grading report [--part xslm] [--demo]      # make report [PART=xslm] [DEMO=1]

It reads the gradebook (every graded cell's score and maximum) and the judge's records (the
mistakes named, the problems met, the edition), and writes records/report.html, a page that
renders offline (its pictures are SVG written here), and records/report.json, the same numbers
for other tools (report-xslm.* for part two). Nothing in it decides a score.
"""

import dataclasses
import json
import os
import statistics
import sys

from grading import classroom, course_user
from grading.nbgrader import deadlines, records
from grading.parts import ASSIGNMENT, PARTS, load, registered, suffix
from grading.paths import COURSE, DEMO, RECORDS, ROOT, SQLITE_GRADEBOOK, db_url
from grading.report import stats
from grading.report.page import render

LOW_SHARE = 0.5  # a total under half the points is worth a look


@dataclasses.dataclass
class Learner:
    """One student of the class, as the report sees them."""

    student: str
    cells: dict  # {grade_id: score}; empty when nothing was graded
    total: float | None  # None: no graded submission
    mistakes: list  # catalogue names the judge gave, each once
    problems: list  # sentences: repairs, refusals, kernels that died, files that broke
    edition: str
    late: str | None = None  # how late it was handed in, and what that cost (deadlines.csv)
    penalty: float = 0.0  # the points lateness took, already out of total


def report_files(assignment=ASSIGNMENT):
    """(report.html, report.json) of a part, in records/ beside its grades table."""
    stem = os.path.join(RECORDS, f"report{suffix(assignment)}")
    return stem + ".html", stem + ".json"


def gradebook(assignment):
    """({student: {grade_id: score}}, {grade_id: (notebook, maximum)}) of every graded student."""
    from nbgrader.api import Gradebook, MissingEntry

    scores, cells = {}, {}
    with Gradebook(db_url()) as gb:
        for student in sorted(s.id for s in gb.students):
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            scores[student] = {}
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    scores[student][grade.name] = grade.score
                    cells[grade.name] = (notebook.name, grade.max_score)
    return scores, cells


def learners(assignment, scores):
    """Every student with a submission or a gradebook entry, with what the records say of them."""
    names = sorted(set(classroom.students(assignment)) | set(scores))
    late = deadlines.lateness(assignment)
    out = []
    for student in names:
        recorded = classroom.judge_records(student, assignment).values()
        editions = {r.get("edition") for r in recorded if r.get("edition")}
        cells = scores.get(student, {})
        when = late.get(student)
        penalty = when.penalty if when and cells else 0.0
        total = deadlines.after_penalty(sum(cells.values()), penalty) if student in scores else None
        out.append(Learner(student, cells, total, classroom.diagnoses_of(student, assignment),
                           classroom.problems_of(student, assignment), edition_of(editions),
                           when.sentence() if when and cells else None, penalty))  # fmt: skip
    return out


def edition_of(editions):
    """A learner's edition from their notebooks' records: the one they share, "mixed" if they
    differ, English if none says (a record from before records kept it)."""
    return editions.pop() if len(editions) == 1 else "mixed" if editions else "en"


def checkpoint_rows(assignment, people, cells):
    """Per graded cell: its notebook, kind, maximum, share passing, difficulty, discrimination."""
    kinds = load(f"{registered(assignment).judge}:CELLS")
    graded = [p for p in people if p.total is not None]
    totals = [p.total for p in graded]
    rows = []
    for grade_id, (notebook, top) in sorted(cells.items(), key=lambda c: (c[1][0], c[0])):
        item = [p.cells.get(grade_id, 0.0) for p in graded]
        kind, what = kinds.get(grade_id, ("other", grade_id))
        rows.append({
            "grade_id": grade_id, "notebook": notebook, "kind": kind, "checks": str(what),
            "max": top, "passing": sum(s >= top for s in item) / len(item) if item else None,
            "difficulty": stats.difficulty(item, top),
            "discrimination": stats.discrimination(item, totals),
        })  # fmt: skip
    return rows


def mistake_rows(assignment, people, cells):
    """Per named mistake, most frequent first: who made it, its words, the notebook teaching it."""
    part = registered(assignment)
    catalogue = load(part.catalogue) if part.catalogue else {}  # a part may name no mistakes
    kinds = load(f"{part.judge}:CELLS")
    taught = {what: cells[g][0] for g, (kind, what) in kinds.items()
              if kind == "visible" and g in cells}  # fmt: skip
    who = {}
    for person in people:
        for name in person.mistakes:
            who.setdefault(name, []).append(person.student)
    rows = []
    for name, students in sorted(who.items(), key=lambda w: (-len(w[1]), w[0])):
        mistake = catalogue.get(name)
        rows.append({
            "name": name, "students": len(students), "who": students,
            "title": mistake.title if mistake else name,
            "explanation": mistake.explanation if mistake else "",
            "notebook": taught.get(mistake.checkpoint, "") if mistake else "",
        })  # fmt: skip
    return rows


def edition_rows(people):
    """{edition: {students, graded, mean}}: how each language's learners did."""
    totals = {}
    for p in people:
        totals.setdefault(p.edition, []).append(p.total)
    return {
        code: {
            "students": len(ts),
            "graded": sum(t is not None for t in ts),
            "mean": statistics.fmean([t for t in ts if t is not None] or [0.0]),
        }
        for code, ts in sorted(totals.items())
    }


def problem_rows(people):
    """[{problem, students, who}], most frequent first: repairs, refusals, kernels that died."""
    who = {}
    for p in people:
        for said in p.problems:
            who.setdefault(said, []).append(p.student)
    return [{"problem": said, "students": len(names), "who": names}
            for said, names in sorted(who.items(), key=lambda w: -len(w[1]))]  # fmt: skip


def needs_a_look(people, top):
    """[(student, [why])]: no graded submission, a low total, or a problem with the hand-in."""
    out = []
    for p in people:
        why = []
        if p.total is None:
            why.append("not graded: run make autograde for this student")
        elif top and p.total < LOW_SHARE * top:
            why.append(f"{p.total:g} of {top:g} points")
        why += ([p.late] if p.late else []) + p.problems
        if why:
            out.append({"student": p.student, "why": why})
    return out


def build(assignment=ASSIGNMENT):
    """The report of one part's class, as a dict of plain data (report.json's content)."""
    scores, cells = gradebook(assignment)
    people = learners(assignment, scores)
    top = sum(maximum for _, maximum in cells.values())
    totals = [p.total for p in people if p.total is not None]
    return {
        "part": assignment,
        "students": len(people),
        "graded": len(totals),
        "max": top,
        "mean": statistics.fmean(totals) if totals else None,
        "median": statistics.median(totals) if totals else None,
        "histogram": [list(b) for b in stats.histogram(totals, top)] if totals else [],
        "checkpoints": checkpoint_rows(assignment, people, cells),
        "mistakes": mistake_rows(assignment, people, cells),
        "editions": edition_rows(people),
        "problems": problem_rows(people),
        "late": [
            {"student": p.student, "late": p.late, "penalty": p.penalty} for p in people if p.late
        ],
        "look": needs_a_look(people, top),
        "learners": [dataclasses.asdict(p) for p in people],
    }


def write(assignment=ASSIGNMENT):
    """Write the part's report.html and report.json; print where, and the headline numbers."""
    report = build(assignment)
    page, data = report_files(assignment)
    os.makedirs(RECORDS, exist_ok=True)
    with open(data, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
    with open(page, "w", encoding="utf-8") as f:
        f.write(render(report))
    print(
        f"wrote {os.path.relpath(page, ROOT)} and {os.path.relpath(data, ROOT)}: "
        f"{report['graded']} of {report['students']} students graded, "
        f"{len(report['mistakes'])} named mistakes, {len(report['look'])} to look at"
    )
    return report


def arguments(parser, command):
    """`python -m grading report [--part P] [--demo]`."""
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part (nbgrader assignment; default attention)")  # fmt: skip
    parser.add_argument("--demo", action="store_true",
                        help="report make demo's class in demo/, not the course's own")  # fmt: skip


def no_class_here():
    """True when the course has no gradebook of its own (no DB_URL, no records/gradebook.db)."""
    return not os.environ.get("DB_URL") and not os.path.exists(SQLITE_GRADEBOOK)


def main(args):
    """Write the report, as the course user (who owns records/); demo/'s class with --demo, or
    when the course has none of its own and make demo has run."""
    fallback = not args.demo and COURSE != DEMO and no_class_here() and os.path.isdir(DEMO)
    if (args.demo or fallback) and COURSE != DEMO:
        if fallback:
            print("report: the course has no graded class yet; reporting make demo's class")
        return classroom.in_demo_class(["report", "--part", args.part])
    course_user.become([sys.executable, "-m", "grading", "report", *args.argv])
    records.settle()
    write(args.part)
    return 0

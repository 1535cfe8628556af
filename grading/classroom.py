"""Grading a class: autograde every submission with progress, export grades, build a demo class.

python -m grading autograde   # every ungraded student in submitted/, with progress
python -m grading feedback    # feedback HTML for every graded student
python -m grading grades      # grades.csv: one row per student, one column per checkpoint
python -m grading demo        # release, simulated class, autograde, feedback, grades
                              # (in demo/, a class folder of its own: see demo())
"""

import argparse
import csv
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import nbformat

from grading import course_user, tables
from grading.authoring import course
from grading.authoring.masters import notebooks
from grading.authoring.mistakes import BUGGY
from grading.judge.reference import load_source_module
from grading.machine import files, sandbox
from grading.nbgrader import deadlines, hand_ins, intake, records
from grading.nbgrader.unpack import MAX_BYTES
from grading.parts import ASSIGNMENT, PARTS, XSLM, XSLM_ARTIFACTS, load, registered, suffix
from grading.paths import (
    AUTOGRADED,
    COURSE,
    DEMO,
    FEEDBACK,
    GRADES_CSV,
    OUTPUTS,
    RECORDS,
    ROOT,
    SQLITE_GRADEBOOK,
    SUBMITTED,
    db_url,
    grades_csv,
)
from grading.scale import farm

JUDGED = intake.JUDGED  # the judge's records and the intake's findings

# The demo class: a student id, then what their submission contains.
DEMO_MISTAKES = {
    "no-sqrt-d": "attention.no_scaling",
    "mask-after-softmax": "mask.multiply_after_softmax",
    "unbiased-variance": "layer_norm.unbiased_variance",
    "post-ln": "block.post_ln",
    "no-residual": "block.no_residual",
    "full-d-heads": "multi_head.full_d_scaling",
}
HALF_FINISHED_STEPS = 4
DISK_MARGIN = 64 << 20  # what the gradebook, the records and the pages need besides the copies
GRADING = ("autograde", "feedback", "grades")  # what root hands over to the course user


def students(assignment=ASSIGNMENT):
    """The student ids with a folder in submitted/, sorted ([] when there is no submitted/).

    For part two, only those who handed it in (submitted/<student>/xslm/).
    """
    if not os.path.isdir(SUBMITTED):
        return []
    return sorted(
        d
        for d in os.listdir(SUBMITTED)
        if os.path.isdir(os.path.join(SUBMITTED, d))
        and (assignment == ASSIGNMENT or os.path.isdir(os.path.join(SUBMITTED, d, assignment)))
    )


def judged_file(student, name, assignment=ASSIGNMENT):
    """judged/<student>/<name>.json, or <name>-<assignment>.json for part two."""
    return os.path.join(JUDGED, student, f"{name}{suffix(assignment)}.json")


def autograde(names=None, jobs=None, scheduler=None, force=None, assignment=ASSIGNMENT):
    """Autograde the class in parallel (scale.farm), with a progress bar; then what went wrong.

    Each submission goes through intake, the sandboxed kernel and the judge. Without names, only
    submissions not graded yet (or changed since) are graded, unless force; named ones always are.
    """
    from grading.nbgrader.preprocess import executes

    force = (names is not None) if force is None else force
    names = names or students(assignment)
    if not names:
        raise SystemExit(f"no submissions: put them in submitted/<student>/{assignment}/")
    try:  # ATTENTION_EXECUTE=2, say, stops the run before anyone is graded
        execute = executes()
    except ValueError as err:
        raise SystemExit(str(err)) from None
    if os.geteuid() == 0:  # root never grades: the same command, as the course user
        options = [*(["--jobs", str(jobs)] if jobs else []), "--force" if force else "--no-force",
                   *(["--scheduler", scheduler] if scheduler else []), "--", *names]  # fmt: skip
        return [farm.Outcome(**o) for o in as_course_user("autograde", assignment, options)]
    try:
        sandbox.require()
    except sandbox.SandboxUnavailable as err:
        raise SystemExit(str(err)) from None
    if not execute:
        print("EXECUTE=0: no notebook runs; the judge scores every graded cell as always, and "
              "the other cells keep the outputs each learner saved")  # fmt: skip
    try:  # a mistake in deadlines.csv stops the run before anyone is graded
        deadline = deadlines.load().get(assignment)
    except deadlines.DeadlineError as err:
        raise SystemExit(f"deadlines.csv: {err}") from None
    try:  # so is a mistake in hand-in-times.csv, and a disk too full for the class
        hand_ins.given()
    except deadlines.DeadlineError as err:
        raise SystemExit(str(err)) from None
    short = disk_too_full(names, assignment)
    if short:
        raise SystemExit(short)
    if deadline:
        print(f"deadlines.csv: {deadlines.describe(assignment, deadline)}")
        strangers = sorted(set(deadline.extended) - set(students(assignment)))
        if strangers:  # a misspelt id would leave its student with the class's due time
            print(f"deadlines.csv: no submission in submitted/ from {', '.join(strangers)}, "
                  "whose own due time it gives: check the spelling")  # fmt: skip
    start = time.perf_counter()
    outcomes = farm.autograde(names, jobs, scheduler, force, assignment)
    for outcome in outcomes:
        failure = (
            [] if outcome.ok else [f"nbgrader could not grade this submission: {outcome.error}"]
        )
        save_failure(outcome.student, failure, assignment)
    for outcome in sorted(outcomes, key=lambda o: o.student):
        for problem in problems_of(outcome.student, assignment):
            print(f"{outcome.student}: {problem}")
    elapsed = time.perf_counter() - start
    rate = f", {60 * len(outcomes) / elapsed:.1f} a minute" if outcomes else ""
    print(f"autograded {len(outcomes)} submissions in {elapsed:.1f} s{rate}")
    return outcomes


def disk_too_full(names, assignment=ASSIGNMENT, free=None):
    """None, or why the class cannot be graded on this disk: each submission is copied to
    autograded/ (at most unpack.MAX_BYTES of it, intake sees to that) and again to feedback/."""
    each = [files.tree_bytes(os.path.join(SUBMITTED, n, assignment), MAX_BYTES) for n in names]
    needed = 2 * sum(each) + DISK_MARGIN
    free = shutil.disk_usage(COURSE).free if free is None else free
    if needed <= free:
        return None
    return (f"grading these {len(names)} submissions takes about {needed / 2**20:.0f} MiB "
            f"(autograded/ and feedback/), and the disk of {COURSE} has {free / 2**20:.0f} MiB "
            "free: free some space, or grade a few at a time "
            "(python -m grading autograde NAME ...)")  # fmt: skip


def as_course_user(command, assignment, options=()):
    """As root: `python -m grading <command>` run as the course user; what the command
    returned there, passed back through a file only this process has a name for."""
    with tempfile.TemporaryFile("w+") as result:
        argv = [
            sys.executable,
            "-m",
            "grading",
            command,
            "--part",
            assignment,
            "--result-fd",
            str(result.fileno()),
            *options,
        ]  # options may end with students
        code = course_user.handed_over(argv, pass_fds=(result.fileno(),))
        if code != 0:
            raise SystemExit(f"{command} failed as the course user (exit {code}); see above")
        result.seek(0)
        return json.load(result)


def save_failure(student, failure, assignment=ASSIGNMENT):
    """Write nbgrader's failure ([] when it graded) to judged/<student>/nbgrader.json."""
    path = judged_file(student, "nbgrader", assignment)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(failure, f)


def judge_records(student, assignment=ASSIGNMENT):
    """{notebook: the judge's record} for one student's submission of an assignment."""
    folder = os.path.join(JUDGED, student)
    if not os.path.isdir(folder):
        return {}
    out = {}
    for stem in (os.path.splitext(name)[0] for name in notebooks(PARTS[assignment].masters)):
        path = os.path.join(folder, stem + ".json")  # the judge's record, named after its notebook
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out[stem] = json.load(f)
    return out


def problems_of(student, assignment=ASSIGNMENT):
    """Every sentence about one submission.

    They come from intake, repairs, kernel deaths, the learner's files and nbgrader itself.
    """
    said = intake.load(student, assignment)
    for record in judge_records(student, assignment).values():
        said += record["problems"]
    path = judged_file(student, "nbgrader", assignment)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            said += json.load(f)
    return list(dict.fromkeys(said))


def diagnoses_of(student, assignment=ASSIGNMENT):
    """The catalogued mistakes diagnosed in any of one student's cells, sorted, each once."""
    return sorted(
        {
            name
            for record in judge_records(student, assignment).values()
            for cell in record["cells"].values()
            for name in cell.get("diagnosis", [])
        }
    )


def feedback(assignment=ASSIGNMENT):
    """Generate feedback HTML for every graded student; print where it is, or nbgrader's error."""
    done = course.nbgrader("generate_feedback", assignment, "--force")
    where = os.path.relpath(FEEDBACK, ROOT)
    print(
        f"feedback in {where}/<student>/{assignment}/"
        if done.returncode == 0
        else done.stderr[-2000:]
    )


def grade_table(assignment=ASSIGNMENT):
    """[(student, {grade_id: score}, total, max, diagnoses)] from the gradebook: every student
    with a folder in submitted/ or a name in the gradebook; one with no graded submission has no
    scores and a total of 0 (ungraded() says why). The total is after any late penalty
    (deadlines.py), the cells' scores before it."""
    from nbgrader.api import Gradebook, MissingEntry

    rows = []
    with Gradebook(db_url()) as gb:
        try:
            top = gb.find_assignment(assignment).max_score
        except MissingEntry:
            top = 0.0
        for student in sorted(set(students(assignment)) | {s.id for s in gb.students}):
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                rows.append((student, {}, 0.0, top, []))
                continue
            scores = {
                grade.name: grade.score
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
            diagnoses = diagnoses_of(student, assignment)
            total = deadlines.after_penalty(submission.score, submission.late_submission_penalty)
            rows.append((student, scores, total, submission.max_score, diagnoses))
    return rows


def ungraded(student, scores, assignment=ASSIGNMENT):
    """Why a row of the grades table has no scores (handed in, or not), else None."""
    if scores:
        return None
    if student in students(assignment):
        return "handed in but not graded yet: make autograde grades it"
    return "no submission: in the gradebook, nothing handed in"


def row_notes(student, scores, assignment=ASSIGNMENT, late=None):
    """The problems column of one row: why it has no scores, if so, its lateness (late: its
    Lateness, if graded), then every problem met."""
    why = ungraded(student, scores, assignment)
    when = late.sentence() if late and scores else None
    return [s for s in (why, when) if s] + problems_of(student, assignment)


def cell_scores():
    """{student: {grade_id: score}} for every graded student: the gradebook, cell by cell."""
    return {student: scores for student, scores, *_ in grade_table() if scores}


def grades(path=None, assignment=ASSIGNMENT):
    """Write grades.csv (grades-xslm.csv for part two: a row per student, a column per graded
    cell), print a summary; the rows."""
    if os.geteuid() == 0 and path is None:  # as the course user, which owns records/
        return [tuple(row) for row in as_course_user("grades", assignment)]
    path = path or table_file(assignment)
    rows = grade_table(assignment)
    late = deadlines.lateness(assignment)
    columns = sorted({gid for _, scores, _, _, _ in rows for gid in scores})
    table = [["student"] + columns + ["total", "max", "diagnosis", "problems"]]
    for student, scores, total, top, diagnoses in rows:  # all first: a failure keeps the old file
        notes = "; ".join(row_notes(student, scores, assignment, late.get(student)))
        table.append([student, *(scores.get(c, 0) for c in columns), total, top,
                      " ".join(diagnoses), notes])  # fmt: skip
    with open(path + ".new", "w", newline="", encoding="utf-8") as f:
        tables.writer(f).writerows(table)  # a learner's words reach the problems column
    os.replace(path + ".new", path)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    print(f"{'student':22} {'score':>9}  diagnosis / problems")
    for student, scores, total, top, diagnoses in rows:
        notes = diagnoses + row_notes(student, scores, assignment, late.get(student))
        print(f"{student:22} {total:5.1f}/{top:<3.0f}  {'; '.join(notes) or '-'}")
    return rows


def table_file(assignment=ASSIGNMENT):
    """The table make grades writes for an assignment: grades.csv, or grades-xslm.csv."""
    return GRADES_CSV if not suffix(assignment) else grades_csv(assignment)


def read_grades(path):
    """The rows grades() returned, read back from the table it wrote (a column the gradebook had
    no score for reads 0, as the table writes it)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        columns = header[1:-4]  # between student and total, max, diagnosis, problems
        rows = []
        for line in reader:
            cells = dict(zip(header, line))
            scores = {c: float(cells[c]) for c in columns}
            total, top = float(cells["total"]), float(cells["max"])
            rows.append((cells["student"], scores, total, top, cells["diagnosis"].split()))
    return rows


def defined_step(source):
    """The course function a solution cell defines, or None (the notes and conclusion cells)."""
    from checkpoints.attention.modelfile import STEPS

    return next((fn for fn in STEPS if f"def {fn}(" in source), None)


def write_submission(student, replace=None, steps=None, edition="en", released=None):
    """A simulated learner: the student edition solved, saved as a learner would save it.

    Solved up to `steps` (all steps if None), with replace's bugs, in the given language edition
    (its student edition must have been released, into the course's release/ or the folder
    `released` names). model.py is built from the filled notebooks' own cells, exactly as their
    save cells would build it.
    """
    from checkpoints.attention.modelfile import STEPS, ensure_model, save_section

    dest = os.path.join(SUBMITTED, student, ASSIGNMENT)
    shutil.rmtree(os.path.dirname(dest), ignore_errors=True)
    shutil.copytree(released or course.release_folder(edition), dest)
    wanted = STEPS[:steps] if steps is not None else STEPS
    solutions = {
        gid: src
        for gid, src in course.solution_cells().items()
        if defined_step(src) in wanted or defined_step(src) is None
    }
    model_path = os.path.join(dest, "model.py")
    ensure_model(model_path)
    for name in course.notebooks(dest):
        path = os.path.join(dest, name)
        book = course.fill(nbformat.read(path, 4), solutions, replace)
        nbformat.write(book, path)
        for cell in book.cells:
            step = (
                defined_step(cell.source)
                if cell.metadata.get("nbgrader", {}).get("solution")
                else None
            )
            if step in wanted:
                save_section(step, cell.source, model_path)
    if steps is None:
        write_outputs(dest, model_path)
    return dest


def write_xslm_submission(student, mistake=None, released=None):
    """A simulated learner of part two: its student edition (from the course's release/, or the
    folder `released` names) solved as the masters solve it, engine.py and gpt.py saved from
    those cells (with one catalogued mistake of part two's, if named), and the reference's three
    artifacts."""
    import re

    from checkpoints.xslm import files
    from grading.authoring.mistakes import part_two

    dest = os.path.join(SUBMITTED, student, "xslm")
    shutil.rmtree(os.path.dirname(dest), ignore_errors=True)
    shutil.copytree(released or course.release_folder(assignment="xslm"), dest)
    solutions = course.solution_cells(PARTS[XSLM].masters)
    for name in course.notebooks(dest):
        book = course.fill(nbformat.read(os.path.join(dest, name), 4), solutions)
        nbformat.write(book, os.path.join(dest, name))
    for source in solutions.values():
        defined = [n for n in re.findall(r"^(?:def|class) (\w+)", source, re.M) if n in files.STEPS]
        files.save_section(defined[0], source, dest)
    if mistake:
        texts = {}
        for filename in part_two.FILES:
            with open(os.path.join(dest, filename), encoding="utf-8") as f:
                texts[filename] = f.read()
        for filename, text in part_two.with_mistake(texts, mistake).items():
            with open(os.path.join(dest, filename), "w", encoding="utf-8") as f:
                f.write(text)
    os.makedirs(os.path.join(dest, "outputs"), exist_ok=True)
    for artifact in XSLM_ARTIFACTS:
        shutil.copy(os.path.join(OUTPUTS, artifact), os.path.join(dest, "outputs"))
    return dest


def write_outputs(dest, model_path):
    """The three artifacts, from the submission's own functions, as the notebooks write them."""
    from checkpoints.attention.artifacts import (
        NOTES_FILE,
        PERM_FILE,
        SCALE_FILE,
        permutation_experiment,
        scale_experiment,
    )

    with open(model_path) as f:
        model = load_source_module(f.read(), "submission_model", model_path)
    try:
        scaled, unscaled = scale_experiment(model.attention)
        without, with_pe = permutation_experiment(model.attention, model.pos_encoding)
    except Exception:  # a learner whose functions crash cannot run the experiments either
        return
    texts = {
        SCALE_FILE: f"scaled: {scaled!r}\nunscaled: {unscaled!r}\n",
        PERM_FILE: f"without_pe: {without!r}\nwith_pe: {with_pe!r}\nconclusion: order is invisible "
        "without positional encoding\n",
        NOTES_FILE: f"- 스케일링 (scaling): {scaled:.4f} with √d_k, {unscaled:.4f} without.\n"
        "- 순서 (order): attention alone cannot see order.\n"
        "- 제곱 (square): doubling n makes the score matrix 4× larger.\n",
    }
    os.makedirs(os.path.join(dest, "outputs"), exist_ok=True)
    for name, text in texts.items():
        with open(os.path.join(dest, "outputs", name), "w") as f:
            f.write(text)


def start_over(assignment=ASSIGNMENT):
    """A clean slate: no submissions, results or SQLite gradebook; the part's release anew.

    It clears the class folder of this process (COURSE): the demo calls it only in demo/.
    """
    for stale in (SUBMITTED, AUTOGRADED, JUDGED, FEEDBACK):
        shutil.rmtree(stale, ignore_errors=True)
    if os.path.exists(SQLITE_GRADEBOOK):
        os.remove(SQLITE_GRADEBOOK)
    os.makedirs(COURSE, exist_ok=True)  # nbgrader finds the masters from it (demo/../notebooks)
    course.release(assignment=assignment)  # its nbgrader makes records/ (grader_config)


def demo_class():
    """{student: mistake name or a label}: the class make demo builds (after start_over)."""
    made = {}
    write_submission("correct")
    made["correct"] = "correct"
    empty = os.path.join(SUBMITTED, "empty", ASSIGNMENT)
    shutil.copytree(course.release_folder(), empty)
    made["empty"] = "empty"
    for student, mistake in DEMO_MISTAKES.items():
        function, code = BUGGY[mistake]
        write_submission(student, replace={function: code})
        made[student] = mistake
    write_submission("half-finished", steps=HALF_FINISHED_STEPS)
    made["half-finished"] = "steps 1-4 only"
    name_students(made)
    for k, (student, what) in enumerate(made.items(), 1):
        print(f"[{k}/{len(made)}] {os.path.relpath(SUBMITTED, ROOT)}/{student}: {what}")
    return made


def demo_class_xslm():
    """{student: mistake name or a label}: part two's demo class (correct, empty, each mistake)."""
    from grading.authoring.mistakes.part_two import MISTAKES

    made = {"xslm-correct": "correct", "xslm-empty": "empty"}
    write_xslm_submission("xslm-correct")
    shutil.copytree(
        course.release_folder(assignment="xslm"), os.path.join(SUBMITTED, "xslm-empty", "xslm")
    )
    for mistake in MISTAKES:
        student = "xslm-" + mistake.split(".")[1].replace("_", "-")
        write_xslm_submission(student, mistake)
        made[student] = mistake
    name_students(made)
    for k, (student, what) in enumerate(made.items(), 1):
        print(f"[{k}/{len(made)}] {os.path.relpath(SUBMITTED, ROOT)}/{student}: {what}")
    return made


def name_students(made):
    """Give the demo students names in the gradebook.

    Then the formgrader lists people, not 'None, None'.
    """
    from nbgrader.api import Gradebook

    with Gradebook(db_url()) as gb:
        for student in made:
            gb.update_or_create_student(
                student,
                first_name="Demo",
                last_name=student.replace("-", " ").title(),
                email=f"{student}@example.org",
            )


def demo(assignment=ASSIGNMENT):
    """make demo from scratch in demo/: its old class cleared, the demo class, graded, tabled.

    With assignment="xslm" (make demo PART=xslm): part two's class instead. The rows of its table.
    The course's own class (submitted/, records/, DB_URL's gradebook ...) is never touched.
    """
    if COURSE != DEMO:
        return demo_in_its_folder(assignment)
    start = time.perf_counter()
    print(f"make demo: a simulated class in {os.path.relpath(DEMO, ROOT)}/, not the course's own")
    shutil.rmtree(DEMO, ignore_errors=True)  # all of it is the last demo's: no table of it stays
    if not registered(assignment).demo:
        raise SystemExit(f"make demo: the part {assignment} has no demo class")
    start_over(assignment)
    load(registered(assignment).demo)()
    for command in GRADING:  # as an instructor runs them: as root, each hands over
        done = subprocess.run([sys.executable, "-m", "grading", command, "--part",
                               assignment], cwd=ROOT, env=course.tool_environment())  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"make demo: {command} failed (exit {done.returncode})")
    rows = read_grades(table_file(assignment))
    where = os.path.relpath(DEMO, ROOT)
    print(
        f"make demo: {time.perf_counter() - start:.0f} s; its class is in {where}/submitted/, "
        f"graded in {os.path.relpath(SQLITE_GRADEBOOK, ROOT)}, "
        f"its table {os.path.relpath(table_file(assignment), ROOT)}"
    )
    return rows


def in_demo_class(argv):
    """`python -m grading <argv>` run on demo/'s class, not the course's: its exit status."""
    env = dict(course.tool_environment(), ATTENTION_COURSE=DEMO)
    env.pop("DB_URL", None)  # the demo's gradebook is its own SQLite file, not the course's server
    return subprocess.run([sys.executable, "-m", "grading", *argv], cwd=ROOT, env=env).returncode


def demo_in_its_folder(assignment=ASSIGNMENT):
    """Run the demo in a process whose class folder is demo/; the rows of the table it wrote.

    Every path of the class is fixed when the grading modules are imported, and nbgrader and the
    grading servers are processes of their own: starting one with ATTENTION_COURSE=demo/ is what
    makes all of them see the demo's class and none of them the course's.
    """
    code = in_demo_class(["demo", "--part", assignment])
    if code != 0:
        raise SystemExit(f"make demo failed (exit {code}); its output is above")
    name = os.path.basename(table_file(assignment))
    return read_grades(os.path.join(DEMO, os.path.relpath(RECORDS, COURSE), name))


def arguments(parser, command):
    """The options of autograde, feedback, grades and demo (`python -m grading CMD --help`)."""
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part (nbgrader assignment; default attention)")  # fmt: skip
    parser.add_argument("--result-fd", type=int, help=argparse.SUPPRESS)  # as_course_user's file
    if command != "autograde":
        return
    parser.add_argument("students", nargs="*",
                        help="only these students (default: all not graded yet)")  # fmt: skip
    parser.add_argument("--jobs", type=int, help="grading servers on this machine (default 1)")
    parser.add_argument("--scheduler", metavar="URL",
                        help="grade on a Dask cluster: tcp://host:8786, or local")  # fmt: skip
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--force", action="store_true", default=None,
                       help="grade again the students already graded")  # fmt: skip
    again.add_argument("--no-force", dest="force", action="store_false",
                       help="named students too are graded only if not graded yet")  # fmt: skip
    parser.set_defaults(force=None)  # neither: named students are graded again, the rest once


def main(args):
    """Carry out one command; autograde, feedback and grades run as the course user
    (grading.course_user), never as root: started as root, they hand themselves over."""
    if args.command in GRADING:
        course_user.become([sys.executable, "-m", "grading", args.command, *args.argv])
    records.settle()
    options = {"assignment": args.part}
    if args.command == "autograde":
        options.update(names=args.students or None, jobs=args.jobs, scheduler=args.scheduler,
                       force=args.force)  # fmt: skip
    commands = {"autograde": autograde, "feedback": feedback, "grades": grades, "demo": demo}
    returned = commands[args.command](**options)
    if args.result_fd is not None:
        with os.fdopen(args.result_fd, "w") as f:
            json.dump([dataclasses.asdict(r) if dataclasses.is_dataclass(r) else r
                       for r in returned or []], f)  # fmt: skip

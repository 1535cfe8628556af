"""Grading a class: autograde every submission with progress, export a grade table, build a demo class.

    python -m grading.classroom autograde   # every student in submitted/, one at a time, with progress
    python -m grading.classroom feedback    # feedback HTML for every graded student
    python -m grading.classroom grades      # grades.csv: one row per student, one column per checkpoint
    python -m grading.classroom demo        # release, simulated class, autograde, feedback, grades
"""
import csv
import filecmp
import json
import os
import shutil
import sys
import time

import nbformat

from grader_config import ASSIGNMENT
from grading import course
from grading.mistakes import BUGGY
from grading.reference import ROOT, load_source_module

SUBMITTED = os.path.join(ROOT, "submitted")
AUTOGRADED = os.path.join(ROOT, "autograded")
GRADES_CSV = os.path.join(ROOT, "grades.csv")
INTAKE_FILE = os.path.join(ROOT, "intake.json")   # what was wrong with each submission's files

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


def students():
    return sorted(d for d in os.listdir(SUBMITTED) if os.path.isdir(os.path.join(SUBMITTED, d))) \
        if os.path.isdir(SUBMITTED) else []


def grade_ids(book):
    return {c.metadata.get("nbgrader", {}).get("grade_id") for c in book.cells} - {None}


def intake(student):
    """Make one submission gradable without losing anything; return what was wrong, in plain words.

    Unreadable notebooks are renamed to <name>.unreadable (kept, scored 0) so nbgrader grades the rest;
    a renamed notebook is recognised by its cells and copied (not moved) to the name nbgrader expects.
    """
    folder = os.path.join(SUBMITTED, student, ASSIGNMENT)
    if not os.path.isdir(folder):
        return [f"no {ASSIGNMENT}/ folder in submitted/{student}: nothing to grade"]
    problems, readable = [], {}
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".ipynb")):
        try:
            readable[name] = nbformat.read(os.path.join(folder, name), as_version=4)
        except Exception:                        # any way a file can fail to be a notebook
            os.replace(os.path.join(folder, name), os.path.join(folder, name + ".unreadable"))
    expected = {name: grade_ids(nbformat.read(os.path.join(course.RELEASE, name), as_version=4))
                for name in course.notebooks(course.RELEASE)}
    for name, ids in expected.items():
        twins = [other for other, book in readable.items() if other not in expected and grade_ids(book) & ids]
        if os.path.exists(os.path.join(folder, name + ".unreadable")) and name not in readable:
            problems.append(f"{name} is not a readable notebook; kept as {name}.unreadable, its cells score 0")
        elif name not in readable and len(twins) == 1:
            shutil.copy(os.path.join(folder, twins[0]), os.path.join(folder, name))
            problems.append(f"{twins[0]!r} graded as {name} (it carries that notebook's cells)")
        elif name in readable and len(twins) == 1 and filecmp.cmp(os.path.join(folder, twins[0]),
                                                                    os.path.join(folder, name), shallow=False):
            problems.append(f"{twins[0]!r} graded as {name} (it carries that notebook's cells)")  # a rerun
        elif name not in readable:
            problems.append(f"{name} is missing: its cells score 0")
    if not os.path.exists(os.path.join(folder, "model.py")):
        problems.append("model.py is missing: every checkpoint fails")
    return problems


def autograde(names=None):
    """Autograde submissions one student at a time, so one broken submission stops nothing."""
    names = names or students()
    if not names:
        raise SystemExit("no submissions: put them in submitted/<student>/attention/")
    report = read_intake()
    start = time.perf_counter()
    for k, student in enumerate(names, 1):
        t = time.perf_counter()
        report[student] = intake(student)
        done = course.nbgrader("autograde", "--student", student, "--force")
        status = "ok" if done.returncode == 0 else "FAILED (see log below)"
        print(f"[{k}/{len(names)}] {student}: autograded in {time.perf_counter() - t:.1f} s, {status}", flush=True)
        for problem in report[student]:
            print(f"    {problem}")
        if done.returncode != 0:
            report[student].append("nbgrader could not grade this submission")
            print("    " + "\n    ".join((done.stdout + done.stderr).strip().splitlines()[-8:]))
    with open(INTAKE_FILE, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=True, ensure_ascii=False)
    print(f"autograded {len(names)} submissions in {time.perf_counter() - start:.1f} s")


def read_intake():
    if not os.path.exists(INTAKE_FILE):
        return {}
    with open(INTAKE_FILE, encoding="utf-8") as f:
        return json.load(f)


def feedback():
    done = course.nbgrader("generate_feedback", "--force")
    print("feedback in feedback/<student>/attention/" if done.returncode == 0 else done.stderr[-2000:])


def grade_table():
    """[(student, {grade_id: score}, total, max, diagnoses)] from the gradebook."""
    from nbgrader.api import Gradebook
    rows = []
    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'gradebook.db')}") as gb:
        for student in students():
            try:
                submission = gb.find_submission(ASSIGNMENT, student)
            except Exception:
                continue
            scores = {}
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    scores[grade.name] = grade.score
            record = os.path.join(AUTOGRADED, student, ASSIGNMENT, "grading_record.json")
            diagnoses = []
            if os.path.exists(record):
                with open(record) as f:
                    diagnoses = sorted({n for entry in json.load(f).values() for n in entry["diagnosis"]})
            rows.append((student, scores, submission.score, submission.max_score, diagnoses))
    return rows


def grades(path=GRADES_CSV):
    rows = grade_table()
    columns = sorted({gid for _, scores, _, _, _ in rows for gid in scores})
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student"] + columns + ["total", "max", "diagnosis", "problems"])
        problems = read_intake()
        for student, scores, total, top, diagnoses in rows:
            writer.writerow([student] + [scores.get(c, 0) for c in columns]
                            + [total, top, " ".join(diagnoses), "; ".join(problems.get(student, []))])
    print(f"wrote {os.path.relpath(path, ROOT)}")
    print(f"{'student':22} {'score':>9}  diagnosis / problems")
    for student, _, total, top, diagnoses in rows:
        notes = diagnoses + problems.get(student, [])
        print(f"{student:22} {total:5.1f}/{top:<3.0f}  {'; '.join(notes) or '-'}")
    return rows


def defined_step(source):
    """The course function a solution cell defines, or None (the notes and conclusion cells)."""
    from checkpoints.modelfile import STEPS
    return next((fn for fn in STEPS if f"def {fn}(" in source), None)


def write_submission(student, replace=None, steps=None):
    """A simulated learner: the student edition solved up to `steps` (with replace's bugs), saved as they would.

    model.py is built from the filled notebooks' own cells, exactly as their save cells would build it.
    """
    from checkpoints.modelfile import STEPS, ensure_model, save_section
    dest = os.path.join(SUBMITTED, student, ASSIGNMENT)
    shutil.rmtree(os.path.dirname(dest), ignore_errors=True)
    shutil.copytree(course.RELEASE, dest)
    wanted = STEPS[:steps] if steps is not None else STEPS
    solutions = {gid: src for gid, src in course.solution_cells().items()
                 if defined_step(src) in wanted or defined_step(src) is None}
    model_path = ensure_model(os.path.join(dest, "model.py"))
    for name in course.notebooks(dest):
        path = os.path.join(dest, name)
        book = course.fill(nbformat.read(path, 4), solutions, replace)
        nbformat.write(book, path)
        for cell in book.cells:
            step = defined_step(cell.source) if cell.metadata.get("nbgrader", {}).get("solution") else None
            if step in wanted:
                save_section(step, cell.source, model_path)
    if steps is None:
        write_outputs(dest, model_path)
    return dest


def write_outputs(dest, model_path):
    """The three artifacts, from the submission's own functions, as the notebooks would write them."""
    from checkpoints.artifacts import NOTES_FILE, PERM_FILE, SCALE_FILE, permutation_experiment, scale_experiment
    with open(model_path) as f:
        model = load_source_module(f.read(), "submission_model", model_path)
    scaled, unscaled = scale_experiment(model.attention)
    without, with_pe = permutation_experiment(model.attention, model.pos_encoding)
    texts = {SCALE_FILE: f"scaled: {scaled!r}\nunscaled: {unscaled!r}\n",
             PERM_FILE: f"without_pe: {without!r}\nwith_pe: {with_pe!r}\nconclusion: order is invisible "
                        "without positional encoding\n",
             NOTES_FILE: f"- 스케일링 (scaling): {scaled:.4f} with √d_k, {unscaled:.4f} without.\n"
                         "- 순서 (order): attention alone cannot see order.\n"
                         "- 제곱 (square): doubling n makes the score matrix 4× larger.\n"}
    os.makedirs(os.path.join(dest, "outputs"), exist_ok=True)
    for name, text in texts.items():
        with open(os.path.join(dest, "outputs", name), "w") as f:
            f.write(text)


def demo_class():
    """{student: mistake name or a label}: the class make demo builds."""
    course.release()
    shutil.rmtree(SUBMITTED, ignore_errors=True)
    made = {}
    write_submission("correct"); made["correct"] = "correct"
    empty = os.path.join(SUBMITTED, "empty", ASSIGNMENT)
    shutil.copytree(course.RELEASE, empty); made["empty"] = "empty"
    for student, mistake in DEMO_MISTAKES.items():
        function, code = BUGGY[mistake]
        write_submission(student, replace={function: code}); made[student] = mistake
    write_submission("half-finished", steps=HALF_FINISHED_STEPS); made["half-finished"] = "steps 1-4 only"
    for k, (student, what) in enumerate(made.items(), 1):
        print(f"[{k}/{len(made)}] submitted/{student}: {what}")
    return made


def demo():
    start = time.perf_counter()
    for stale in ("autograded", "feedback"):
        shutil.rmtree(os.path.join(ROOT, stale), ignore_errors=True)
    for stale in ("gradebook.db", INTAKE_FILE):
        if os.path.exists(os.path.join(ROOT, stale)):
            os.remove(os.path.join(ROOT, stale))
    demo_class()
    autograde()
    feedback()
    grades()
    print(f"make demo: {time.perf_counter() - start:.0f} s")


def main(argv):
    commands = {"autograde": autograde, "feedback": feedback, "grades": grades, "demo": demo}
    if len(argv) != 1 or argv[0] not in commands:
        raise SystemExit(f"usage: python -m grading.classroom {{{'|'.join(commands)}}}")
    commands[argv[0]]()


if __name__ == "__main__":
    main(sys.argv[1:])

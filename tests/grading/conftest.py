"""The hostile class graded once per run by make autograde's farm, for the two modules that read it:
test_hostile_class.py (no attack gains, none is dropped, nothing escapes) and test_hostile_lanes.py
(its farm lane: the same class holds the races and the packed kernel escapes the other lanes
grade).

    HOSTILE_ONLY=h-gr-judge,h-ref-gc pytest -m hostile -s    # a quick run on a few submissions
"""

import pytest

from grading import classroom
from tests.fixtures import hostile, hostile_watch


@pytest.fixture(scope="session")
def hostile_class_graded():
    """The hostile class (tests/fixtures/hostile.py, or HOSTILE_ONLY's part of it) and the two
    references, graded by `make autograde JOBS=2` (as root, it hands itself over) under a Watch,
    then tabled: the Watch's record, with the gradebook's rows. Without HOSTILE_ONLY, the class is
    the lanes' class too: the races, and the kernel escapes packed into three submissions
    (record["graded_as"] says which carries each)."""
    hostile_watch.clean_slate()
    listener = hostile_watch.Listener()
    riders = hostile_watch.LANE_CLASS if hostile_watch.lanes_ride_along() else []
    attacks, graded_as = hostile_watch.write_class(listener.port, riders)
    watch = hostile_watch.Watch(listener)
    outcomes = classroom.autograde(jobs=2)
    export = []

    def export_grades():  # an attack may break the export; the tests say so
        try:
            classroom.grades()
        except Exception as err:
            export.append(f"{type(err).__name__}: {err}")

    record = watch.finish(export_grades)
    print(f"\nautograded {len(outcomes)} submissions in {record['elapsed']:.0f} s", flush=True)
    record.update(
        lane="farm",
        attacks=attacks,
        graded_as=graded_as,
        outcomes=outcomes,
        rows=hostile_watch.gradebook_rows(),
        problems={s: classroom.problems_of(s) for s in classroom.students()},
        grades=hostile_watch.all_grades(),
        handed_in=hostile_watch.hand_in_times(),
        set_id=hostile_watch.set_id_files(),
        export_error=export[0] if export else None,
        grades_csv=hostile_watch.text_or_none(classroom.GRADES_CSV),
    )
    everyone = {a.student: a for a in hostile.RACES if a in riders} | attacks
    for student in sorted(set(graded_as.values())):
        carried = [e for e, packed in graded_as.items() if packed == student]
        everyone[student] = hostile.Attack(student, hostile.C, "escapes", ", ".join(carried))
    for student in hostile_watch.REFERENCES:
        everyone[student] = hostile.Attack(student, student, "reference", "honest reference")
    escaped = hostile_watch.escapes_by_student(record)
    print(hostile_watch.summary(record["rows"], everyone, record["problems"], escaped))
    if record["export_error"]:
        print(f"grades() failed: {record['export_error']}")
    yield record

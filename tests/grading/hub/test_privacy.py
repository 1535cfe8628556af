"""make hub's lock of the checkout (grading/hub/privacy.py), on a tree of the checkout's shape: what
the learners' side reads keeps its modes, the rest becomes the course user's group's to read and
nobody else's, and no link, other name of a file or folder others could not enter is touched."""

import os
import stat

import pytest

from grading.hub import privacy

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lock changes groups: root's work")

GROUP = 4242  # a group no file of the tree has


def write(path, mode=0o644):
    """A file at path (its folders made) with mode."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("x\n")
    os.chmod(path, mode)
    return path


def locked_tree(top):
    """Lock top as make hub locks the checkout; {path relative to top: (mode, gid)} after."""
    fd = os.open(top, privacy.FOLDER_ONLY)
    try:
        privacy.lock_below(fd, (), GROUP)
    finally:
        os.close(fd)
    found = {}
    for here, dirs, files in os.walk(top):
        for name in dirs + files:
            st = os.lstat(os.path.join(here, name))
            found[os.path.relpath(os.path.join(here, name), top)] = (
                stat.S_IMODE(st.st_mode), st.st_gid
            )  # fmt: skip
    return found


def test_the_rest_is_the_course_users_groups_to_read_and_nobody_elses(tmp_path):
    """Named paths keep their modes, their parents stay open; the masters, the judge, model.py and
    .git lose every bit for others and the group's write; what the group gets follows the owner."""
    top = str(tmp_path / "checkout")
    write(f"{top}/model.py", 0o664)
    write(f"{top}/run.sh", 0o755)
    write(f"{top}/notebooks/masters/attention/01-softmax.ipynb")
    write(f"{top}/notebooks/editions/ko/01-softmax.md")
    write(f"{top}/notebooks/editions/ko/lab/overrides.json")
    write(f"{top}/grading/paths.py")
    write(f"{top}/grading/judge/attention_hidden.py")
    write(f"{top}/grading/hub/privacy.py")
    write(f"{top}/.git/HEAD")
    write(f"{top}/.venv/bin/python", 0o755)
    write(f"{top}/release-ko/attention/01-softmax.ipynb")
    after = locked_tree(top)
    kept = [
        ".venv",
        ".venv/bin/python",
        "grading",
        "grading/paths.py",
        "grading/hub",
        "grading/hub/privacy.py",
        "notebooks",
        "notebooks/editions/ko",
        "notebooks/editions/ko/lab/overrides.json",
        "release-ko/attention/01-softmax.ipynb",
    ]
    for name in kept:
        assert after[name][1] != GROUP and after[name][0] & 0o004, name
    assert after["model.py"] == (0o640, GROUP)  # the group's write is taken too
    assert after["run.sh"] == (0o750, GROUP)
    for folder in ["notebooks/masters", "notebooks/masters/attention", "grading/judge", ".git"]:
        assert after[folder] == (0o750, GROUP), folder
    private = [
        "notebooks/masters/attention/01-softmax.ipynb",
        "notebooks/editions/ko/01-softmax.md",
        "grading/judge/attention_hidden.py",
        ".git/HEAD",
    ]
    for name in private:
        assert after[name] == (0o640, GROUP), name


def test_links_other_names_and_closed_folders_are_left_as_they_are(tmp_path):
    """A link is not followed (what it names, outside, keeps its mode), a file with another name
    outside keeps its mode (its folder is locked), and a folder others could not enter (the class's,
    given to the course user) is not walked."""
    top, outside = str(tmp_path / "checkout"), str(tmp_path / "outside")
    secret = write(f"{outside}/secret.txt")
    shared = write(f"{outside}/object")
    os.makedirs(f"{top}/.git/objects")
    os.link(shared, f"{top}/.git/objects/object")
    os.symlink(secret, f"{top}/model.py")
    os.symlink(outside, f"{top}/xslm")
    write(f"{top}/submitted/learner1/attention/model.py")
    os.chmod(f"{top}/submitted", 0o700)
    before = os.lstat(secret), os.lstat(shared)
    after = locked_tree(top)
    assert (os.lstat(secret), os.lstat(shared)) == before
    assert after[".git/objects"] == (0o750, GROUP)
    assert after["submitted"][1] != GROUP
    assert after["submitted/learner1/attention/model.py"] == (0o644, os.getgid())


def test_the_allow_list_names_only_what_the_learners_side_imports_or_runs():
    """Nothing of the judge, the masters, the editions' translations or the history is named, and
    make hub's check tries the reference, a master, the hidden cases and the history."""
    for private in [("grading", "judge"), ("notebooks", "masters"), ("notebooks", "editions", "ko",
                    "01-softmax.md"), (".git",), ("model.py",), ("build",), ("xslm",),
                    ("grading", "authoring", "mistakes")]:  # fmt: skip
        assert privacy.verdict(private) is None, private
    assert (
        privacy.verdict(("grading",)) == "above" and privacy.verdict(("grading", "hub")) == "read"
    )
    assert len(privacy.CHECKED) == 4 and all(os.path.isabs(p) for p in privacy.CHECKED)


def test_the_hubs_stop_gives_every_locked_entry_its_mode_back(tmp_path, monkeypatch):
    """unlock (make hub-stop) puts back the group and mode of each entry lock changed, and
    leaves alone one that was replaced meanwhile."""
    top = str(tmp_path / "checkout")
    for path, mode in (("model.py", 0o644), ("notebooks/masters/attention/01.ipynb", 0o664),
                       ("grading/judge/attention_hidden.py", 0o640)):  # fmt: skip
        write(f"{top}/{path}", mode)
    before = {rel: mode_and_group(top, rel) for rel in walked(top)}
    monkeypatch.setattr(privacy.paths, "ROOT", top)
    monkeypatch.setattr(privacy, "LOCKED", str(tmp_path / "locked.json"))
    changed = []
    fd = os.open(top, privacy.FOLDER_ONLY)
    try:
        privacy.lock_below(fd, (), GROUP, changed)
    finally:
        os.close(fd)
    privacy.write_record(changed)
    assert mode_and_group(top, "model.py") == (0o640, GROUP)
    os.remove(f"{top}/grading/judge/attention_hidden.py")  # replaced while the hub ran
    write(f"{top}/grading/judge/attention_hidden.py", 0o600)
    privacy.unlock()
    after = {rel: mode_and_group(top, rel) for rel in walked(top)}
    replaced = "grading/judge/attention_hidden.py"
    assert after[replaced] == (0o600, os.getgid())  # not the entry lock changed: left alone
    assert {k: v for k, v in after.items() if k != replaced} == {
        k: v for k, v in before.items() if k != replaced
    }
    assert not os.path.exists(privacy.LOCKED)


def walked(top):
    """Every path below top, relative to it."""
    return [os.path.relpath(os.path.join(here, name), top)
            for here, dirs, files in os.walk(top) for name in dirs + files]  # fmt: skip


def mode_and_group(top, rel):
    """(mode bits, gid) of top/rel."""
    st = os.lstat(os.path.join(top, rel))
    return stat.S_IMODE(st.st_mode), st.st_gid

"""The local PostgreSQL server (grading/scale/postgres.py) asks every connection for its password:
scram-sha-256, no `trust` in pg_hba.conf, the password in a file only its owner reads, and a
DB_URL that holds no password yet connects. A cluster set up with `trust` is migrated."""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import psycopg2
import pytest
import sqlalchemy

from grading.hub.labview import store
from grading.paths import ROOT
from grading.scale import postgres
from tests.fixtures.lab_server import free_port

try:
    postgres.bin_dir()
    MISSING = None
except postgres.PostgresUnavailable as err:
    MISSING = str(err)
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{MISSING} (make system-postgres)")


def new_folder():
    """A folder the `postgres` user can enter (pytest's tmp_path is closed to it)."""
    folder = tempfile.mkdtemp(prefix="attention-pg-")
    os.chmod(folder, 0o755)
    return folder


@pytest.fixture(scope="module")
def server():
    """A server started (and at the end stopped) by the test: (folder, port, DB_URL)."""
    folder, port = new_folder(), free_port()
    try:
        yield folder, port, postgres.start(folder, port)
    finally:
        postgres.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def no_password_from_elsewhere(monkeypatch, tmp_path):
    """libpq also looks in PGPASSWORD, PGPASSFILE and ~/.pgpass: none of them may help."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-such-pgpass"))


def connect(port, host="127.0.0.1", **kwargs):
    return psycopg2.connect(host=host, port=port, user="postgres", dbname="gradebook",
                            connect_timeout=10, **kwargs)  # fmt: skip


def test_a_connection_without_the_password_is_refused(server):
    folder, port, _ = server
    for host in ("127.0.0.1", folder):  # TCP, and the Unix socket in the folder
        with pytest.raises(psycopg2.OperationalError, match="no password supplied"):
            connect(port, host)


def test_a_wrong_password_is_refused(server):
    with pytest.raises(psycopg2.OperationalError, match="password authentication failed"):
        connect(server[1], password="not-" + postgres.password(server[0]))


def test_the_password_connects(server):
    folder, port, _ = server
    for host in ("127.0.0.1", folder):
        with connect(port, host, password=postgres.password(folder)) as db:
            with db.cursor() as cursor:
                cursor.execute("SELECT current_user, rolpassword LIKE 'SCRAM-SHA-256$%' "
                               "FROM pg_authid WHERE rolname = current_user")  # fmt: skip
                assert cursor.fetchone() == ("postgres", True)
        db.close()


def test_db_url_holds_no_password_and_connects_through_the_password_file(server):
    folder, _, url = server
    secret = postgres.password(folder)
    assert len(secret) >= 40 and secret not in url
    assert f"passfile={postgres.passfile(folder)}" in url
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as db:
            assert db.execute(sqlalchemy.text("SELECT current_database()")).scalar() == "gradebook"
    finally:
        engine.dispose()


def test_the_lab_views_history_is_kept_in_the_gradebooks_database(server, monkeypatch):
    """With DB_URL naming the course's PostgreSQL, the hub's lab view (docs/hub.md) keeps its
    reports there, in a table of its own, across openings."""
    folder, port, url = server
    monkeypatch.setenv("DB_URL", url)
    assert store.history_url() == url
    sent = {"part": "attention", "checkpoint": "softmax", "passed": False,
            "failed": ["softmax.overflow"], "mistakes": ["softmax.no_max_shift"]}  # fmt: skip
    report = store.checked(json.dumps(sent).encode())
    store.History(url).add("learner1", report, at=1000.0)
    assert store.History(url).rows() == [{"at": 1000.0, "learner": "learner1", **sent}]
    with connect(port, password=postgres.password(folder)) as db, db.cursor() as cursor:
        cursor.execute("SELECT learner, checkpoint, mistakes FROM lab_view_reports")
        assert cursor.fetchall() == [("learner1", "softmax", '["softmax.no_max_shift"]')]
    db.close()


def test_the_password_file_is_its_owners_alone(server):
    info = os.stat(postgres.passfile(server[0]))
    assert stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == os.geteuid()  # whoever started it (the server itself does not need it)
    assert not os.path.exists(os.path.join(server[0], "initdb-password"))


def test_pg_hba_conf_trusts_no_one(server):
    data = os.path.join(server[0], "data")
    assert postgres.trusting_lines(data) == []
    with open(os.path.join(data, "pg_hba.conf")) as f:
        methods = {postgres._method(line) for line in f} - {None}
    assert methods == {"scram-sha-256"}


def test_a_cluster_set_up_with_trust_is_migrated_and_keeps_its_databases():
    """What scale/postgres.py made before passwords: initdb --auth=trust, no password file."""
    folder, port = new_folder(), free_port()
    programs, data = postgres.bin_dir(), os.path.join(folder, "data")
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        postgres.run([f"{programs}/initdb", "-D", data, "-U", "postgres", "--auth=trust"])
        postgres.run([f"{programs}/postgres", "--single", "-D", data, "postgres"],
                     input="CREATE DATABASE kept\n")  # fmt: skip
        assert postgres.trusting_lines(data)
        postgres.start(folder, port)
        assert postgres.trusting_lines(data) == []
        with pytest.raises(psycopg2.OperationalError, match="no password supplied"):
            connect(port)
        with connect(port, password=postgres.password(folder)) as db:
            with db.cursor() as cursor:
                cursor.execute("SELECT datname FROM pg_database")
                assert {"kept", "gradebook"} <= {row[0] for row in cursor.fetchall()}
        db.close()
        assert stat.S_IMODE(os.stat(postgres.passfile(folder)).st_mode) == 0o600
    finally:
        postgres.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_running_trust_cluster_is_not_migrated_under_its_clients():
    """Its password cannot be set while it runs: start says to stop it first, and leaves it."""
    folder, port = new_folder(), free_port()
    programs, data = postgres.bin_dir(), os.path.join(folder, "data")
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        postgres.run([f"{programs}/initdb", "-D", data, "-U", "postgres", "--auth=trust"])
        postgres.run([f"{programs}/pg_ctl", "-D", data, "-w", "-l", f"{folder}/server.log", "-o",
                      f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start"])  # fmt: skip
        with pytest.raises(RuntimeError, match="is running and trusts .* stop it"):
            postgres.start(folder, free_port())
        assert postgres.trusting_lines(data)
    finally:
        postgres.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


def test_start_prints_the_db_url_and_stop_stops():
    folder, port = new_folder(), free_port()
    command = [sys.executable, "-m", "grading", "postgres"]
    try:
        shown = subprocess.run([*command, "start", folder, str(port)], capture_output=True,
                               text=True, cwd=ROOT, check=True).stdout  # fmt: skip
        assert shown == f"DB_URL={postgres.url(port, folder)}\n"
        assert postgres.password(folder) not in shown
    finally:
        subprocess.run([*command, "stop", folder], cwd=ROOT, check=True)
        assert not os.path.exists(os.path.join(folder, "data", "postmaster.pid"))
        shutil.rmtree(folder, ignore_errors=True)


def test_the_password_a_db_url_names_is_the_one_libpq_would_use(server):
    """url_password reads DB_URL's passfile as libpq does (host, port, database and user matched,
    `*` for any, `\\` escaping): the password it finds connects, and lines for other hosts,
    ports or users, and a comment, are passed over. Root's grading hands it to the course user."""
    folder, port, url = server
    secret = postgres.password(folder)
    tricky = os.path.join(folder, "pgpass-tricky")
    postgres._write_private(tricky, "".join([
        "# 127.0.0.1:*:*:postgres:a-comment\n",
        f"10.0.0.9:{port}:gradebook:postgres:another-host\n",
        f"127.0.0.1:{port + 1}:gradebook:postgres:another-port\n",
        "127.0.0.1:*:*:grader:another-user\n",
        f"127.0.0.1:{port}:grade\\book:postgres:{secret}:the rest is not the password\n",
    ]))  # fmt: skip
    tricky_url = url.replace(postgres.passfile(folder), tricky)
    assert postgres.url_password(url) == secret
    assert postgres.url_password(tricky_url) == secret
    assert postgres.url_password(url.split("?")[0]) is None  # no passfile named
    assert postgres.url_password("sqlite:///records/gradebook.db") is None
    with connect(port, password=postgres.url_password(tricky_url)) as db:
        assert db.status == psycopg2.extensions.STATUS_READY
    db.close()

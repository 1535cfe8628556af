"""A local PostgreSQL server for the gradebook, from Debian's `postgresql` package.

    python -m grading.postgres start [folder] [port]   # initialise (once), start, print DB_URL
    python -m grading.postgres stop [folder]

For demos and tests on one machine; a real deployment points DB_URL at its own server. The
server listens on 127.0.0.1 only, trusts local connections, and keeps everything in `folder`
(default .postgres/ in the course, git-ignored). As root, it runs as the `postgres` user.
"""

import glob
import os
import shutil
import subprocess
import sys

from grading.reference import ROOT

FOLDER = os.path.join(ROOT, ".postgres")
PORT = 55432
DATABASE = "gradebook"


class PostgresUnavailable(RuntimeError):
    """Debian's PostgreSQL server programs are not installed here."""


def bin_dir():
    """The newest /usr/lib/postgresql/<version>/bin, or a clear error saying how to install it."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if not found:
        raise PostgresUnavailable(
            "PostgreSQL's server is not installed: apt-get install postgresql (Debian/Ubuntu)"
        )
    return os.path.dirname(found[-1])


def _version(path):
    return [int(p) if p.isdigit() else 0 for p in path.split("/")[4].split(".")]


def as_server_user(command):
    """PostgreSQL refuses to run as root: as root, run the command as `postgres`."""
    if os.geteuid() != 0:
        return command
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *command]


def url(port=PORT):
    """The SQLAlchemy URL nbgrader's gradebook takes (DB_URL)."""
    return f"postgresql+psycopg2://postgres@127.0.0.1:{port}/{DATABASE}"


def run(command, **kwargs):
    """Run a server program as the server's user; its output is returned, a failure raised."""
    done = subprocess.run(as_server_user(command), capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{os.path.basename(command[0])} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def start(folder=FOLDER, port=PORT):
    """Initialise the cluster in folder (first time only), start it on port, create the database."""
    programs, data = bin_dir(), os.path.join(folder, "data")
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    if not os.path.exists(os.path.join(data, "PG_VERSION")):
        run([f"{programs}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"])
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    log = os.path.join(folder, "server.log")
    run([f"{programs}/pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"])
    databases = run([f"{programs}/psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                     "-Atc", "SELECT datname FROM pg_database"])  # fmt: skip
    if DATABASE not in databases.split():
        run(
            [f"{programs}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", DATABASE]
        )
    return url(port)


def stop(folder=FOLDER):
    """Stop the server (fast shutdown: open connections are closed); nothing when not running."""
    data = os.path.join(folder, "data")
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        run([f"{bin_dir()}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"])


def main(argv):
    """`start [folder] [port]` prints the DB_URL to use; `stop [folder]`."""
    if argv[:1] == ["start"]:
        folder = os.path.abspath(argv[1]) if len(argv) > 1 else FOLDER
        print(f"DB_URL={start(folder, int(argv[2]) if len(argv) > 2 else PORT)}")
    elif argv[:1] == ["stop"]:
        stop(os.path.abspath(argv[1]) if len(argv) > 1 else FOLDER)
        print("stopped")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (PostgresUnavailable, RuntimeError) as err:
        raise SystemExit(str(err)) from None

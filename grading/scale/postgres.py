"""A local PostgreSQL server for the gradebook, from Debian's `postgresql` package.

    python -m grading postgres start [folder] [port]   # initialise (once), start, print DB_URL
    python -m grading postgres stop [folder]

For demos and tests on one machine; a real deployment points DB_URL at its own server. The
server keeps everything in `folder` (default .postgres/ in the course, git-ignored), listens on
127.0.0.1 only (and on a Unix socket in `folder`), and asks every connection for the password
of its superuser `postgres` (scram-sha-256). The password is generated on initialisation and kept
in `folder`/pgpass (libpq's password-file format, mode 0600, owned by whoever ran `start`). The
DB_URL printed names that file (`?passfile=...`) and holds no password, so it can be shown, logged
and put in a process's arguments. As root, the server itself runs as the `postgres` user.

A folder initialised before passwords (pg_hba.conf says `trust`) is migrated by `start`: it sets a
new password in single-user mode, so the server never listens while it trusts, and replaces
`trust` with `scram-sha-256` in pg_hba.conf. The gradebook in it is kept.
"""

import glob
import os
import re
import secrets
import shutil
import subprocess
import sys
from urllib.parse import parse_qs, quote, unquote, urlsplit

from grading.paths import POSTGRES

FOLDER = POSTGRES
PORT = 55432
DATABASE = "gradebook"
USER = "postgres"
PASSFILE = "pgpass"


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


def passfile(folder=FOLDER):
    """The file holding the superuser's password, in libpq's format (what `passfile=` reads)."""
    return os.path.join(folder, PASSFILE)


def url(port=PORT, folder=FOLDER):
    """The SQLAlchemy URL nbgrader's gradebook takes (DB_URL). It names the password file rather
    than holding the password; psycopg2 hands `passfile` to libpq, which reads the password."""
    return (
        f"postgresql+psycopg2://{USER}@127.0.0.1:{port}/{DATABASE}"
        f"?passfile={quote(passfile(folder), safe='/')}"
    )


def password(folder=FOLDER):
    """The superuser's password, read back from the password file."""
    with open(passfile(folder)) as f:
        return f.readline().rstrip("\n").rsplit(":", 1)[1]


def url_password(db_url):
    """The password DB_URL's `passfile=` holds for its host, port, database and user, or None
    (no passfile, none readable here, or no line that matches): libpq's matching, `*` included."""
    parts = urlsplit(db_url or "")
    names = parse_qs(parts.query).get("passfile")
    if not parts.scheme.startswith("postgresql") or not names:
        return None
    user = unquote(parts.username or "")
    wanted = [parts.hostname or "localhost", str(parts.port or 5432),
              unquote(parts.path.lstrip("/")) or user, user]  # fmt: skip
    try:
        with open(names[0]) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = passfile_fields(line)
        if len(fields) >= 5 and all(f in ("*", w) for f, w in zip(fields, wanted)):
            return fields[4]
    return None


def passfile_fields(line):
    """A password file line's fields: split at each `:`, where `\\` escapes the next character."""
    fields, field, escaped = [], "", False
    for char in line:
        if escaped or char not in ":\\":
            field, escaped = field + char, False
        elif char == "\\":
            escaped = True
        else:
            fields, field = fields + [field], ""
    return fields + [field]


def run(command, server=True, **kwargs):
    """Run a PostgreSQL program, a server one as the server's user; its output is returned, a
    failure raised."""
    argv = as_server_user(command) if server else command
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{os.path.basename(command[0])} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def _write_private(path, text, owner=None):
    """Write text to a new file only its owner can read: created 0600 (never readable by others,
    not even for a moment), replacing whatever was there."""
    if os.path.lexists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    if owner:
        shutil.chown(path, owner, owner)


def _new_password(folder):
    """Generate the superuser's password and write the password file; returns the password.
    token_urlsafe has no ':' or '\\' (pgpass separators) and no quote (the SQL that sets it)."""
    secret = secrets.token_urlsafe(32)
    # 127.0.0.1 for DB_URL's TCP connections, the folder for its Unix socket (libpq matches a
    # socket's directory, `localhost` only for the default one); any port and database, so the
    # file still fits when `start` is given another port.
    hosts = ("127.0.0.1", "localhost", re.sub(r"([:\\])", r"\\\1", folder))
    _write_private(passfile(folder), "".join(f"{host}:*:*:{USER}:{secret}\n" for host in hosts))
    return secret


def trusting_lines(data):
    """The pg_hba.conf lines that let a connection in without a password (method `trust`)."""
    with open(os.path.join(data, "pg_hba.conf")) as f:
        return [line for line in f if _method(line) == "trust"]


def _method(line):
    """The authentication method of a pg_hba.conf line (None for comments and blank lines)."""
    return _fields(line)[1]


def _fields(line):
    """A pg_hba.conf line's fields and where its method is in them: `local DATABASE USER METHOD`,
    `host DATABASE USER ADDRESS METHOD` or `host DATABASE USER IP-ADDRESS IP-MASK METHOD`."""
    fields = line.split("#", 1)[0].split()
    at = 3 if fields[:1] == ["local"] else 4
    ip = r"[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:]*"
    if at == 4 and len(fields) > 5 and re.fullmatch(ip, fields[4]):
        at = 5  # fields[4] is a bare IP address (no /bits): fields[5] is its mask
    return fields, (fields[at] if len(fields) > at else None), at


def _require_password(data):
    """Replace `trust` by `scram-sha-256` in pg_hba.conf (the file keeps its owner and mode)."""
    path = os.path.join(data, "pg_hba.conf")
    with open(path) as f:
        lines = f.readlines()
    with open(path, "w") as f:
        for line in lines:
            fields, method, at = _fields(line)
            if method == "trust":
                fields[at] = "scram-sha-256"
                line = "\t".join(fields) + "\n"
            f.write(line)


def _set_password(programs, data, secret):
    """Set the superuser's password with the server stopped, in single-user mode: no connection
    is possible meanwhile, and the password goes through stdin, not a command line."""
    run([f"{programs}/postgres", "--single", "-D", data, "-c", "password_encryption=scram-sha-256",
         "postgres"], input=f"ALTER ROLE {USER} PASSWORD '{secret}'\n")  # fmt: skip


def _running(programs, data):
    """Whether a server runs on data (a stale postmaster.pid after a crash does not count)."""
    if not os.path.exists(os.path.join(data, "postmaster.pid")):
        return False
    done = subprocess.run(as_server_user([f"{programs}/pg_ctl", "-D", data, "status"]),
                          capture_output=True, text=True)  # fmt: skip
    return done.returncode == 0


def _initialise(programs, folder, data, owner):
    """initdb with password authentication everywhere, for a freshly generated password. initdb
    reads it from a file of the server user's (it cannot open a pipe of root's); that file is
    0600 and gone once initdb is done."""
    secret = _new_password(folder)
    transient = os.path.join(folder, "initdb-password")
    _write_private(transient, secret + "\n", owner)
    try:
        run([f"{programs}/initdb", "-D", data, "-U", USER, "--auth=scram-sha-256",
             f"--pwfile={transient}", "-E", "UTF8"])  # fmt: skip
    finally:
        os.unlink(transient)


def _secure(programs, folder, data):
    """A cluster from before passwords (`trust`), or one whose password file is lost: a new
    password, set in single-user mode, and pg_hba.conf asking for it (needs the server stopped)."""
    trusting, lost = trusting_lines(data), not os.path.exists(passfile(folder))
    if not trusting and not lost:
        return
    why = f"has lost its password file {passfile(folder)}"
    if trusting:
        why = "trusts local connections without a password (set up before passwords)"
    if _running(programs, data):
        raise RuntimeError(
            f"the PostgreSQL server in {folder} is running and {why}: stop it "
            f"(make postgres-stop, or python -m grading postgres stop {folder}) and start it "
            "again; start then sets a new password and requires it"
        )
    secret = password(folder) if not lost else _new_password(folder)
    _set_password(programs, data, secret)
    if trusting:
        _require_password(data)
    print(f"{folder}: {why}; set a new password (in {passfile(folder)}) and required it",
          file=sys.stderr)  # fmt: skip


def start(folder=FOLDER, port=PORT):
    """Initialise the cluster in folder (first time only), start it on port, create the database."""
    programs, data = bin_dir(), os.path.join(folder, "data")
    os.makedirs(folder, exist_ok=True)
    owner = "postgres" if os.geteuid() == 0 else None
    if owner:
        shutil.chown(folder, owner, owner)
    if not os.path.exists(os.path.join(data, "PG_VERSION")):
        _initialise(programs, folder, data, owner)
    else:
        _secure(programs, folder, data)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    log = os.path.join(folder, "server.log")
    run([f"{programs}/pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"])
    # psql and createdb are clients: they run as the caller, who can read the password file.
    client = dict(os.environ, PGPASSFILE=passfile(folder))
    client.pop("PGPASSWORD", None)
    at = ["-h", "127.0.0.1", "-p", str(port), "-U", USER, "-w"]
    databases = run([f"{programs}/psql", *at, "-d", "postgres", "-Atc",
                     "SELECT datname FROM pg_database"], server=False, env=client)  # fmt: skip
    if DATABASE not in databases.split():
        run([f"{programs}/createdb", *at, DATABASE], server=False, env=client)
    return url(port, folder)


def stop(folder=FOLDER):
    """Stop the server (fast shutdown: open connections are closed); nothing when not running."""
    data = os.path.join(folder, "data")
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        run([f"{bin_dir()}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"])


def arguments(parser, command):
    """`python -m grading postgres start [folder] [port] | stop [folder]`."""
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("folder", nargs="?", default=FOLDER,
                        help="the server's folder (default .postgres/)")  # fmt: skip
    parser.add_argument("port", nargs="?", type=int, default=PORT,
                        help=f"with start: the port (default {PORT})")  # fmt: skip


def main(args):
    """`start` prints the DB_URL to use; `stop` stops the server."""
    try:
        if args.action == "start":
            print(f"DB_URL={start(os.path.abspath(args.folder), args.port)}")
        else:
            stop(os.path.abspath(args.folder))
            print("stopped")
    except (PostgresUnavailable, RuntimeError) as err:
        raise SystemExit(str(err)) from None

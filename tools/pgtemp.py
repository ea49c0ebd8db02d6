"""A throwaway PostgreSQL server for the tests and the bench: initdb in a
temporary folder, pg_ctl start on a unix socket in that folder (no TCP), and
a stop that removes it all. As root (CI, this machine) the server runs as
the `postgres` user (initdb refuses root), through runuser.

    with PgTemp() as pg:
        url = pg.create_db("t1")      # postgresql://mj@/t1?host=DIR&port=N
"""

import os
import shutil
import subprocess
import tempfile

CANDIDATES = ("/usr/local/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin",
              "/usr/bin")
PORT = 5439  # names the socket file only: the folder is this server's own


def find(tool: str):
    p = shutil.which(tool)
    if p:
        return p
    for d in CANDIDATES:
        if os.path.exists(os.path.join(d, tool)):
            return os.path.join(d, tool)
    return None


def available() -> str:
    """'' if a server can be started here, else why not (for a skip line)."""
    for t in ("initdb", "pg_ctl", "postgres"):
        if find(t) is None:
            return "no %s (Debian's postgresql package)" % t
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser"
    return ""


class PgTemp:
    def __init__(self, fsync: bool = False):
        self.fsync = fsync
        self.dir = None

    def _run(self, *cmd):
        if os.geteuid() == 0:
            cmd = ("runuser", "-u", "postgres", "--") + cmd
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("%s failed: %s%s" % (cmd[0], r.stdout, r.stderr))
        return r.stdout

    def start(self):
        why = available()
        if why:
            raise RuntimeError(why)
        self.dir = tempfile.mkdtemp(prefix="mjpg")
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = os.path.join(self.dir, "data")
        self._run(find("initdb"), "-D", data, "-U", "mj", "-A", "trust", "-E", "UTF8",
                  "--no-locale")
        opts = "-k %s -c listen_addresses='' -p %d -c max_connections=40%s" % (
            self.dir, PORT, "" if self.fsync else " -c fsync=off -c synchronous_commit=off")
        self._run(find("pg_ctl"), "-D", data, "-o", opts, "-l", os.path.join(self.dir, "log"),
                  "-w", "start")
        return self

    def url(self, db: str = "postgres") -> str:
        return "postgresql://mj@/%s?host=%s&port=%d" % (db, self.dir, PORT)

    def create_db(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute("CREATE DATABASE %s" % name)
        return self.url(name)

    def stop(self):
        if self.dir is None:
            return
        try:
            self._run(find("pg_ctl"), "-D", os.path.join(self.dir, "data"), "-m", "immediate",
                      "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

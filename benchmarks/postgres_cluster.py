"""A throwaway PostgreSQL cluster for the benchmarks that need one (Debian's server, as the tests
start it): initdb into a temporary folder, started on a free loopback port, stopped and deleted
by stop(). As root the server runs as the postgres user (PostgreSQL refuses to run as root)."""
import glob
import os
import shutil
import subprocess
import tempfile

from serve_process import free_port


class Postgres:
    """A cluster whose superuser is `runanywhere`, trusted on loopback; `url` names its database."""

    def __init__(self):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        if not versions:
            raise SystemExit("PostgreSQL is not installed; run scripts/setup --tests")
        self.bin = os.path.dirname(versions[-1])
        self.folder = tempfile.mkdtemp(prefix="runanywhere-bench-postgres-")
        self.port = free_port()
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.run("initdb", "-D", f"{self.folder}/data", "-A", "trust", "-U", "runanywhere", "--no-sync")
        self.run("pg_ctl", "-D", f"{self.folder}/data", "-l", f"{self.folder}/log", "-w", "start",
                 "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1")
        self.url = f"postgres://runanywhere@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def run(self, program, *arguments):
        command = [f"{self.bin}/{program}", *arguments]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        self.run("pg_ctl", "-D", f"{self.folder}/data", "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

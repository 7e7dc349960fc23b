import Foundation
import RunAnywhere

/// A throwaway PostgreSQL cluster from Debian's server (scripts/setup --tests installs it): `initdb` into
/// a temporary folder, started on a free loopback port with its socket in that folder, stopped
/// and deleted by ``stop()``. As root the server runs as the `postgres` user (PostgreSQL refuses
/// to run as root).
package final class TestPostgres: Sendable {
    /// `postgres://runanywhere@127.0.0.1:PORT/postgres?sslmode=disable`.
    package let url: String
    /// The port it listens on.
    package let port: Int
    private let folder: URL

    /// The folder of Debian's PostgreSQL programs, newest version first; nil when not installed.
    package static var binaries: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        return versions.map { root.appendingPathComponent("\($0)/bin") }.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path)
        }
    }

    /// Whether a cluster can be started here.
    package static var isInstalled: Bool { binaries != nil }

    private init(url: String, port: Int, folder: URL) {
        self.url = url
        self.port = port
        self.folder = folder
    }

    /// Creates and starts a cluster whose superuser is `runanywhere` (trusted on loopback).
    package static func start() throws -> TestPostgres {
        guard let binaries else {
            throw SDKError(.frameworkNotAvailable, "PostgreSQL is not installed; run scripts/setup --tests --build tests")
        }
        let folder = try TestEnvironment.temporaryDirectory("postgres")
        let data = folder.appendingPathComponent("data")
        if getuid() == 0 { try run("/bin/chown", ["-R", "postgres:postgres", folder.path]) }
        try run(
            binaries.appendingPathComponent("initdb").path,
            ["-D", data.path, "-A", "trust", "-U", "runanywhere", "-E", "UTF8", "--no-sync"], asServer: true)
        // Suites start clusters side by side: a port another one took meanwhile, or a resource
        // (shared memory, semaphores) another holds for a moment, fails a start; a new port and a
        // pause make the next try. The server's own log says why each failed.
        let log = folder.appendingPathComponent("server.log")
        var failures: [String] = []
        for attempt in 1...3 {
            let port = try TestEnvironment.freePort()
            let options = "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1"
            do {
                try run(
                    binaries.appendingPathComponent("pg_ctl").path, ["-D", data.path, "-l", log.path, "-o", options, "-w", "start"],
                    asServer: true)
                return TestPostgres(url: "postgres://runanywhere@127.0.0.1:\(port)/postgres?sslmode=disable", port: port, folder: folder)
            } catch let error as SDKError {
                let said = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? ""
                failures.append("try \(attempt), port \(port): \(error.message)\nserver log: \(said)")
                Thread.sleep(forTimeInterval: Double(attempt))
            }
        }
        try? FileManager.default.removeItem(at: folder)
        throw SDKError(.frameworkNotAvailable, "PostgreSQL did not start:\n" + failures.joined(separator: "\n"))
    }

    /// Stops the server at once and deletes its files.
    package func stop() {
        if let binaries = Self.binaries {
            _ = try? Self.run(
                binaries.appendingPathComponent("pg_ctl").path,
                ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"], asServer: true)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs SQL through `psql` as the superuser and returns what it printed (unaligned, no headers).
    package func psql(_ sql: String) throws -> String {
        guard let binaries = Self.binaries else { throw SDKError(.frameworkNotAvailable, "PostgreSQL is not installed") }
        return try Self.run(
            binaries.appendingPathComponent("psql").path,
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "runanywhere", "-d", "postgres", "-At", "-c", sql])
    }

    /// Runs `program` (as the `postgres` user when `asServer` and root) and returns its output.
    /// posix_spawn and waitpid rather than Foundation's Process, whose wait never returned for a
    /// `pg_ctl start` whose server stays behind; the output goes to a file, not a pipe that the
    /// server would hold open. Nothing else open here goes with it: a server started while a test
    /// beside it had a child's pipes open held their write ends for its whole life, and that
    /// test waited for ever for the end of its child's output.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String], asServer: Bool = false) throws -> String {
        let command =
            asServer && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-postgres-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard closeFrom(3, in: &actions) == 0 else { throw SDKError(.frameworkNotAvailable, "posix_spawn cannot close inherited files") }
        var arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &arguments, environ)
        guard spawned == 0 else { throw SDKError(.frameworkNotAvailable, "Cannot start \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        // Exited normally with status 0 (the wait status's low 7 bits are 0 for a normal exit).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw SDKError(.frameworkNotAvailable, "\((program as NSString).lastPathComponent) failed (wait status \(status)): \(text)")
        }
        return text
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare: the child closes every file from `lowest` up before it starts.
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Int32 {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return ENOSYS }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RunAnywhereTestSupport

/// A `runanywhere serve` (or `telemetry serve`) process on a free loopback port, as a user starts it.
final class ServeProcess: @unchecked Sendable {
    let process: Process
    /// The port it listens on.
    let port: Int
    private let log: LogLines

    /// The API's base URL, as an OpenAI client is given it.
    var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    /// What it printed on standard error so far (its banner and access log).
    var standardError: String { log.text }

    /// Starts `runanywhere COMMAND --port 0 ARGUMENTS` (COMMAND is `serve` by default) and
    /// waits until it says where it listens.
    init(_ runner: CLIRunner, command: [String] = ["serve"], arguments: [String] = [], input: String? = nil) throws {
        let (process, stdin, _, stderr) = try runner.launch(command + ["--port", "0"] + arguments)
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        self.process = process
        self.log = LogLines(stderr.fileHandleForReading)
        guard let port = log.waitForPort() else {
            process.terminate()
            process.waitUntilExit()
            throw ServeError(
                message: "runanywhere \(command.joined(separator: " ")) did not start (status \(process.terminationStatus)): \(log.text)")
        }
        self.port = port
    }

    /// Sends SIGTERM and returns the exit status once it has shut down.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Kills it with SIGKILL (no chance to clean up) and waits until it is gone.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }

    struct ServeError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// Standard error, drained on a thread of its own so the pipe never fills and blocks the server.
private final class LogLines: @unchecked Sendable {
    private let lock = NSCondition()
    private var data = Data()
    private var ended = false

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                lock.lock()
                if chunk.isEmpty { ended = true } else { data.append(chunk) }
                lock.broadcast()
                lock.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// The port in the banner `… at http://127.0.0.1:PORT/v1`, or nil if the process ended first.
    func waitForPort() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            let text = String(decoding: data, as: UTF8.self)
            if let range = text.range(of: "http://127.0.0.1:"), let end = text[range.upperBound...].firstIndex(of: "/") {
                return Int(text[range.upperBound..<end])
            }
            if ended { return nil }
            lock.wait()
        }
    }
}

extension ServeProcess {
    /// A request to a server, with `key` as its bearer token and `body` as JSON: the status, the
    /// body as text and, when it is a JSON object, as one.
    static func send(_ method: HTTPMethod, _ url: String, key: String? = nil, body: [String: Any]? = nil) async throws -> (
        status: Int, text: String, json: [String: Any]?
    ) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 22))
        return (
            Int(response.status.code), String(decoding: data, as: UTF8.self),
            try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        )
    }
}

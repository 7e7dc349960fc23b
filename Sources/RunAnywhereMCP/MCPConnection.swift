import Foundation
import Logging
import MCP
import RunAnywhere
import Synchronization
import SystemPackage

extension MCPToolbox {
    /// One server: its process, the pipes to it, and the MCP client speaking over them.
    final class Connection: @unchecked Sendable {  // Process is used only through its thread-safe members
        /// How it was started (to start it again).
        let server: MCPServer
        var name: String { server.name }
        let process: Process
        let transport: StdioTransport
        let client: Client
        private let pipes: (input: Pipe, output: Pipe, errors: Pipe)
        /// The end of what the server wrote to standard error, for messages, and whether it has
        /// closed it (as it does when it exits).
        private let errors = Mutex((text: "", closed: false))

        private init(server: MCPServer, process: Process, pipes: (input: Pipe, output: Pipe, errors: Pipe), logger: Logger) {
            self.server = server
            self.process = process
            self.pipes = pipes
            transport = StdioTransport(
                input: FileDescriptor(rawValue: pipes.output.fileHandleForReading.fileDescriptor),
                output: FileDescriptor(rawValue: pipes.input.fileHandleForWriting.fileDescriptor), logger: logger)
            client = Client(name: "runanywhere", version: RunAnywhere.version)
        }

        /// Starts `server`'s program with pipes for its standard input, output and error.
        static func start(_ server: MCPServer, logger: Logger) throws -> Connection {
            signal(SIGPIPE, SIG_IGN)  // a write to a server that has exited must fail, not end this process
            let process = Process()
            process.executableURL = try executable(server)
            process.arguments = server.args
            process.environment = ProcessInfo.processInfo.environment.merging(server.env) { $1 }
            let pipes = (input: Pipe(), output: Pipe(), errors: Pipe())
            (process.standardInput, process.standardOutput, process.standardError) = (pipes.input, pipes.output, pipes.errors)
            let connection = Connection(server: server, process: process, pipes: pipes, logger: logger)
            let label = server.name
            pipes.errors.fileHandleForReading.readabilityHandler = { [weak connection] handle in
                let data = handle.availableData
                guard !data.isEmpty else {
                    handle.readabilityHandler = nil
                    connection?.errors.withLock { $0.closed = true }
                    return
                }
                let text = String(decoding: data, as: UTF8.self)
                logger.debug("MCP server '\(label)': \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
                connection?.errors.withLock { $0.text = String(($0.text + text).suffix(2000)) }
            }
            // A server that exits, asked something or not, ends the client's loop over its output,
            // which would otherwise read the ended stream again and again.
            process.terminationHandler = { [client = connection.client] _ in Task { await client.disconnect() } }
            do {
                try process.run()
            } catch {
                throw SDKError(
                    .invalidInput, "MCP server '\(server.name)': \(server.command) cannot be started: \(error.localizedDescription)")
            }
            // The pipes' other ends are the child's now; holding them would keep its input open after a stop.
            try? pipes.input.fileHandleForReading.close()
            try? pipes.output.fileHandleForWriting.close()
            try? pipes.errors.fileHandleForWriting.close()
            return connection
        }

        /// The program to run: `command` itself when it names a path, else the first executable
        /// of that name on the server's `PATH`.
        private static func executable(_ server: MCPServer) throws -> URL {
            guard !server.command.contains("/") else { return URL(fileURLWithPath: server.command) }
            let path = server.env["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            for folder in path.split(separator: ":") where !folder.isEmpty {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(server.command)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw SDKError(.invalidInput, "MCP server '\(server.name)': no program '\(server.command)' on PATH")
        }

        /// A tool as the server lists it, its parameters schema in the SDK's JSON.
        struct ListedTool: Sendable {
            let name: String
            let description: String?
            let title: String?
            let schema: JSONValue
        }

        /// Speaks MCP with the server (its `initialize` exchange) and lists its tools, each step
        /// within `limit`.
        func initialize(within limit: Duration) async throws -> [ListedTool] {
            let client = client
            let transport = transport
            let started = try await answer("start", within: limit, giveUp: { await client.disconnect() }) {
                try await client.connect(transport: transport)
            }
            // A server of resources or prompts only has no tools to list.
            guard started.capabilities.tools != nil else { return [] }
            var listed: [ListedTool] = []
            var cursor: String?
            var cursors: Set<String> = []
            repeat {
                let after = cursor
                let page = try await answer("list its tools", within: limit, giveUp: { await client.disconnect() }) {
                    try await client.listTools(cursor: after)
                }
                for tool in page.tools {
                    let schema = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(tool.inputSchema))
                    listed.append(ListedTool(name: tool.name, description: tool.description, title: tool.title, schema: schema))
                }
                cursor = page.nextCursor
                // A cursor given twice would page for ever: what was listed is what there is.
                if let next = cursor, !cursors.insert(next).inserted { break }
            } while cursor != nil
            return listed
        }

        /// Calls the tool `name` with `arguments` (a JSON object) and gives back its content as
        /// text, and whether the tool failed.
        func call(_ name: String, arguments: JSONValue, within limit: Duration) async throws -> (text: String, isError: Bool) {
            let values = try JSONDecoder().decode([String: Value].self, from: Data(arguments.text.utf8))
            guard process.isRunning else { throw await exited(asked: "run \(name)") }
            let client = client
            let request: RequestContext<CallTool.Result> = try await client.callTool(name: name, arguments: values)
            let result = try await answer("run \(name)", within: limit, giveUp: { try? await client.cancelRequest(request.requestID) }) {
                try await request.value
            }
            return (result.content.map(Self.text).joined(separator: "\n"), result.isError == true)
        }

        /// One part of a tool's result as the text the model reads.
        private static func text(_ content: MCP.Tool.Content) -> String {
            switch content {
            case .text(let text, _, _): text
            case .image(let data, let mimeType, _, _): "[an image, \(mimeType), \(data.count * 3 / 4) bytes, not shown]"
            case .audio(let data, let mimeType, _, _): "[audio, \(mimeType), \(data.count * 3 / 4) bytes, not played]"
            case .resource(let resource, _, _):
                resource.text ?? "[the resource \(resource.uri), \(resource.mimeType ?? "binary"), not shown]"
            case .resourceLink(let uri, let name, _, let description, _, _):
                "[a link to \(name) (\(uri))\(description.map { ": \($0)" } ?? "")]"
            }
        }

        private enum Outcome<T: Sendable>: Sendable {
            case done(Result<T, any Error>)
            case exited
            case timedOut
            case cancelled
        }

        /// What `work` gives back, unless the server exits first or `limit` passes (then
        /// `giveUp`, which must end `work`, runs and the error names `what` the server was asked).
        func answer<T: Sendable>(
            _ what: String, within limit: Duration, giveUp: @escaping @Sendable () async -> Void,
            _ work: @escaping @Sendable () async throws -> T
        ) async throws -> T {
            guard process.isRunning else { throw await exited(asked: what) }
            let process = process
            let outcome = await withTaskGroup(of: Outcome<T>.self) { group in
                group.addTask {
                    do { return .done(.success(try await work())) } catch { return .done(.failure(error)) }
                }
                group.addTask {
                    let deadline = ContinuousClock.now.advanced(by: limit)
                    while process.isRunning {
                        guard ContinuousClock.now < deadline else { return .timedOut }
                        do { try await Task.sleep(for: .milliseconds(20)) } catch { return .cancelled }
                    }
                    return .exited
                }
                let first = await group.next() ?? .cancelled
                // Giving up resumes what waits for the answer before it tells the server (which
                // may be too stuck to read it), so it is not awaited here.
                if case .done = first {} else { Task { await giveUp() } }
                group.cancelAll()
                for await _ in group {}
                return first
            }
            switch outcome {
            case .done(let result):
                do {
                    return try result.get()
                } catch let error as SDKError {
                    throw error
                } catch {
                    guard process.isRunning else { throw await exited(asked: what) }
                    throw SDKError(.networkError, "MCP server '\(name)' could not \(what): \(error)")
                }
            case .exited: throw await exited(asked: what)
            case .timedOut: throw SDKError(.networkError, "MCP server '\(name)' did not \(what) within \(limit)\(said)")
            case .cancelled: throw CancellationError()
            }
        }

        /// The error for a server that has ended, once what it wrote last has been read (up to
        /// half a second): how it ended, and the end of what it said.
        private func exited(asked what: String) async -> SDKError {
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(500))
            while !errors.withLock({ $0.closed }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            let ending =
                process.terminationReason == .uncaughtSignal
                ? "was killed (signal \(process.terminationStatus))" : "exited (status \(process.terminationStatus))"
            return SDKError(.networkError, "MCP server '\(name)' \(ending) when asked to \(what)\(said)")
        }

        /// The end of what the server wrote to standard error, as the end of a message.
        private var said: String {
            let text = errors.withLock { $0.text }.trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "" : "; it said: \(text.split(separator: "\n").suffix(5).joined(separator: " | "))"
        }

        /// Disconnects, closes the server's input (a stdio server's signal to end) and, if it
        /// has not ended within a second, terminates it, then kills it a second later.
        func stop() async {
            await client.disconnect()
            try? pipes.input.fileHandleForWriting.close()
            for signal in [nil, SIGTERM, SIGKILL] as [Int32?] {
                if let signal, process.isRunning { kill(process.processIdentifier, signal) }
                let deadline = ContinuousClock.now.advanced(by: .seconds(1))
                while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
                guard process.isRunning else { break }
            }
            try? pipes.output.fileHandleForReading.close()
        }
    }
}

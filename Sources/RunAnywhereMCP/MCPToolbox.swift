import Foundation
import Logging
import RunAnywhere

/// The tools of Model Context Protocol servers, for a model to call: ``connect(_:)`` starts a
/// server and lists its tools, ``tools`` are what to offer the model, and ``run(_:)`` runs a call
/// it made on the server that offers the tool; together with
/// `RunAnywhere.generateWithTools(_:tools:toolChoice:context:options:maxRounds:execute:)` a model
/// answers with them. ``close()`` stops the servers.
///
/// A tool's name beyond letters, digits, `_` and `-` is offered with `_` in their place, and one
/// offered already with the server's name before it; a tool whose parameters schema the SDK
/// cannot constrain calls to is left out and logged. A server that exits, or does not answer
/// within its limit, is an error naming it and quoting the end of what it wrote to standard
/// error; one that has exited is started again for the next call to its tools (a long-lived
/// toolbox, as a server's, outlives a server's crash); a tool that fails is its result, marked
/// as an error, for the model to read.
public actor MCPToolbox {
    /// The tools offered, of every server connected, in the order the servers listed them.
    public private(set) var tools: [Tool] = []

    private var servers: [Connection] = []
    /// The servers being started again, by their place in `servers`.
    private var restarts: [Int: Task<Connection, any Error>] = [:]
    /// Where each offered tool runs: the server's place in `servers` and the tool's own name.
    private var routes: [String: (server: Int, name: String)] = [:]
    private let logger: Logger
    private let startLimit: Duration
    private let callLimit: Duration

    /// A toolbox with no servers yet; a server has `startLimit` to start and list its tools, and
    /// each call `callLimit` to answer.
    public init(logger: Logger = Logger(label: "runanywhere.mcp"), startLimit: Duration = .seconds(30), callLimit: Duration = .seconds(120))
    {
        self.logger = logger
        self.startLimit = startLimit
        self.callLimit = callLimit
    }

    deinit {
        for server in servers where server.process.isRunning { server.process.terminate() }
    }

    /// Starts `server`, speaks MCP with it and adds its tools to ``tools``, returning those added.
    /// A tool named as one offered already is offered with the server's name before its own
    /// (`files_search`). A program that cannot be started, and a server that exits or does not
    /// answer, throw ``RunAnywhere/ErrorCode/invalidInput`` or ``RunAnywhere/ErrorCode/networkError``
    /// naming the server; the toolbox is then as it was.
    @discardableResult
    public func connect(_ server: MCPServer) async throws -> [Tool] {
        let connection = try Connection.start(server, logger: logger)
        do {
            let listed = try await connection.initialize(within: startLimit)
            let added = offered(listed, by: server.name)
            routes.merge(added.map { ($0.offered.name, (servers.count, $0.name)) }) { $1 }
            servers.append(connection)
            tools += added.map(\.offered)
            logger.info(
                "MCP server '\(server.name)' offers \(added.isEmpty ? "no tools" : added.map(\.offered.name).joined(separator: ", "))")
            return added.map(\.offered)
        } catch {
            await connection.stop()
            throw error
        }
    }

    /// Runs `call` on the server that offers its tool and gives back its result as text (a text
    /// part as it is, other parts described in a line, an error result after `Error: `). A tool
    /// no server offers, arguments that are not an object, a server that has exited or does not
    /// answer within the limit throw.
    public func run(_ call: ToolCall) async throws -> String {
        guard let route = routes[call.name] else {
            throw SDKError(
                .invalidInput, "No MCP server offers a tool named '\(call.name)' (offered: \(tools.map(\.name).joined(separator: ", ")))")
        }
        guard case .object = call.arguments else {
            throw SDKError(.invalidInput, "The arguments of a call to '\(call.name)' must be a JSON object, not \(call.arguments.text)")
        }
        let connection = try await running(route.server)
        let result = try await connection.call(route.name, arguments: call.arguments, within: callLimit)
        return result.isError ? "Error: \(result.text)" : result.text
    }

    /// Server `index`, started again (once, however many calls wait for it) if it has exited.
    private func running(_ index: Int) async throws -> Connection {
        let connection = servers[index]
        guard !connection.process.isRunning else { return connection }
        if let restart = restarts[index] { return try await restart.value }
        let server = connection.server
        logger.warning("MCP server '\(server.name)' has exited (status \(connection.process.terminationStatus)); starting it again")
        let (logger, limit) = (logger, startLimit)
        let restart = Task {
            await connection.stop()
            let fresh = try Connection.start(server, logger: logger)
            do {
                _ = try await fresh.initialize(within: limit)
            } catch {
                await fresh.stop()
                throw error
            }
            return fresh
        }
        restarts[index] = restart
        defer { restarts[index] = nil }
        let fresh = try await restart.value
        guard servers.indices.contains(index), servers[index] === connection else {  // closed meanwhile
            await fresh.stop()
            throw SDKError(.networkError, "MCP server '\(server.name)' was closed while it was started again")
        }
        servers[index] = fresh
        return fresh
    }

    /// Stops every server (disconnected, then terminated) and offers no tools.
    public func close() async {
        for connection in servers { await connection.stop() }
        servers = []
        routes = [:]
        tools = []
    }

    /// The tools of `listed` a model can call, under the names offered.
    private func offered(_ listed: [Connection.ListedTool], by server: String) -> [(offered: Tool, name: String)] {
        var added: [(offered: Tool, name: String)] = []
        for tool in listed {
            let name = Self.callableName(tool.name)
            let schema = tool.schema
            do {
                _ = try JSONSchemaGrammar.grammar(for: schema)
            } catch {
                logger.warning("MCP server '\(server)': tool '\(tool.name)' is left out, as its parameters cannot be followed: \(error)")
                continue
            }
            let offered = Tool(name: name, description: tool.description ?? tool.title ?? tool.name, parameters: schema)
            do {
                try offered.validate()
            } catch {
                logger.warning("MCP server '\(server)': tool '\(tool.name)' is left out: \(error)")
                continue
            }
            // A name offered already (by another server, or another tool's made callable) is
            // offered with the server's name before it; failing that, the tool is left out.
            let taken = { (name: String) in self.routes[name] != nil || added.contains { $0.offered.name == name } }
            let unique = taken(name) ? Self.callableName("\(server)_\(tool.name)") : name
            guard !taken(unique) else {
                logger.warning("MCP server '\(server)': tool '\(tool.name)' is left out, as a tool named '\(name)' is offered already")
                continue
            }
            if unique != name { logger.info("MCP server '\(server)': tool '\(tool.name)' is offered as '\(unique)'") }
            added.append((Tool(name: unique, description: offered.description, parameters: offered.parameters), tool.name))
        }
        return added
    }

    /// `name` with each character a model cannot call by (beyond ASCII letters, digits, `_`, `-`)
    /// as `_`, at most 64 of them.
    private static func callableName(_ name: String) -> String {
        String(
            String(
                name.unicodeScalars.map {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-".unicodeScalars.contains($0))
                        ? Character($0) : "_"
                }
            ).prefix(64))
    }
}

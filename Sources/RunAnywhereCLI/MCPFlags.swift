import ArgumentParser
import Foundation
import Logging
import RunAnywhere
import RunAnywhereMCP

/// The Model Context Protocol servers whose tools a model may call, and how it may call them.
struct MCPFlags: ParsableArguments {
    @Option(
        name: .customLong("mcp"),
        help: ArgumentHelp(
            "An MCP server to start, as a command line (repeatable): the model may call its tools.",
            valueName: "command"))
    var commands: [String] = []
    @Option(
        name: .customLong("mcp-config"),
        help: ArgumentHelp(
            "The MCP servers of an mcp.json file: {\"mcpServers\": {\"name\": {\"command\", \"args\", \"env\"}}}.", valueName: "file"))
    var configuration: String?
    @Option(
        name: .customLong("tool-choice"),
        help: "With MCP servers: auto (the model decides), required (its first step calls a tool), none, or a tool's name.")
    var toolChoice = "auto"
    @Option(
        name: .customLong("max-tool-rounds"),
        help: "With MCP servers: rounds of tool calls before the model must answer with what it has (0 to 100).")
    var maxToolRounds = SDKConstants.Limits.toolRounds

    /// Whether any server is named.
    var isEmpty: Bool { commands.isEmpty && configuration == nil }

    func validate() throws {
        guard (0...100).contains(maxToolRounds) else { throw ValidationError("--max-tool-rounds must be 0 to 100, not \(maxToolRounds)") }
        guard !isEmpty || (toolChoice == "auto" && maxToolRounds == SDKConstants.Limits.toolRounds) else {
            throw ValidationError("--tool-choice and --max-tool-rounds need tools: name an MCP server with --mcp or --mcp-config")
        }
    }

    /// The servers named, the file's first; read before any starts, so a bad one fails first.
    func servers() throws -> [MCPServer] {
        let listed = try configuration.map {
            try MCPServer.servers(inConfiguration: fileContents(of: URL(fileURLWithPath: $0), mapped: false))
        }
        return try (listed ?? []) + commands.map(MCPServer.init(commandLine:))
    }

    /// `--tool-choice` as the SDK's, a tool's name checked against `tools`.
    func choice(among tools: [Tool]) throws -> ToolChoice {
        guard let choice = ToolChoice(naming: toolChoice, among: tools) else {
            throw SDKError(
                .invalidInput,
                "--tool-choice '\(toolChoice)' is none of auto, required, none or the tools offered (\(tools.map(\.name).joined(separator: ", ")))"
            )
        }
        return choice
    }

    /// Starts the servers named and runs `body` with their tools and the choice among them
    /// (checked against them); the servers stop when it returns or throws.
    func withTools<T: Sendable>(
        logger: Logger, _ body: (_ toolbox: MCPToolbox, _ tools: [Tool], _ choice: ToolChoice) async throws -> T
    ) async throws -> T {
        let servers = try servers()
        let toolbox = MCPToolbox(logger: logger)
        do {
            for server in servers { try await toolbox.connect(server) }
            let tools = await toolbox.tools
            guard !tools.isEmpty else { throw SDKError(.invalidInput, "The MCP servers named offer no tool a model can call") }
            let result = try await body(toolbox, tools, try choice(among: tools))
            await toolbox.close()
            return result
        } catch {
            await toolbox.close()
            throw error
        }
    }

    /// Runs calls on `toolbox`, showing each on standard error: its arguments, then its result's
    /// start in one line of at most 200 characters.
    static func showingCalls(_ toolbox: MCPToolbox) -> @Sendable (ToolCall) async throws -> String {
        { call in
            Terminal.standardError(Terminal.dim("→ \(call.name) \(call.argumentsJSON)"))
            let output = try await toolbox.run(call)
            let line = output.split(whereSeparator: \.isNewline).joined(separator: " ")
            Terminal.standardError(Terminal.dim("← " + (line.count > 200 ? line.prefix(199) + "…" : line)))
            return output
        }
    }
}

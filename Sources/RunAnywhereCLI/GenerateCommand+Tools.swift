import Foundation
import Logging
import RunAnywhere
import RunAnywhereMCP

extension GenerateCommand {
    /// Starts the MCP servers named and runs `body` with their tools and the choice among them
    /// (checked against them); the servers stop when it returns or throws.
    func withTools<T: Sendable>(
        logger: Logger, _ body: (_ toolbox: MCPToolbox, _ tools: [Tool], _ choice: ToolChoice) async throws -> T
    ) async throws -> T {
        let servers = try mcp.servers()
        let toolbox = MCPToolbox(logger: logger)
        do {
            for server in servers {
                let tools = try await toolbox.connect(server)
                logger.info("MCP server '\(server.name)': \(tools.isEmpty ? "no tools" : tools.map(\.name).joined(separator: ", "))")
            }
            let tools = await toolbox.tools
            guard !tools.isEmpty else { throw SDKError(.invalidInput, "The MCP servers named offer no tool a model can call") }
            let result = try await body(toolbox, tools, try mcp.choice(among: tools))
            await toolbox.close()
            return result
        } catch {
            await toolbox.close()
            throw error
        }
    }

    /// Answers `prompt` with `tools`: each call the model makes runs on its server and is shown on
    /// standard error (its arguments, then its result's start); Ctrl-C stops the answer.
    func answer(
        _ prompt: String, toolbox: MCPToolbox, tools: [Tool], choice: ToolChoice, options: LLMGenerationOptions
    ) async throws -> LLMGenerationResult {
        let rounds = mcp.maxToolRounds
        let task = Task {
            try await RunAnywhere.generateWithTools(prompt, tools: tools, toolChoice: choice, options: options, maxRounds: rounds) { call in
                Terminal.standardError(Terminal.dim("→ \(call.name) \(call.argumentsJSON)"))
                let output = try await toolbox.run(call)
                Terminal.standardError(Terminal.dim("← \(Self.preview(output))"))
                return output
            }
        }
        return try await Interrupts.shared.whileRunning(onInterrupt: { task.cancel() }) {
            try await withTaskCancellationHandler {
                try await task.value.result
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// A tool's result in one line of at most 200 characters.
    private static func preview(_ output: String) -> String {
        let line = output.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 200 ? line.prefix(199) + "…" : line
    }
}

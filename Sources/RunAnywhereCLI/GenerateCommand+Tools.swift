import Foundation
import Logging
import RunAnywhere
import RunAnywhereMCP

extension GenerateCommand {
    /// Answers `prompt` with `tools`: each call the model makes runs on its server and is shown on
    /// standard error (its arguments, then its result's start); Ctrl-C stops the answer.
    func answer(
        _ prompt: String, toolbox: MCPToolbox, tools: [Tool], choice: ToolChoice, options: LLMGenerationOptions
    ) async throws -> LLMGenerationResult {
        let rounds = mcp.maxToolRounds
        let execute = MCPFlags.showingCalls(toolbox)
        let task = Task {
            try await RunAnywhere.generateWithTools(
                prompt, tools: tools, toolChoice: choice, options: options, maxRounds: rounds, execute: execute)
        }
        return try await Interrupts.shared.whileRunning(onInterrupt: { task.cancel() }) {
            try await withTaskCancellationHandler {
                try await task.value.result
            } onCancel: {
                task.cancel()
            }
        }
    }
}

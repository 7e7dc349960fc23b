/// Prompt formats used when a model has no chat template of its own that the engine can apply.
package enum ChatTemplate: String, Codable, Sendable, CaseIterable {
    /// `<|im_start|>role\n…<|im_end|>` (Qwen, SmolLM, many fine-tunes).
    case chatML
    /// `<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>` (Llama 3).
    case llama3
    /// `### Instruction:` / `### Response:` plain text, for base models with no special tokens.
    case alpaca

    /// Picks the fallback whose special tokens the model's vocabulary has; Alpaca otherwise.
    package static func fallback(vocabularyContains: (String) -> Bool) -> ChatTemplate {
        if vocabularyContains("<|im_start|>") { return .chatML }
        if vocabularyContains("<|start_header_id|>") { return .llama3 }
        return .alpaca
    }

    /// Formats `messages` (system first, if any) and, when `addAssistantPrefix`, opens the
    /// assistant's turn so the model writes the answer next.
    package func format(_ messages: [Message], addAssistantPrefix: Bool = true) -> String {
        var prompt = ""
        switch self {
        case .chatML:
            for message in messages {
                prompt += "<|im_start|>\(message.role.rawValue)\n\(message.content)<|im_end|>\n"
            }
            if addAssistantPrefix { prompt += "<|im_start|>assistant\n" }
        case .llama3:
            prompt += "<|begin_of_text|>"
            for message in messages {
                prompt += "<|start_header_id|>\(message.role.rawValue)<|end_header_id|>\n\n\(message.content)<|eot_id|>"
            }
            if addAssistantPrefix { prompt += "<|start_header_id|>assistant<|end_header_id|>\n\n" }
        case .alpaca:
            for message in messages {
                switch message.role {
                case .system: prompt += "\(message.content)\n\n"
                case .user, .tool: prompt += "### Instruction:\n\(message.content)\n\n"
                case .assistant: prompt += "### Response:\n\(message.content)\n\n"
                }
            }
            if addAssistantPrefix { prompt += "### Response:\n" }
        }
        return prompt
    }

    /// Strings that end an assistant turn in this format, for use as stop sequences.
    package var turnTerminators: [String] {
        switch self {
        case .chatML: ["<|im_end|>"]
        case .llama3: ["<|eot_id|>"]
        case .alpaca: ["### Instruction:", "### Response:"]
        }
    }
}

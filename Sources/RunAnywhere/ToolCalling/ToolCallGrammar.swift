import Foundation

extension ToolCallFormat {
    /// The GBNF grammar a model with `tools` is sampled through: an optional thinking block (for a
    /// thinking model), then its calls, each `{"name": …, "arguments": …}` with arguments that match
    /// the tool's schema (one call unless `parallel`); with ``ToolChoice/auto`` an answer in text is
    /// allowed instead, as long as it does not start the way a call does, and with
    /// ``ToolChoice/none`` only that (a model that sees earlier calls in the conversation may not
    /// write one). Throws ``ErrorCode/invalidInput`` naming the tool whose schema is not supported.
    func grammar(tools: [Tool], choice: ToolChoice, parallel: Bool, thinking: ThinkingTagPattern?) throws -> String {
        var rules = SchemaRuleSet()
        let opener = GrammarRules.classCharacter(callOpener.unicodeScalars.first!.value)
        let text = rules.add("text", #"[^\#(opener) \t\r\n] [^\x00]*"#)
        func withThinking(_ body: String) -> String {
            guard let thinking else { return rules.text(root: body) }
            let think = rules.add(
                "thinking",
                "\(GrammarRules.literal(thinking.openingTag)) \(Self.textWithout(thinking.closingTag)) \(GrammarRules.literal(thinking.closingTag)) [ \\t\\r\\n]*"
            )
            return rules.text(root: "\(think)? (\(body))")
        }
        if choice == .none { return withThinking(text) }
        let offered = if case .tool(let name) = choice { tools.filter { $0.name == name } } else { tools }
        let ws = rules.primitive("ws")
        var alternatives: [String] = []
        for tool in offered {
            let arguments: String
            do {
                arguments = try rules.expression(for: tool.parameters, hint: "\(tool.name)-arguments")
            } catch let error as SDKError {
                throw SDKError.llm(.invalidInput, "Tool '\(tool.name)': \(error.message)")
            }
            let name = GrammarRules.literal(JSONValue.string(tool.name).text)
            alternatives.append(
                rules.add(
                    "\(tool.name)-call",
                    #""{" \#(ws) "\"name\"" \#(ws) ":" \#(ws) \#(name) \#(ws) "," \#(ws) "\"arguments\"" \#(ws) ":" \#(ws) \#(arguments) \#(ws) "}""#
                ))
        }
        let call = rules.add("call", alternatives.joined(separator: " | "))
        let calls: String
        switch self {
        case .hermes:
            let block = rules.add("call-block", #""<tool_call>\n" \#(call) "\n</tool_call>""#)
            calls = rules.add("calls", parallel ? #"\#(block) ("\n" \#(block))*"# : block)
        case .json:
            let list = parallel ? #"\#(call) (\#(ws) "," \#(ws) \#(call))*"# : call
            calls = rules.add("calls", #""{" \#(ws) "\"tool_calls\"" \#(ws) ":" \#(ws) "[" \#(ws) \#(list) \#(ws) "]" \#(ws) "}""#)
        }
        return withThinking(choice == .auto ? "\(calls) | \(text)" : calls)
    }

    /// A GBNF expression for text in which `tag` does not occur: any characters, where each
    /// prefix of the tag is followed by something other than its next character. (It also
    /// refuses a few strings that only look like the tag's start, such as `<` right before it.)
    static func textWithout(_ tag: String) -> String {
        let scalars = Array(tag.unicodeScalars)
        let alternatives = scalars.indices.map { index -> String in
            let prefix = index == 0 ? "" : GrammarRules.literal(String(String.UnicodeScalarView(scalars[..<index]))) + " "
            return prefix + "[^" + GrammarRules.classCharacter(scalars[index].value) + "]"
        }
        return "(" + alternatives.joined(separator: " | ") + ")*"
    }
}

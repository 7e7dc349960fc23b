import Foundation
import RunAnywhere

/// An ollama Modelfile, read as `ollama create -f` reads it: instructions one a line (any case),
/// `#` comment lines, values to the end of the line or quoted, `"…"` or `"""…"""` across lines.
/// `FROM` (a model's name, or a GGUF file's path) once; `SYSTEM`, `PARAMETER name value` (`stop`
/// as often as wanted), `MESSAGE role text`, `LICENSE` (as often as wanted), `TEMPLATE` (taken
/// only as the model file's own), `ADAPTER` (a LoRA adapter GGUF's path, as often as wanted) and
/// `REQUIRES` (read past). They become the fields ollama's client sends to `/api/create` and are
/// checked by that route's rules (``OllamaCreateRequest``): one set of rules for a Modelfile sent
/// by a client and one read by `runanywhere models create`.
package struct Modelfile: Sendable {
    /// `FROM`: a model's name, or a GGUF file's path (relative to the Modelfile's folder).
    package let from: String
    /// What the model adds to its base: the system prompt, messages and parameters.
    package let defaults: ModelDefaults
    /// `LICENSE`, the texts joined by a blank line.
    package let license: String?
    /// `TEMPLATE`: taken only as the base model file's own chat template (``check(base:)``).
    package let template: String?
    /// `ADAPTER`: the paths of LoRA adapter GGUF files (relative to the Modelfile's folder).
    package let adapters: [String]

    /// Reads `text`; a line that is not an instruction, a value left open, a parameter or message
    /// that cannot be kept, or no `FROM` is ``RunAnywhere/ErrorCode/invalidInput`` naming it.
    package init(parsing text: String) throws {
        func bad(_ why: String, line: Int? = nil) -> SDKError {
            SDKError(.invalidInput, "Modelfile\(line.map { " line \($0)" } ?? ""): \(why)")
        }
        var from: String?
        var fields: [String: JSONValue] = [:]
        var parameters: [String: JSONValue] = [:]
        var messages: [JSONValue] = []
        var licenses: [JSONValue] = []
        var adapters: [String] = []
        for (line, instruction, argument) in try Self.instructions(in: text) {
            switch instruction {
            case "FROM":
                guard from == nil else { throw bad("FROM is given twice", line: line) }
                from = try Self.value(argument, line: line)
            case "SYSTEM": fields["system"] = .string(try Self.value(argument, line: line))
            case "TEMPLATE": fields["template"] = .string(try Self.value(argument, line: line))
            case "ADAPTER": adapters.append(try Self.value(argument, line: line))
            case "LICENSE": licenses.append(.string(try Self.value(argument, line: line)))
            case "REQUIRES": continue  // the ollama version it was written for
            case "PARAMETER", "MESSAGE":
                let parts = argument.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
                guard parts.count == 2 else { throw bad("\(instruction) takes a name and a value", line: line) }
                let value = try Self.value(parts[1], line: line)
                if instruction == "MESSAGE" {
                    messages.append(.object(JSONObject([("role", .string(parts[0].lowercased())), ("content", .string(value))])))
                } else if parts[0].lowercased() == "stop" {
                    parameters["stop"] = .array((parameters["stop"]?.arrayValue ?? []) + [.string(value)])
                } else {
                    parameters[parts[0].lowercased()] = Self.typed(value)
                }
            default:
                throw bad(
                    "\(instruction) is not an instruction (FROM, PARAMETER, SYSTEM, MESSAGE, LICENSE, TEMPLATE, ADAPTER, REQUIRES)",
                    line: line)
            }
        }
        guard let from, !from.isEmpty else { throw bad("FROM is required: a model's name or a GGUF file's path") }
        fields["model"] = "modelfile"
        fields["from"] = .string(from)
        if !parameters.isEmpty { fields["parameters"] = .object(JSONObject(parameters.map { ($0.key, $0.value) })) }
        if !messages.isEmpty { fields["messages"] = .array(messages) }
        if !licenses.isEmpty { fields["license"] = .array(licenses) }
        // The route's rules for the adapters' names and number; the files are read by `models create`.
        let names = adapters.enumerated().map { ("\($0.offset)-" + ($0.element as NSString).lastPathComponent, JSONValue.string("")) }
        if !names.isEmpty { fields["adapters"] = .object(JSONObject(names)) }
        let request: OllamaCreateRequest
        do {
            request = try JSONDecoder().decode(
                OllamaCreateRequest.self, from: Data(JSONValue.object(JSONObject(fields.map { ($0.key, $0.value) })).text.utf8))
        } catch let error as APIError {
            throw bad(error.message)
        }
        self.from = from
        defaults = request.defaults
        license = request.license
        template = request.template
        self.adapters = adapters
    }

    /// Throws unless ``template`` is none or the chat template of `file` (the base model's file):
    /// a model here uses its GGUF's own, so a Modelfile `/api/show` wrote makes a model again.
    package func check(base file: URL?) throws {
        guard OllamaCreateRequest.keeps(template, of: file) else {
            throw SDKError(.invalidInput, "Modelfile: \(OllamaCreateRequest.otherTemplate)")
        }
    }

    /// What `FROM` names.
    package enum Base: Equatable, Sendable {
        /// A model file (a path that names a file, or one ending in `.gguf`).
        case file(URL)
        /// An installed model, by id (ollama's `:latest` taken off).
        case model(String)
    }

    /// What `FROM` names, a relative path read from `folder` (the Modelfile's, as ollama reads it).
    package func base(relativeTo folder: URL) -> Base {
        let url = Self.file(from, relativeTo: folder)
        if FileManager.default.fileExists(atPath: url.path) || from.lowercased().hasSuffix(".gguf") {
            return .file(url)
        }
        return .model(OllamaName.modelID(from))
    }

    /// The files `ADAPTER` names, relative paths read from `folder` (the Modelfile's).
    package func adapterFiles(relativeTo folder: URL) -> [URL] {
        adapters.map { Self.file($0, relativeTo: folder) }
    }

    /// The file `path` names: `~` expanded, a relative path read from `folder`.
    private static func file(_ path: String, relativeTo folder: URL) -> URL {
        let path = (path as NSString).expandingTildeInPath
        return (path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)).standardizedFileURL
    }

    /// Each instruction with its line number and the rest of its text (up to the end of its
    /// value, which a quote may carry across lines).
    private static func instructions(in text: String) throws -> [(Int, String, String)] {
        var found: [(Int, String, String)] = []
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n").enumerated().makeIterator()
        while let (index, raw) = lines.next() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let parts = line.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
            var argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            // A value opened with `"""` (or `"`) and not closed on its line goes on to the line that closes it.
            while let quote = openQuote(argument) {
                guard let (_, next) = lines.next() else {
                    throw SDKError(.invalidInput, "Modelfile line \(index + 1): the \(quote) opened here is never closed")
                }
                argument += "\n" + next
            }
            found.append((index + 1, parts[0].uppercased(), argument))
        }
        return found
    }

    /// The quote `argument`'s value opens and does not close, if any (a `PARAMETER` or `MESSAGE`
    /// value comes after a name).
    private static func openQuote(_ argument: String) -> String? {
        let value = argument.hasPrefix("\"") ? argument : String(argument.drop { !$0.isWhitespace }.drop { $0.isWhitespace })
        if value.hasPrefix("\"\"\"") { return value.dropFirst(3).contains("\"\"\"") ? nil : "\"\"\"" }
        guard value.hasPrefix("\"") else { return nil }
        return closingQuote(in: value.dropFirst()) == nil ? "\"" : nil
    }

    /// Where the unescaped `"` that closes a quoted value is in `text`.
    private static func closingQuote(in text: Substring) -> Substring.Index? {
        var escaped = false
        for index in text.indices {
            if escaped {
                escaped = false
            } else if text[index] == "\\" {
                escaped = true
            } else if text[index] == "\"" {
                return index
            }
        }
        return nil
    }

    /// A value: the text between `"""` and `"""`, or `"` and `"` (with `\"` and `\\` read as the
    /// character), or the text as it stands; nothing may follow a closing quote.
    private static func value(_ argument: String, line: Int) throws -> String {
        let text = argument.trimmingCharacters(in: .whitespacesAndNewlines)
        let trailing = SDKError(.invalidInput, "Modelfile line \(line): nothing may follow a value's closing quote")
        if text.hasPrefix("\"\"\"") {
            let rest = text.dropFirst(3)
            guard let end = rest.range(of: "\"\"\"") else { return String(rest) }
            guard rest[end.upperBound...].allSatisfy(\.isWhitespace) else { throw trailing }
            return String(rest[..<end.lowerBound])
        }
        guard text.hasPrefix("\"") else { return text }
        let rest = text.dropFirst()
        guard let end = closingQuote(in: rest) else { return String(rest) }
        guard rest[rest.index(after: end)...].allSatisfy(\.isWhitespace) else { throw trailing }
        var unescaped = ""
        var escaped = false
        for character in rest[..<end] {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            // Only `\"` and `\\` are escapes; any other backslash stands for itself.
            if escaped, character != "\"", character != "\\" { unescaped.append("\\") }
            unescaped.append(character)
            escaped = false
        }
        return unescaped
    }

    /// A parameter's text as the JSON ollama's client sends: a number, true or false, else text.
    private static func typed(_ value: String) -> JSONValue {
        if let number = Double(value), number.isFinite { return .number(number) }
        switch value.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: return .string(value)
        }
    }
}

import Foundation
import RunAnywhere

/// A Model Context Protocol server that runs as a command on this machine and speaks MCP over its
/// standard input and output, as `mcp.json` files describe them (`command`, `args`, `env`).
public struct MCPServer: Sendable, Equatable {
    /// The name messages give it: the `mcp.json` key, else its command line with each path's last
    /// part alone (`python server.py`).
    public var name: String
    /// The program: a path, or a name looked up on `PATH`.
    public var command: String
    /// Its arguments.
    public var args: [String]
    /// Variables added to its environment (it inherits this process's).
    public var env: [String: String]

    /// Creates a server description.
    public init(name: String? = nil, command: String, args: [String] = [], env: [String: String] = [:]) {
        self.name = name ?? URL(fileURLWithPath: command).lastPathComponent
        self.command = command
        self.args = args
        self.env = env
    }

    /// A server from one command line, split into words as a shell splits them: spaces separate,
    /// single quotes keep everything, double quotes keep all but a backslash before a dollar sign,
    /// a backquote, a double quote, a backslash or a line break, and a backslash outside quotes
    /// keeps the next character. An
    /// empty line or an unclosed quote throws ``RunAnywhere/ErrorCode/invalidInput``.
    public init(commandLine: String) throws {
        let words = try Self.words(of: commandLine)
        guard let command = words.first else {
            throw SDKError(.invalidInput, "An MCP server's command line is empty")
        }
        let name = words.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " ")
        self.init(name: name.count > 60 ? name.prefix(59) + "…" : name, command: command, args: Array(words.dropFirst()))
    }

    /// The servers of an `mcp.json` file's `mcpServers` object (Claude Desktop's and LM Studio's
    /// format); entries with a `url` instead of a `command` are refused, as only servers this
    /// machine starts are spoken to.
    public static func servers(inConfiguration data: Data) throws -> [MCPServer] {
        struct File: Decodable { let mcpServers: [String: Entry] }
        struct Entry: Decodable {
            let command: String?
            let args: [String]?
            let env: [String: String]?
            let url: String?
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            let why = (error as? DecodingError)?.summary ?? "\(error)"
            throw SDKError(.invalidInput, "Not an mcp.json file ({\"mcpServers\": {\"name\": {\"command\", \"args\", \"env\"}}}): \(why)")
        }
        return try file.mcpServers.sorted { $0.key < $1.key }.map { name, entry in
            guard let command = entry.command, !command.isEmpty else {
                throw SDKError(
                    .invalidInput,
                    entry.url == nil
                        ? "MCP server '\(name)' has no command"
                        : "MCP server '\(name)' is reached by URL; only servers started as a command are supported")
            }
            return MCPServer(name: name, command: command, args: entry.args ?? [], env: entry.env ?? [:])
        }
    }

    private static func words(of line: String) throws -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                if quote != nil, "$`\"\\\n".contains(character) { word?.removeLast() }
                word = (word ?? "") + String(character)
                escaped = false
            } else if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\", open == "\"" {
                    escaped = true
                    // Inside double quotes a backslash escapes only what a shell lets it escape.
                    word = (word ?? "") + "\\"
                } else {
                    word = (word ?? "") + String(character)
                }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == "\\" {
                escaped = true
            } else if character.isWhitespace {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        guard quote == nil, !escaped else {
            throw SDKError(.invalidInput, "The MCP server's command line '\(line)' ends inside a quote or after a backslash")
        }
        if let finished = word { words.append(finished) }
        return words
    }
}

import Foundation
import RunAnywhere
import RunAnywhereMCP
import RunAnywhereTestSupport
import Testing

/// The venv's Python, when it has the mcp package.
private let mcpPython = TestEnvironment.venvPython.flatMap { TestEnvironment.pythonHas("mcp", python: $0) ? $0 : nil }

/// ``MCPToolbox`` against a real MCP server, made with the official Python SDK
/// (Tests/clients/mcp_tool_server.py): its tools listed and run, its failures named; and how
/// servers are described.
@Suite(.enabled(if: mcpPython != nil, "needs the mcp package in the venv: run scripts/setup --tests"))
struct MCPToolboxTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/mcp_tool_server.py")

    static func server(_ mode: String? = nil, name: String = "fixture") throws -> MCPServer {
        MCPServer(name: name, command: try #require(mcpPython).path, args: [script.path] + (mode.map { [$0] } ?? []))
    }

    @Test func theServersToolsAreListedAndRun() async throws {
        let toolbox = MCPToolbox()
        let tools = try await toolbox.connect(try Self.server())
        // `math.add` cannot be called by its name: it is offered as math_add.
        #expect(tools.map(\.name) == ["capital", "math_add", "crash", "wait"])
        #expect(tools.first?.description == "The capital city of a country." && tools.first?.parameters["required"] == ["country"])
        #expect(try await toolbox.run(ToolCall(name: "capital", arguments: ["country": "Japan"])) == "The capital of Japan is Tokyo.")
        #expect(try await toolbox.run(ToolCall(name: "math_add", arguments: ["a": 2, "b": 3])) == "5")
        // The tool's own failure is its result, for the model to read.
        let unknown = try await toolbox.run(ToolCall(name: "capital", arguments: ["country": "Atlantis"]))
        #expect(unknown.hasPrefix("Error: "), "\(unknown)")
        // A call that outlasts its limit is an error naming it.
        let slow = MCPToolbox(callLimit: .seconds(1))
        try await slow.connect(try Self.server())
        await expectSDKError(.networkError, ["MCP server 'fixture' did not run wait within"]) {
            _ = try await slow.run(ToolCall(name: "wait", arguments: ["seconds": 60]))
        }
        await slow.close()
        #expect(try await toolbox.run(ToolCall(name: "capital", arguments: ["country": "Peru"])) == "The capital of Peru is Lima.")
        await expectSDKError(.invalidInput, ["No MCP server offers a tool named 'nope'", "capital, math_add, crash, wait"]) {
            _ = try await toolbox.run(ToolCall(name: "nope", arguments: [:]))
        }
        await expectSDKError(.invalidInput, ["must be a JSON object"]) {
            _ = try await toolbox.run(ToolCall(name: "capital", arguments: ["France"]))
        }
        // A second server offering tools of the same names: each offered with the server's name before it.
        let again = try await toolbox.connect(try Self.server(name: "again"))
        #expect(again.map(\.name) == ["again_capital", "again_math_add", "again_crash", "again_wait"])
        #expect(
            try await toolbox.run(ToolCall(name: "again_capital", arguments: ["country": "Kenya"])) == "The capital of Kenya is Nairobi.")
        #expect(await toolbox.tools.count == 8)
        await toolbox.close()
        #expect(await toolbox.tools.isEmpty)
        await expectSDKError(.invalidInput, ["No MCP server offers a tool named 'capital'"]) {
            _ = try await toolbox.run(ToolCall(name: "capital", arguments: ["country": "Japan"]))
        }
    }

    @Test func serversThatFailAreNamedWithWhatTheySaid() async throws {
        let toolbox = MCPToolbox()
        await expectSDKError(.networkError, ["MCP server 'fixture' exited (status 3) when asked to start", "no configuration given"]) {
            try await toolbox.connect(try Self.server("exit-at-start"))
        }
        await expectSDKError(.networkError, ["MCP server 'fixture' did not start within"]) {
            try await MCPToolbox(startLimit: .seconds(2)).connect(try Self.server("silent"))
        }
        await expectSDKError(.invalidInput, ["no program 'no-such-mcp-server' on PATH"]) {
            try await toolbox.connect(MCPServer(command: "no-such-mcp-server"))
        }
        let notAProgram = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-program-\(UUID())")
        try Data("text".utf8).write(to: notAProgram)
        defer { try? FileManager.default.removeItem(at: notAProgram) }
        await expectSDKError(.invalidInput, ["cannot be started"]) { try await toolbox.connect(MCPServer(command: notAProgram.path)) }
        #expect(await toolbox.tools.isEmpty)
        // A server that ends in the middle of a call, and is started again for the next.
        try await toolbox.connect(try Self.server())
        await expectSDKError(.networkError, ["MCP server 'fixture' exited (status 5) when asked to run crash", "crashing as asked"]) {
            _ = try await toolbox.run(ToolCall(name: "crash", arguments: [:]))
        }
        #expect(try await toolbox.run(ToolCall(name: "capital", arguments: ["country": "Japan"])) == "The capital of Japan is Tokyo.")
        await toolbox.close()
    }

    @Test func serversAreDescribedByCommandLinesAndMCPJSONFiles() throws {
        let server = try MCPServer(commandLine: #"  npx -y "@scope/server files" 'it''s' a\ b "x\"y"  "#)
        #expect(server.command == "npx" && server.args == ["-y", "@scope/server files", "its", "a b", #"x"y"#], "\(server.args)")
        #expect(server.name == #"npx -y server files its a b x"y"#)
        #expect(try MCPServer(commandLine: "/usr/local/bin/weather --units metric").name == "weather --units metric")
        #expect(
            try MCPServer(commandLine: #"grep "\d+\$" x"#).args == [#"\d+$"#, "x"],
            "a backslash in double quotes escapes what a shell's does")
        for line in ["", "   ", "'open", #"ends\"#] {
            #expect(throws: SDKError.self, "\(line)") { try MCPServer(commandLine: line) }
        }
        let file = Data(
            #"{"mcpServers": {"web": {"command": "uvx", "args": ["mcp-server-fetch"]}, "files": {"command": "npx", "env": {"A": "1"}}}}"#
                .utf8)
        #expect(
            try MCPServer.servers(inConfiguration: file) == [
                MCPServer(name: "files", command: "npx", env: ["A": "1"]),
                MCPServer(name: "web", command: "uvx", args: ["mcp-server-fetch"]),
            ])
        for (text, fragment) in [
            (#"{"mcpServers": {"remote": {"url": "https://example.com/mcp"}}}"#, "MCP server 'remote' is reached by URL"),
            (#"{"mcpServers": {"empty": {"command": ""}}}"#, "MCP server 'empty' has no command"),
            (#"{"servers": {}}"#, "mcpServers is missing"), ("not json", "Not an mcp.json file"),
            (#"{"mcpServers": {"a": {"command": 5}}}"#, "at mcpServers.a.command:"),
        ] {
            #expect(throws: SDKError.self, "\(text)") { try MCPServer.servers(inConfiguration: Data(text.utf8)) }
            #expect((try? MCPServer.servers(inConfiguration: Data(text.utf8))) == nil)
            do { _ = try MCPServer.servers(inConfiguration: Data(text.utf8)) } catch let error as SDKError {
                #expect(error.message.contains(fragment) && !error.message.contains("DecodingError"), "\(error)")
            }
        }
    }
}

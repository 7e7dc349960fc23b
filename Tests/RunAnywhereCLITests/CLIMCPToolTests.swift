import Foundation
import NIOHTTP1
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The fixture server's command line, when the venv's Python has the mcp package.
private let mcpFixtureServer: String? = TestEnvironment.venvPython.flatMap { python in
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/mcp_tool_server.py")
    return TestEnvironment.pythonHas("mcp", python: python) ? "\(python.path) \(script.path)" : nil
}

/// `runanywhere generate --mcp`: the default model calls the tools of a real MCP server (made
/// with the official Python SDK, Tests/clients/mcp_tool_server.py), which runs them; and the
/// flags' bad input, refused before a model loads.
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && mcpFixtureServer != nil,
        "needs llama.cpp, the default model and the mcp package in the venv: run scripts/setup --tests --build tests"))
struct CLIMCPToolTests {
    static let server = mcpFixtureServer

    @Test func theModelCallsTheServersToolsAndTheServerRunsThem() throws {
        let server = try #require(Self.server)
        try CLIRunner.withData { cli, folder in
            let log = folder.appendingPathComponent("calls.jsonl")
            var runner = cli
            runner.environment["MCP_CALL_LOG"] = log.path
            let base = ["generate", "--threads", "1", "--temperature", "0", "--max-tokens", "60", "--mcp", server]
            let answer = try runner.run(base + ["--tool-choice", "capital", "--max-tool-rounds", "1", "What is the capital of France?"])
            #expect(answer.status == 0, "\(answer.stderr)")
            #expect(answer.stderr.contains("→ capital {\"country\":"), "each call is shown: \(answer.stderr)")
            let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Data($0.utf8)) }
            #expect(calls.count == 1 && calls.first?["tool"] == "capital", "the server ran one call: \(calls)")
            // A dotted name is offered as one a model can call; the call reaches the server by its own.
            let sum = try runner.run(base + ["--tool-choice", "math_add", "--max-tool-rounds", "1", "--json", "Add 2 and 3."])
            #expect(sum.status == 0 && (try? sum.json()["text"]) is String, "\(sum.stderr)")
            #expect(try String(contentsOf: log, encoding: .utf8).contains(#""tool": "math.add""#))
            // A server that ends in the middle of a call is an error that says so and what it wrote.
            let crash = try runner.run(base + ["--tool-choice", "crash", "Crash."])
            #expect(
                crash.status == 1 && crash.stderr.contains("exited (status 5) when asked to run crash")
                    && crash.stderr.contains("crashing as asked"), "\(crash.stderr)")
        }
    }

    /// `serve --mcp`: the conversations' answers may call the server's tools (listed at
    /// /api/tools), as `toolChoice` or the server's `--tool-choice` says; each call streams as a
    /// `tool_call` event and the saved answer keeps it with its output. A call whose MCP server
    /// dies is logged with why, and the model reads only that it failed.
    @Test func serveRunsTheToolsConversationsCall() async throws {
        let server = try #require(Self.server)
        try await CLIRunner.withData { cli, folder in
            let log = folder.appendingPathComponent("calls.jsonl")
            var runner = cli
            runner.environment["MCP_CALL_LOG"] = log.path
            let serve = try ServeProcess(
                runner, arguments: ["--threads", "1", "--mcp", server, "--tool-choice", "none", "--max-tool-rounds", "1"])
            defer { _ = serve.stop() }
            let root = "http://127.0.0.1:\(serve.port)"
            let tools = try await ServeProcess.send(.GET, "\(root)/api/tools")
            let names = (tools.json?["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            #expect(Set(names).isSuperset(of: ["capital", "math_add"]) && tools.json?["toolChoice"] as? String == "none", "\(tools)")

            let made = try await ServeProcess.send(.POST, "\(root)/api/conversations", body: [:])
            let id = try #require(made.json?["id"] as? String, "\(made)")
            let question: [String: Any] = [
                "content": "What is the capital of France?", "model": RunAnywhere.defaultModelID, "maxTokens": 40, "temperature": 0,
            ]
            let answer = try await ServeProcess.send(
                .POST, "\(root)/api/conversations/\(id)/messages", body: question.merging(["toolChoice": "capital"]) { $1 })
            #expect(answer.status == 200 && answer.text.contains("event: tool_call\ndata: {"), "\(answer.text)")
            let saved = try await ServeProcess.send(.GET, "\(root)/api/conversations/\(id)")
            let message = try #require((saved.json?["messages"] as? [[String: Any]])?.last, "\(saved)")
            let steps = message["toolSteps"] as? [[String: Any]] ?? []
            #expect(steps.count == 1 && (steps.first?["call"] as? [String: Any])?["name"] as? String == "capital", "\(message)")
            #expect(steps.first?["round"] as? Int == 0 && (steps.first?["output"] as? String)?.isEmpty == false, "\(message)")
            let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            #expect(calls.count == 1 && serve.standardError.contains("Tool call"), "the server ran and logged the call: \(calls)")
            // The server's choice (none) offers no tool; a tool the server does not have is refused.
            let plain = try await ServeProcess.send(.POST, "\(root)/api/conversations/\(id)/messages", body: question)
            #expect(plain.status == 200 && !plain.text.contains("event: tool_call"), "\(plain.text)")
            let unknown = try await ServeProcess.send(
                .POST, "\(root)/api/conversations/\(id)/messages", body: question.merging(["toolChoice": "nope"]) { $1 })
            #expect(unknown.status == 400 && unknown.text.contains("toolChoice 'nope' is none of"), "\(unknown.text)")
            let crash = try await ServeProcess.send(
                .POST, "\(root)/api/conversations/\(id)/messages", body: question.merging(["toolChoice": "crash"]) { $1 })
            #expect(crash.status == 200 && crash.text.contains("event: message") && !crash.text.contains("event: error"), "\(crash.text)")
            let crashed = try await ServeProcess.send(.GET, "\(root)/api/conversations/\(id)")
            let failed = ((crashed.json?["messages"] as? [[String: Any]])?.last?["toolSteps"] as? [[String: Any]])?.first
            #expect(failed?["output"] as? String == "Error: the tool crash could not run.", "\(failed ?? [:])")
            #expect(
                serve.standardError.contains("Tool call failed") && serve.standardError.contains("crashing as asked"),
                "the log says why: \(serve.standardError.suffix(2000))")
            // The server that crashed is started again for the next call.
            let again = try await ServeProcess.send(
                .POST, "\(root)/api/conversations/\(id)/messages", body: question.merging(["toolChoice": "capital"]) { $1 })
            #expect(again.status == 200 && again.text.contains("event: tool_call"), "\(again.text)")
            let redone = try await ServeProcess.send(.GET, "\(root)/api/conversations/\(id)")
            let output = ((redone.json?["messages"] as? [[String: Any]])?.last?["toolSteps"] as? [[String: Any]])?.first?["output"]
            #expect((output as? String)?.contains("could not run") == false, "\(output ?? "")")
            #expect(serve.standardError.contains("has exited (status 5); starting it again"), "\(serve.standardError.suffix(2000))")
        }
    }

    /// With keys, only a key with the `tools` scope may call the server's tools or list them: a
    /// key without it is offered none (the server's own choice, a tool, is not made for it), and
    /// asking for them is a 403.
    @Test func onlyKeysWithTheToolsScopeCallTheServersTools() async throws {
        let server = try #require(Self.server)
        try await CLIRunner.withData { cli, _ in
            let admin = "ra-test-admin-key-0123456789"
            let serve = try ServeProcess(
                cli,
                arguments: ["--threads", "1", "--api-key-stdin", "--mcp", server, "--tool-choice", "capital", "--max-tool-rounds", "1"],
                input: admin)
            defer { _ = serve.stop() }
            let root = "http://127.0.0.1:\(serve.port)"
            var keys: [String: String] = [:]
            for (name, scopes) in [("plain", ["inference"]), ("agent", ["inference", "tools"])] {
                let made = try await ServeProcess.send(.POST, "\(root)/api/keys", key: admin, body: ["name": name, "scopes": scopes])
                keys[name] = try #require(made.json?["key"] as? String, "\(made.text)")
            }
            let (plain, agent) = (try #require(keys["plain"]), try #require(keys["agent"]))
            #expect(try await ServeProcess.send(.GET, "\(root)/api/tools", key: plain).status == 403)
            #expect(try await ServeProcess.send(.GET, "\(root)/api/tools", key: agent).status == 200)
            let question: [String: Any] = [
                "content": "What is the capital of Peru?", "model": RunAnywhere.defaultModelID, "maxTokens": 60, "temperature": 0,
            ]
            for (key, calls) in [(plain, false), (agent, true)] {
                let id = try #require(
                    try await ServeProcess.send(.POST, "\(root)/api/conversations", key: key, body: [:]).json?["id"] as? String)
                let answer = try await ServeProcess.send(.POST, "\(root)/api/conversations/\(id)/messages", key: key, body: question)
                #expect(answer.status == 200 && answer.text.contains("event: tool_call") == calls, "\(answer.text)")
                let asked = try await ServeProcess.send(
                    .POST, "\(root)/api/conversations/\(id)/messages", key: key, body: question.merging(["toolChoice": "capital"]) { $1 })
                #expect(calls ? asked.status == 200 : asked.status == 403 && asked.text.contains("needs the scope tools"), "\(asked.text)")
            }
        }
    }

    @Test func badServersAndFlagsAreClearErrors() throws {
        let server = try #require(Self.server)
        try CLIRunner.withData { cli, folder in
            let config = folder.appendingPathComponent("mcp.json")
            try Data(#"{"mcpServers": {"remote": {"url": "https://example.com/mcp"}}}"#.utf8).write(to: config)
            let broken = folder.appendingPathComponent("broken.json")
            try Data(#"{"servers": []}"#.utf8).write(to: broken)
            for (arguments, status, fragment) in [
                (["--mcp", "no-such-program-here"], Int32(1), "no program 'no-such-program-here' on PATH"),
                (["--mcp", "'unclosed"], 1, "ends inside a quote"),
                (["--mcp", "\(server) exit-at-start"], 1, "exited (status 3) when asked to start; it said: no configuration given"),
                (["--mcp-config", config.path], 1, "MCP server 'remote' is reached by URL"),
                (["--mcp-config", broken.path], 1, "Not an mcp.json file"),
                (["--mcp", server, "--tool-choice", "nope"], 1, "--tool-choice 'nope' is none of auto, required, none or the tools"),
                (["--tool-choice", "required"], 64, "need tools"),
                (["--mcp", server, "--max-tool-rounds", "101"], 64, "--max-tool-rounds must be 0 to 100"),
                (["--mcp", server, "--json-object"], 64, "--json-object cannot be used with MCP tools"),
            ] {
                let output = try cli.run(["generate", "--threads", "1", "--max-tokens", "8"] + arguments + ["Hi"])
                #expect(output.status == status && output.stderr.contains(fragment), "\(arguments): \(output.stderr)")
            }
        }
    }
}

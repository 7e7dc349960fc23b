import Foundation
import RunAnywhereTestSupport
import Testing

/// Conversations, settings and environments through the CLI, each test with its own app-data folder.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIConversationTests {
    @Test func chatThenListShowContinueExportAndDelete() throws {
        try CLIRunner.withData { cli, data in
            let chat = try cli.run(
                ["chat", "--temperature", "0", "--max-tokens", "8", "--threads", "1"],
                input: "The secret word is pineapple.\n/analytics\n/exit\n")
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stdout.contains("time to first token") && chat.stdout.contains("speed history"))
            let listed = try cli.run(["conversations", "list", "--json"])
            let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            let id = try #require(conversations.first?["id"] as? String)
            #expect(conversations.first?["title"] as? String == "The secret word is pineapple.")

            let again = try cli.run(
                ["chat", "--conversation", String(id.prefix(8)), "--temperature", "0", "--max-tokens", "12", "--threads", "1"],
                input: "What is the secret word?\n/stats\n/exit\n")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("Continuing"))
            #expect(again.stdout.contains("messages               4 (2 answers)"))
            let shown = try cli.run(["conversations", "show", id, "--json"]).json()
            let messages = try #require(shown["messages"] as? [[String: Any]])
            #expect(messages.count == 4)
            let analytics = try #require(messages[3]["analytics"] as? [String: Any])
            #expect(analytics["completionStatus"] as? String == "complete")
            #expect((shown["performanceSummary"] as? [String: Any])?["messageCount"] as? Int == 2)
            #expect(try cli.run(["conversations", "show", id]).stdout.contains("average first token"))

            let markdown = try cli.run(["conversations", "export", id, "--format", "md"])
            #expect(markdown.stdout.hasPrefix("# The secret word is pineapple."))
            #expect(markdown.stdout.contains("## Assistant") && markdown.stdout.contains("tok/s"))
            let file = data.appendingPathComponent("export.json")
            #expect(try cli.run(["conversations", "export", id, "--format", "json", "--output", file.path]).status == 0)
            #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) is [String: Any])
            // Through a symbolic link into the file it names, and into a named pipe, replacing neither.
            let target = data.appendingPathComponent("target.md")
            let link = data.appendingPathComponent("link.md")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            #expect(try cli.run(["conversations", "export", id, "--output", link.path]).status == 0)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path, "the link stays a link")
            #expect(try String(contentsOf: target, encoding: .utf8).hasPrefix("# The secret word is pineapple."))
            let pipe = data.appendingPathComponent("pipe.md")
            let piped = data.appendingPathComponent("piped.md")
            #expect(mkfifo(pipe.path, 0o600) == 0)
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/sh")
            reader.arguments = ["-c", "cat \"$0\" > \"$1\"", pipe.path, piped.path]
            try reader.run()
            #expect(try cli.run(["conversations", "export", id, "--output", pipe.path]).status == 0)
            reader.waitUntilExit()
            #expect(try String(contentsOf: piped, encoding: .utf8).hasPrefix("# The secret word is pineapple."), "the reader got it")
            var status = stat()
            #expect(lstat(pipe.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe is still a pipe")
            // Standard output by its name: a link to the pipe the test reads.
            let standardOutput = try cli.run(["conversations", "export", id, "--output", "/dev/stdout"])
            #expect(
                standardOutput.status == 0 && standardOutput.stdout.hasPrefix("# The secret word is pineapple."), "\(standardOutput.stderr)"
            )
            // A mistyped folder is refused, not made.
            let astray = data.appendingPathComponent("no-such-folder/export.md")
            let refused = try cli.run(["conversations", "export", id, "--output", astray.path])
            #expect(refused.status == 1 && refused.stderr.contains("does not exist"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: astray.deletingLastPathComponent().path))

            #expect(try cli.run(["conversations", "rename", id, "Fruit"]).status == 0)
            #expect(try cli.run(["conversations", "list", "--search", "pineapple"]).stdout.contains("Fruit"))
            #expect(try cli.run(["conversations", "rm", id]).status == 0)
            #expect(try cli.run(["conversations", "list"]).stdout == "No conversations.\n")
            let missing = try cli.run(["conversations", "show", id])
            #expect(missing.status == 1 && missing.stderr.hasPrefix("error: No conversation"))
            #expect(try cli.run(["conversations", "show", "../../etc"]).stderr.contains("Invalid conversation id"))
        }
    }

    @Test func settingsPersistApplyAndRefuseBadValues() throws {
        try CLIRunner.withData { cli, _ in
            #expect(try cli.run(["settings", "show", "--json"]).json()["maxTokens"] as? Int == 1000)
            #expect(try cli.run(["settings", "set", "maxTokens", "3"]).status == 0)
            #expect(try cli.run(["settings", "set", "temperature", "0"]).status == 0)
            let generated = try cli.run(["generate", "--json", "--threads", "1", "Tell me a story."]).json()
            #expect(generated["tokensUsed"] as? Int == 3, "the saved maxTokens applies")
            let overridden = try cli.run(["generate", "--json", "--threads", "1", "--max-tokens", "5", "Tell me a story."]).json()
            #expect(overridden["tokensUsed"] as? Int == 5, "a flag overrides the setting")
            for (key, value) in [
                ("temperature", "3"), ("maxTokens", "0"), ("nonsense", "1"), ("streaming", "perhaps"), ("draftModel", "no-such-model"),
            ] {
                let refused = try cli.run(["settings", "set", key, value])
                #expect(refused.status == 1 && refused.stderr.hasPrefix("error: "), "\(key)=\(value): \(refused.stderr)")
            }
            #expect(try cli.run(["settings", "show", "--json"]).json()["maxTokens"] as? Int == 3)
            #expect(try cli.run(["settings", "reset"]).status == 0)
            #expect(try cli.run(["settings", "show", "--json"]).json()["maxTokens"] as? Int == 1000)
        }
    }

    @Test func environmentsSwitchAtRunTimeAndNeverShowTheKey() throws {
        try CLIRunner.withData { cli, data in
            let key = "sk-test-4f9a8b7c6d5e4f3a2b1c"
            let shown = try cli.run(["env", "--json"])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("\"isSelected\" : true") && shown.stdout.contains("development"))
            let refused = try cli.run(["env", "use", "production"])
            #expect(refused.status == 1 && refused.stderr.contains("API key"))
            var outputs: [CLIRunner.Output] = []
            outputs.append(
                try cli.run(
                    ["env", "use", "production", "--verbose", "--base-url", "https://api.example.com", "--api-key-stdin"], input: key + "\n"
                ))
            #expect(outputs[0].status == 0, "\(outputs[0].stderr)")
            #expect(outputs[0].stdout.contains("SDK re-initialized for the Production Environment"))
            outputs.append(try cli.run(["env"]))
            outputs.append(try cli.run(["env", "--json"]))
            outputs.append(try cli.run(["info", "--json", "--verbose"]))
            outputs.append(try cli.run(["generate", "--verbose", "--max-tokens", "2", "--threads", "1", "Hi"]))
            #expect(outputs[1].stdout.contains("* production") && outputs[1].stdout.contains("••••2b1c"))
            #expect(try outputs[3].json()["environment"] as? String == "production")
            for output in outputs {
                #expect(!output.stdout.contains(key) && !output.stderr.contains(key) && !output.stderr.contains("4f9a8b7c"))
            }
            let mode =
                try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("credentials.json").path)[.posixPermissions]
                as? Int
            #expect(mode == 0o600)
            #expect(try cli.run(["env", "use", "development"]).status == 0)
            #expect(try cli.run(["info", "--json"]).json()["environment"] as? String == "development")
        }
    }

    @Test func anUnreadableEnvironmentFileIsReportedAndRepairedByEnvUse() throws {
        try CLIRunner.withData { cli, data in
            try Data("{broken".utf8).write(to: data.appendingPathComponent("environment.json"))
            let info = try cli.run(["info", "--json"])
            #expect(info.status == 0 && info.stderr.contains("is unreadable") && info.stderr.contains("using the development environment"))
            #expect(try info.json()["environment"] as? String == "development")
            let repaired = try cli.run(["env", "use", "development"])
            #expect(repaired.status == 0, "\(repaired.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
            #expect(names.contains { $0.hasPrefix("environment.json.corrupt-") }, "the unreadable file is kept")
            let after = try cli.run(["env"])
            #expect(after.status == 0 && !after.stderr.contains("unreadable"))
        }
    }
}

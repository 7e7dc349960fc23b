import Foundation
import RunAnywhereTestSupport
import Testing

/// What the command line does with input it cannot take as given, before any model runs: each
/// refusal is a clear error with a failing exit status, and nothing is written or removed.
@Suite(.processLane)
struct CLIArgumentAndOutputTests {
    /// Runs `script` under `sh -c` with the binary as `$0`, for arguments Foundation's `Process`
    /// cannot pass (bytes that are not UTF-8) and standard output sent where the shell says.
    static func shell(_ script: String, data: URL) throws -> (status: Int32, output: String) {
        try CLIRunner.output("/bin/sh", ["-c", script, CLIRunner.binary.path], environment: ["RUNANYWHERE_DATA": data.path])
    }

    @Test func outputThatCannotBeWrittenFailsTheCommand() throws {
        try CLIRunner.withData { _, data in
            let full = try Self.shell(#""$0" settings show --json > /dev/full"#, data: data)
            #expect(full.status == 74 && full.output.contains("the output could not all be written"), "\(full)")
            let closed = try Self.shell(#""$0" models list >&-"#, data: data)
            #expect(closed.status == 74, "\(closed)")
            #expect(try Self.shell(#""$0" settings show --json > /dev/null"#, data: data).status == 0)
        }
    }

    @Test func anArgumentThatIsNotUTF8IsRefusedBeforeAnythingRuns() throws {
        try CLIRunner.withData { _, data in
            // Read with U+FFFD in place of its byte, the name would name another file, which speak would write.
            let speak = try Self.shell(#"cd "$RUNANYWHERE_DATA" && "$0" speak hi --output "$(printf 'out\351.wav')""#, data: data)
            #expect(speak.status == 64 && speak.output.contains("argument 4") && speak.output.contains("is not UTF-8"), "\(speak)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).allSatisfy { !$0.hasSuffix(".wav") })
            let key = try Self.shell(#"printf '\377\376' | "$0" env use staging --api-key-stdin --base-url http://127.0.0.1:1"#, data: data)
            #expect(key.status != 0 && key.output.contains("Standard input is not UTF-8"), "\(key)")
        }
    }

    @Test func anOutputFileThatCannotBeWrittenIsRefusedBeforeTheWork() throws {
        try CLIRunner.withData { cli, _ in
            // /proc takes no new files, even from root; the voice would load and speak first otherwise.
            let proc = try cli.run(["speak", "hi", "--voice", "no-such-voice", "--output", "/proc/runanywhere-test.wav"])
            #expect(proc.status == 1 && proc.stderr.contains("Cannot write /proc/runanywhere-test.wav"), "\(proc.stderr)")
            let empty = try cli.run(["speak", "hi", "--voice", "no-such-voice", "--output", ""])
            #expect(empty.status == 1 && empty.stderr.contains("The output path is empty"), "\(empty.stderr)")
        }
    }

    @Test func aPipeGivenAsAFileToReadIsNamedAsOne() throws {
        try CLIRunner.withData { _, data in
            let pipe = try Self.shell(#"cd "$RUNANYWHERE_DATA" && mkfifo p && "$0" transcribe p"#, data: data)
            #expect(pipe.status == 1 && pipe.output.contains("it is not a regular file (a pipe or a device)"), "\(pipe)")
        }
    }

    @Test func aFolderWhereAFileGoesIsNeverRemoved() throws {
        try CLIRunner.withData { cli, data in
            let kept = data.appendingPathComponent("settings.json/kept.txt")
            try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("precious".utf8).write(to: kept)
            let reset = try cli.run(["settings", "reset"])
            #expect(reset.status == 1 && reset.stderr.contains("it is a folder"), "\(reset.stderr)")
            #expect(FileManager.default.fileExists(atPath: kept.path))
        }
    }

    @Test(arguments: [
        (["--temperature", "-1"], "--temperature must be between 0 and 2"), (["--top-p", "0"], "--top-p must be in (0, 1]"),
        (["--repeat-last-n=-5"], "--repeat-last-n"), (["--max-tokens", "-3"], "--max-tokens must be at least 1"),
    ])
    func aGenerationFlagOutOfRangeIsNamedAsTyped(flags: [String], message: String) throws {
        try CLIRunner.withData { cli, _ in
            let refused = try cli.run(["generate"] + flags + ["hi"])
            #expect(refused.status == 1 && refused.stderr.hasPrefix("error: ") && refused.stderr.contains(message), "\(refused.stderr)")
        }
    }

    @Test(arguments: [
        (["telemetry", "list", "--database", "/nonexistent-runanywhere/t.sqlite"], 1, "No such folder /nonexistent-runanywhere"),
        (["rag", "list", "--database", "/tmp"], 1, "/tmp is a folder; name the database file in it"),
        (["rag", "list", "--database", "/nonexistent-runanywhere/"], 1, "/nonexistent-runanywhere/ names a folder"),
        (["settings", "set", "temperature", "-1"], 1, "temperature must be between 0 and 2 (got -1.0)"),
        (["settings", "set", "temperature", "0.5", "0.6"], 64, "one value only"),
        (["detokenize", "[1,2"], 1, "one bracket of a JSON array without the other"),
        (["detokenize", "1,,2"], 1, "a comma with no token id before or after it"),
        (["embed", "hi", "   "], 1, "Text 1 is blank"),
        (["imagine", " ", "--output", "x.png"], 64, "the prompt is empty"),
        (["describe", "--prompt", "", "x.png"], 64, "--prompt is empty"),
        (["chat", "--collection", "nope"], 1, "There is no RAG collection 'nope'"),
        (["generate", "--lora", "/etc/hostname:abc", "hi"], 64, "'abc' after the last colon is not a scale"),
        (["generate", "--lora", "x.gguf:nan", "hi"], 64, "the scale nan is not a finite number"),
        (["bench", "export", "abc", "--format", "md"], 64, "Please provide one of 'json' and 'csv'"),
        (["models", "import", "/etc/hostname", "--name", " "], 1, "A model's name cannot be empty"),
    ])
    func inputThatCannotBeTakenIsRefusedBeforeAModelLoads(arguments: [String], status: Int32, message: String) throws {
        try CLIRunner.withData { cli, data in
            let refused = try cli.run(arguments)
            #expect(refused.status == status && refused.stderr.contains(message), "\(refused.stderr)")
            #expect(!refused.stdout.contains("Loading"), "\(refused.stdout)")
            #expect(!FileManager.default.fileExists(atPath: "/nonexistent-runanywhere"))
        }
    }
}

import Foundation
import RunAnywhereTestSupport
import Testing

@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.speechInstalled && TestEnvironment.engineInstalled,
        "needs the speech engines and models: run scripts/setup --tests --build tests"))
struct CLISpeechTests {
    /// The check: speak a sentence, then transcribe it back.
    @Test func speakThenTranscribe() throws {
        try CLIRunner.withData { cli, folder in
            let wav = folder.appendingPathComponent("a.wav").path
            let spoken = try cli.run(["speak", "The quick brown fox jumps over the lazy dog.", "--output", wav, "--threads", "1", "--json"])
            #expect(spoken.status == 0, "\(spoken.stderr)")
            let report = try spoken.json()
            #expect(report["sampleRate"] as? Int == 22_050 && (report["duration"] as? Double ?? 0) > 1)
            let heard = try cli.run(["transcribe", wav, "--threads", "1"])
            #expect(heard.status == 0, "\(heard.stderr)")
            let (errors, words) = wordErrors("The quick brown fox jumps over the lazy dog.", heard.stdout)
            #expect(errors <= 2, "\(errors) of \(words) words wrong in \(heard.stdout)")
            // The compressed files people have, read through FFmpeg.
            for (container, codec) in [("mp3", [String]()), ("webm", ["-c:a", "libopus", "-ar", "48000"])]
            where TestEnvironment.ffmpeg != nil {
                let file = folder.appendingPathComponent("a.\(container)")
                try TestEnvironment.encodeAudio(Data(contentsOf: URL(fileURLWithPath: wav)), as: container, codec).write(to: file)
                let heard = try cli.run(["transcribe", file.path, "--threads", "1"])
                let (errors, words) = wordErrors("The quick brown fox jumps over the lazy dog.", heard.stdout)
                #expect(
                    heard.status == 0 && errors <= 2, "\(container): \(errors) of \(words) words wrong in \(heard.stdout) \(heard.stderr)")
            }
            let detailed = try cli.run(["transcribe", wav, "--threads", "1", "--json"]).json()
            #expect(((detailed["metadata"] as? [String: Any])?["realTimeFactor"] as? Double ?? 0) > 0)
            // The default model (tiny.en) hears English only: another language is refused, not ignored.
            let french = try cli.run(["transcribe", wav, "--threads", "1", "--language", "fr"])
            #expect(french.status == 1 && french.stderr.contains("English-only"), "\(french.stderr)")
            // Nor can it translate; the multilingual model writes English speech as English (French
            // speech, translated, is the OpenAI client check's).
            let translated = try cli.run(["transcribe", wav, "--threads", "1", "--translate"])
            #expect(translated.status == 1 && translated.stderr.contains("cannot translate"), "\(translated.stderr)")
            if TestEnvironment.multilingualSpeechInstalled {
                let base = try cli.run(["transcribe", wav, "--threads", "1", "--translate", "--model", "whisper-base"])
                let (baseErrors, baseWords) = wordErrors("The quick brown fox jumps over the lazy dog.", base.stdout)
                #expect(base.status == 0 && baseErrors <= 2, "\(baseErrors) of \(baseWords) words wrong in \(base.stdout) \(base.stderr)")
            }

            let question = folder.appendingPathComponent("q.wav").path
            #expect(try cli.run(["speak", "What is the capital of France?", "--output", question, "--threads", "1"]).status == 0)
            let reply = folder.appendingPathComponent("reply.wav").path
            let turn = try cli.run([
                "voice", question, "--output", reply, "--threads", "1", "--temperature", "0", "--max-tokens", "20", "--json",
            ])
            #expect(turn.status == 0, "\(turn.stderr)")
            let json = try turn.json()
            #expect((json["transcript"] as? String)?.lowercased().contains("france") == true)
            #expect(!(json["response"] as? String ?? "").isEmpty && FileManager.default.fileExists(atPath: reply))
        }
    }

    @Test func badSpeechInputsExitWithClearErrors() throws {
        try CLIRunner.withData { cli, folder in
            let text = folder.appendingPathComponent("notes.wav")
            try Data("just text".utf8).write(to: text)
            let empty = folder.appendingPathComponent("empty.wav")
            try Data().write(to: empty)
            let out = folder.appendingPathComponent("x.wav").path
            for (arguments, fragment) in [
                (["transcribe", text.path], "notes.wav could not be read as audio"),
                (["transcribe", empty.path], "empty"),
                (["transcribe", folder.appendingPathComponent("missing.wav").path], "No such file"),
                (["transcribe", folder.path], "it is a folder; name a file"),
                (["speak", "", "--output", out], "no text"),
                (["speak", "Hello", "--voice", "no-such-voice", "--output", out], "not found"),
                (["speak", String(repeating: "a", count: 100_000), "--output", out], "at most 10000"),
                (["speak", "Hello", "--rate", "9", "--output", out], "rate"),
                (["speak", "Hello", "--output", out + ".mp3"], "name the output file .wav, not .mp3"),
                (["transcribe", text.path, "--model", "smollm2-135m-instruct-q4_1"], "could not be read as audio"),
            ] {
                let output = try cli.run(arguments)
                #expect(
                    output.status == 1 && output.stderr.hasPrefix("error: ") && output.stderr.contains(fragment),
                    "\(arguments.prefix(2)): \(output.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: out), "no file is written for a refused request")
        }
    }

    @Test func speechBenchmarksCoverEveryInstalledVoiceAndModel() throws {
        try CLIRunner.withData { cli, _ in
            let bench = try cli.run([
                "bench", "run", "--category", "stt,tts", "--scenario", "Silent audio (2s)", "--scenario", "Short text", "--repetitions",
                "1", "--threads", "1", "--json",
            ])
            #expect(bench.status == 0, "\(bench.stderr)")
            let results = try #require((try bench.json()["run"] as? [String: Any])?["results"] as? [[String: Any]])
            let models = Set(results.compactMap { ($0["componentModelInfo"] as? [String: Any])?["modelId"] as? String })
            let multilingual: Set<String> = TestEnvironment.multilingualSpeechInstalled ? ["whisper-base"] : []
            #expect(models == Set(["whisper-tiny.en", "piper-en_US-joe-medium", "espeak-ng-en-us"]).union(multilingual))
            #expect(results.allSatisfy { ($0["metrics"] as? [String: Any])?["error"] == nil })
            #expect(results.contains { ($0["metrics"] as? [String: Any])?["sttTranscriptionTimeMs"] != nil })
            #expect(results.contains { ($0["metrics"] as? [String: Any])?["ttsSynthesisTimeMs"] != nil })
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// `POST /v1/audio/transcriptions` in process, against the scripted speech engine (one segment a
/// second, " second N"): the multipart form, every response format, and every error.
@Suite struct TranscriptionRouteTests {
    static let boundary = "----runanywhere-test-boundary"

    /// A multipart/form-data body of `fields`, and `file` (name and bytes) as the `file` part.
    static func form(_ fields: [(String, String)], file: (name: String, data: Data)?) -> ByteBuffer {
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        if let file {
            body.append(
                Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                        .utf8))
            body.append(file.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return ByteBuffer(bytes: body)
    }

    static let multipart: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)"]

    /// 2.5 s of a 440 Hz tone at 22.05 kHz, as a WAV file.
    static let wav: Data = {
        let samples = (0..<55_125).map { Float(sin(2 * Double.pi * 440 * Double($0) / 22_050) * 0.3) }
        return try! AudioSamples(samples: samples, sampleRate: 22_050).wavData
    }()

    static func runtime(name: String = #function) throws -> RunAnywhereRuntime {
        let runtime = try scriptedRuntime(name: name)
        try addScriptedSpeech(to: runtime)
        return runtime
    }

    static func transcribe(
        _ client: some TestClientProtocol, _ fields: [(String, String)], file: (String, Data)? = ("tone.wav", wav),
        _ check: @escaping @Sendable (TestResponse) throws -> Void
    ) async throws {
        try await client.execute(
            uri: "/v1/audio/transcriptions", method: .post, headers: multipart,
            body: form(fields, file: file.map { (name: $0.0, data: $0.1) })
        ) {
            try check($0)
        }
    }

    @Test func everyResponseFormat() async throws {
        let app = OpenAIRouteTests.server(try Self.runtime()).checkedApplication()
        try await app.test(.router) { client in
            try await Self.transcribe(client, [("model", "scripted-stt")]) { response in
                #expect(response.status == .ok)
                let body = try OpenAIRouteTests.json(response.body)
                #expect(body["text"] as? String == "second 1 second 2 second 3")
                #expect((body["usage"] as? [String: Any])?["seconds"] as? Int == 3)
            }
            try await Self.transcribe(
                client, [("model", "scripted-stt"), ("response_format", "verbose_json"), ("timestamp_granularities[]", "segment")]
            ) { response in
                let body = try OpenAIRouteTests.json(response.body)
                #expect(body["task"] as? String == "transcribe")
                #expect(body["language"] as? String == "german", "no language given: detected, and named as OpenAI names it")
                #expect(abs((body["duration"] as? Double ?? 0) - 2.5) < 0.01)
                let segments = try #require(body["segments"] as? [[String: Any]])
                #expect(segments.map { $0["id"] as? Int } == [0, 1, 2])
                #expect(segments.map { $0["start"] as? Double } == [0, 1, 2])
                #expect(segments.map { $0["seek"] as? Int } == [0, 100, 200])
                #expect(abs((segments.last?["end"] as? Double ?? 0) - 2.5) < 0.01)
                #expect(segments.first?["text"] as? String == " second 1")
                #expect(segments.map { $0["tokens"] as? [Int] } == [[0, 7], [1, 7], [2, 7]])
                #expect(segments.allSatisfy { $0["no_speech_prob"] as? Double == 0.25 })
                // What Python's zlib.compress gives for " second 1": 9 bytes in 17.
                #expect(segments.allSatisfy { abs(($0["compression_ratio"] as? Double ?? 0) - 9.0 / 17) < 1e-9 }, "\(segments)")
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("response_format", "verbose_json"), ("language", "EN")]) {
                response in
                let body = try OpenAIRouteTests.json(response.body)
                #expect(body["language"] as? String == "english")
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("response_format", "text")]) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                #expect(String(buffer: response.body) == "second 1 second 2 second 3\n")
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("response_format", "srt")]) { response in
                #expect(
                    String(buffer: response.body) == """
                        1
                        00:00:00,000 --> 00:00:01,000
                        second 1

                        2
                        00:00:01,000 --> 00:00:02,000
                        second 2

                        3
                        00:00:02,000 --> 00:00:02,500
                        second 3

                        """)
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("response_format", "vtt")]) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/vtt") == true)
                #expect(String(buffer: response.body).hasPrefix("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nsecond 1\n\n00:00:01.000"))
            }
        }
    }

    @Test func translationsAnswerInTheTranscriptionsShapesAsEnglish() async throws {
        let app = OpenAIRouteTests.server(try Self.runtime()).checkedApplication()
        try await app.test(.router) { client in
            func translate(_ fields: [(String, String)], _ check: @escaping @Sendable (TestResponse) throws -> Void) async throws {
                try await client.execute(
                    uri: "/v1/audio/translations", method: .post, headers: Self.multipart,
                    body: Self.form(fields, file: (name: "tone.wav", data: Self.wav)), testCallback: check)
            }
            try await translate([("model", "scripted-stt")]) { response in
                #expect(response.status == .ok)
                let body = try OpenAIRouteTests.json(response.body)
                #expect(body["text"] as? String == "second 1 in English second 2 in English second 3 in English", "\(body)")
            }
            try await translate([("model", "scripted-stt"), ("response_format", "verbose_json")]) { response in
                let body = try OpenAIRouteTests.json(response.body)
                #expect(body["task"] as? String == "translate" && body["language"] as? String == "english", "\(body)")
                #expect((body["segments"] as? [[String: Any]])?.count == 3)
            }
            try await translate([("model", "scripted-stt"), ("response_format", "srt")]) { response in
                #expect(String(buffer: response.body).hasPrefix("1\n00:00:00,000 --> 00:00:01,000\nsecond 1 in English\n"))
            }
            try await translate([("model", "scripted-stt"), ("response_format", "mp3")]) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("response_format"))
            }
            try await translate([("model", "scripted-stt"), ("temperature", "2")]) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("temperature"))
            }
        }
    }

    @Test func streamedTranscriptionsSendEachSegmentThenTheText() async throws {
        let app = OpenAIRouteTests.server(try Self.runtime()).checkedApplication()
        try await app.test(.router) { client in
            for format in ["json", "text"] {
                try await Self.transcribe(client, [("model", "scripted-stt"), ("stream", "true"), ("response_format", format)]) {
                    response in
                    #expect(response.status == .ok && response.headers[.contentType] == "text/event-stream")
                    let events = try ModelCatalogRouteTests.events(response.body)
                    #expect(events.allSatisfy { $0.name == nil }, "typed by their data, as OpenAI's are")
                    #expect(
                        events.map { $0.data["type"] as? String } == Array(repeating: "transcript.text.delta", count: 3) + [
                            "transcript.text.done"
                        ])
                    let deltas = events.dropLast().compactMap { $0.data["delta"] as? String }
                    #expect(deltas == ["second 1", " second 2", " second 3"])
                    #expect(events.last?.data["text"] as? String == deltas.joined())
                }
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("stream", "false")]) { response in
                let text = try OpenAIRouteTests.json(response.body)["text"] as? String
                #expect(text == "second 1 second 2 second 3")
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("stream", "true"), ("response_format", "srt")]) { response in
                #expect(response.status == .badRequest)
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["param"] as? String == "response_format" && (error["message"] as? String ?? "").contains("json or text"))
            }
            try await Self.transcribe(client, [("model", "scripted-stt"), ("stream", "sometimes")]) { response in
                #expect(response.status == .badRequest)
                let message = try OpenAIRouteTests.error(response.body)["message"] as? String
                #expect(message?.contains("stream") == true, "\(message ?? "")")
            }
        }
    }

    @Test func badFormsAndFilesAreClearErrors() async throws {
        let app = OpenAIRouteTests.server(try Self.runtime(), maxBody: 200_000).checkedApplication()
        try await app.test(.router) { client in
            func expectError(
                _ fields: [(String, String)], file: (String, Data)? = ("tone.wav", Self.wav), status: HTTPResponse.Status,
                param: String? = nil, mentions: String, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                try await Self.transcribe(client, fields, file: file) { response in
                    #expect(response.status == status, sourceLocation: sourceLocation)
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect((error["message"] as? String ?? "").contains(mentions), "\(error)", sourceLocation: sourceLocation)
                    if let param { #expect(error["param"] as? String == param, sourceLocation: sourceLocation) }
                }
            }
            try await expectError(
                [("model", "scripted-stt")], file: nil, status: .badRequest, param: "file", mentions: "'file' is required")
            try await expectError([], status: .badRequest, param: "model", mentions: "'model' is required")
            // A form of more parts than any of ours has is refused before it is decoded.
            try await expectError(
                [("model", "scripted-stt")] + (0..<1_000).map { ("x\($0)", "y") }, status: .badRequest,
                mentions: "more than 1000 parts")
            try await expectError(
                [("model", "scripted-stt"), ("response_format", "mp3")], status: .badRequest, param: "response_format",
                mentions: "json, text")
            try await expectError(
                [("model", "scripted-stt"), ("timestamp_granularities[]", "word")], status: .badRequest, param: "timestamp_granularities",
                mentions: "word")
            try await expectError(
                [("model", "scripted-stt"), ("temperature", "7")], status: .badRequest, param: "temperature", mentions: "between 0 and 1")
            // A field sent twice is refused (the form would keep one); a part of no field of the form is not read.
            try await expectError(
                [("model", "scripted-stt"), ("model", "scripted-stt")], status: .badRequest, param: "model",
                mentions: "more than one part named 'model'")
            try await expectError(
                [("model", "scripted-stt"), ("extra", "1"), ("extra", "2"), ("response_format", "mp3")], status: .badRequest,
                param: "response_format", mentions: "json, text")
            try await expectError([("model", "nope")], status: .notFound, param: "model", mentions: "nope")
            try await expectError([("model", "scripted")], status: .badRequest, param: "model", mentions: "not speech recognition")
            // No audio decoder is registered in this runtime: WAV is read, anything else is named and refused.
            try await expectError(
                [("model", "scripted-stt")], file: ("memo.mp3", Data([0xFF, 0xFB, 0x90, 0x00] + Array(repeating: 0, count: 400))),
                status: .badRequest, mentions: "memo.mp3 is not a WAV file, and no decoder")
            try await expectError(
                [("model", "scripted-stt")], file: ("empty.wav", Data()), status: .badRequest, param: "file", mentions: "empty.wav is empty"
            )
            // An upload's name in errors: letters of any script and joined emoji as they are; a
            // bidirectional override or a control character as "?"; at most 100 scalars.
            for (name, shown) in [
                ("été 漢字 👩‍💻.wav", "été 漢字 👩‍💻.wav"), ("evil\u{202E}vaw.wav", "evil?vaw.wav"), ("a\u{1}b.wav", "a?b.wav"),
                ("e" + String(repeating: "\u{301}", count: 500) + ".wav", "e" + String(repeating: "\u{301}", count: 99)),
            ] {
                try await expectError(
                    [("model", "scripted-stt")], file: (name, Data()), status: .badRequest, param: "file", mentions: "\(shown) is empty")
            }
            try await expectError(
                [("model", "scripted-stt")], file: ("big.wav", Data(count: 300_000)), status: .contentTooLarge,
                mentions: "larger than 200000 bytes")
            try await client.execute(
                uri: "/v1/audio/transcriptions", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .badRequest)
                let error = try OpenAIRouteTests.error(response.body)
                #expect((error["message"] as? String ?? "").contains("multipart/form-data"))
            }
            // A body with no part, or with a part that never ends, is not a form (not a form missing its file).
            let cutShort = "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nscripted-stt"
            for body in ["no parts here", cutShort, "--\(Self.boundary)--\r\n"] {
                try await client.execute(
                    uri: "/v1/audio/transcriptions", method: .post, headers: Self.multipart, body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .badRequest)
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect((error["message"] as? String ?? "").contains("not well-formed multipart/form-data"), "\(body): \(error)")
                }
            }
        }
    }

    @Test func transcriptionsAreCountedInTheMetrics() async throws {
        let app = OpenAIRouteTests.server(try Self.runtime()).checkedApplication()
        try await app.test(.router) { client in
            try await Self.transcribe(client, [("model", "scripted-stt")]) { #expect($0.status == .ok) }
            // The metrics are fed from the event bus, a moment after the response.
            var text = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while !text.contains("runanywhere_transcriptions_total{model=\"scripted-stt\"} 1"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                text = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            }
            #expect(text.contains("runanywhere_transcriptions_total{model=\"scripted-stt\"} 1"), "\(text)")
            #expect(text.contains("runanywhere_transcribed_audio_seconds_total{model=\"scripted-stt\"} 2.5"))
        }
    }
}

/// `POST /api/voice`'s refusals, in process (the whole turn runs live through the CLI tests'
/// client check, on the real models).
@Suite struct VoiceRouteTests {
    @Test func badTurnsAreClearErrors() async throws {
        let app = OpenAIRouteTests.server(try TranscriptionRouteTests.runtime(), maxBody: 200_000).checkedApplication()
        try await app.test(.router) { client in
            func status(_ fields: [(String, String)], file: (String, Data)?) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: "/api/voice", method: .post, headers: TranscriptionRouteTests.multipart,
                    body: TranscriptionRouteTests.form(fields, file: file.map { (name: $0.0, data: $0.1) })
                ) { response in
                    (response.status, String(buffer: response.body))
                }
            }
            let wav = ("turn.wav", TranscriptionRouteTests.wav)
            #expect(try await status([], file: nil).0 == .badRequest)
            let unknown = try await status([("model", "nope")], file: wav)
            #expect(unknown.0 == .notFound && unknown.1.contains("nope") && unknown.1.contains(#""param":"model""#), "\(unknown)")
            // Each model is checked as what it is for, and the field at fault is named.
            let wrongKind = try await status([("stt", "scripted")], file: wav)
            #expect(wrongKind.0 == .badRequest && wrongKind.1.contains(#""param":"stt""#), "\(wrongKind)")
            let noVoice = try await status([("voice", "nope")], file: wav)
            #expect(noVoice.0 == .notFound && noVoice.1.contains(#""param":"voice""#), "\(noVoice)")
            let notAudio = try await status([("stt", "scripted-stt"), ("model", "scripted")], file: ("notes.webm", Data("hello".utf8)))
            #expect(notAudio.0 == .badRequest && notAudio.1.contains("notes.webm is not a WAV file, and no decoder"), "\(notAudio)")
            #expect(try await status([], file: ("big.webm", Data(count: 300_000))).0 == .contentTooLarge)
        }
    }
}

/// `POST /api/vision/describe`'s refusals, in process (descriptions run live on the fixture in
/// the web app's browser check).
@Suite struct VisionRouteTests {
    @Test func badRequestsAreClearErrorsBeforeAnyWork() async throws {
        let app = OpenAIRouteTests.server(try TranscriptionRouteTests.runtime(), maxBody: 200_000).checkedApplication()
        try await app.test(.router) { client in
            func status(_ fields: [(String, String)], file: (String, Data)?) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: "/api/vision/describe", method: .post, headers: TranscriptionRouteTests.multipart,
                    body: TranscriptionRouteTests.form(fields, file: file.map { (name: $0.0, data: $0.1) })
                ) { response in
                    (response.status, String(buffer: response.body))
                }
            }
            let png =
                Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
                + Data([0, 0, 0, 8, 0, 0, 0, 8, 8, 2, 0, 0, 0])
            #expect(try await status([("prompt", "hi")], file: nil).0 == .badRequest)
            let unknown = try await status([("prompt", "hi"), ("model", "nope")], file: ("a.png", png))
            #expect(unknown.0 == .notFound && unknown.1.contains("nope") && unknown.1.contains(#""param":"model""#), "\(unknown)")
            let text = try await status([("prompt", "hi"), ("model", "scripted")], file: ("a.png", png))
            #expect(text.0 == .badRequest && text.1.contains("not a multimodal model"), "\(text)")
            let none = try await status([("prompt", "hi")], file: ("a.png", png))
            #expect(none.0 == .notFound && none.1.contains("No vision-language model is downloaded"), "\(none)")
            #expect(
                try await status([("prompt", "hi"), ("model", "scripted")], file: ("big.png", Data(count: 300_000))).0 == .contentTooLarge)
        }
    }
}

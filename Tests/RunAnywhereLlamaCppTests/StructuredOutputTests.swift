import CLlamaCpp
import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// Grammar-constrained generation on the default model: the converter's grammars as llama.cpp's
/// grammar engine reads them (what they accept and refuse, token by token), and generations
/// that must come out as valid JSON every time.
extension LlamaTests {
    @Suite struct StructuredOutput {
        /// The default model's vocabulary in llama.cpp, to ask its grammar engine about texts.
        static let llama = Task {
            let library = try LlamaLibrary.load(logger: Logger(label: "test"))
            let path = try #require(TestEnvironment.defaultModelFile).path
            let info = try RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory)
            )
            .model(id: RunAnywhere.defaultModelID)
            return try LlamaContext(
                library: library, path: path, options: ModelLoadOptions(contextLength: 256, threads: 1), modelInfo: info, threads: 1,
                invarianceObstacle: nil)
        }

        /// Whether llama.cpp's grammar engine lets a model write exactly `text` under `grammar`:
        /// every token of it allowed in turn, then the end of generation.
        static func accepts(_ grammar: String, _ text: String) async throws -> Bool {
            let llama = try await llama.value
            let api = llama.library.api
            let sampler = try #require(llama.grammarSampler(grammar), "llama.cpp refused the grammar:\n\(grammar)")
            defer { api.llama_sampler_free(sampler) }
            func allowed(_ token: llama_token) -> Bool {
                var candidate = llama_token_data(id: token, logit: 0, p: 0)
                return withUnsafeMutablePointer(to: &candidate) { pointer in
                    var array = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
                    api.llama_sampler_apply(sampler, &array)
                    return pointer.pointee.logit != -Float.infinity
                }
            }
            for token in try llama.tokenize(text, addSpecial: false) {
                guard allowed(token) else { return false }
                api.llama_sampler_accept(sampler, token)
            }
            return allowed(api.llama_vocab_eos(llama.vocab))
        }

        static func check(_ schema: JSONValue, accepts good: [String], refuses bad: [String]) async throws {
            let grammar = try JSONSchemaGrammar.grammar(for: schema)
            for text in good { #expect(try await accepts(grammar, text), "\(schema.text) should accept \(text)\n\(grammar)") }
            for text in bad { #expect(try await !accepts(grammar, text), "\(schema.text) should refuse \(text)\n\(grammar)") }
        }

        @Test func llamaCppAcceptsExactlyWhatTheSchemaAllows() async throws {
            try await Self.check(
                ["type": "integer", "minimum": -12, "maximum": 250],
                accepts: ["-12", "-9", "0", "7", "10", "99", "199", "250"],
                refuses: ["-13", "251", "300", "1000", "007", "-0", "2.5", "\"3\""])
            try await Self.check(
                ["type": "integer", "minimum": 1000], accepts: ["1000", "1001", "9999", "123456"], refuses: ["999", "0", "-5"])
            try await Self.check(["type": "integer", "exclusiveMaximum": 0], accepts: ["-1", "-42"], refuses: ["0", "1"])
            try await Self.check(
                ["type": "number", "minimum": -1, "maximum": 2],
                accepts: ["0", "0.5", "1.999", "2", "2.0", "-1", "-0.25", "-1.000"], refuses: ["2.5", "-1.5", "3", "2.01"])
            try await Self.check(
                ["type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"], accepts: [#""AB-123""#],
                refuses: [#""Ab-123""#, #""AB-12""#, #""AB-1234""#])
            try await Self.check(
                ["type": "string", "minLength": 2, "maxLength": 3], accepts: [#""ab""#, #""abc""#, #""a\"""#],
                refuses: [#""a""#, #""abcd""#])
            try await Self.check(
                ["type": "string", "format": "date"], accepts: [#""2026-11-23""#], refuses: [#""2026-13-01""#, #""26-11-23""#])
            try await Self.check(["enum": ["red", 3, nil]], accepts: [#""red""#, "3", "null"], refuses: [#""blue""#, "4"])
            try await Self.check(
                ["type": "array", "items": ["type": "boolean"], "minItems": 1, "maxItems": 2],
                accepts: ["[true]", "[true, false]", "[ false ]"], refuses: ["[]", "[true,true,true]", "[1]"])
            try await Self.check(
                ["type": "object", "properties": ["name": ["type": "string"], "age": ["type": "integer"]], "required": ["name"]],
                accepts: [#"{"name": "Ada"}"#, #"{"name":"Ada","age":36}"#, "{\n  \"name\": \"Ada\",\n  \"age\": 36\n}"],
                refuses: [#"{}"#, #"{"age":36}"#, #"{"name":"Ada","extra":1}"#, #"{"name":"Ada","age":"36"}"#])
            try await Self.check(
                ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]]],
                accepts: ["{}", #"{"a":1}"#, #"{"b":2}"#, #"{"a":1,"b":2}"#], refuses: [#"{"b":2,"a":1}"#, #"{"a":1,}"#])
            try await Self.check(
                [
                    "$defs": [
                        "list": [
                            "type": "object", "properties": ["next": ["anyOf": [["$ref": "#/$defs/list"], ["type": "null"]]]],
                            "required": ["next"],
                        ]
                    ], "$ref": "#/$defs/list",
                ],
                accepts: [#"{"next":null}"#, #"{"next":{"next":{"next":null}}}"#], refuses: [#"{"next":1}"#])
            try await Self.check(["type": "object"], accepts: [#"{"any": [1, {"x": null}]}"#], refuses: ["[1]"])
        }

        struct Weather: Generatable, Equatable {
            let city: String
            let temperatureC: Int
            let conditions: String
            static let jsonSchema: JSONValue = [
                "type": "object",
                "properties": [
                    "city": ["type": "string", "maxLength": 40], "temperatureC": ["type": "integer", "minimum": -60, "maximum": 60],
                    "conditions": ["enum": ["sunny", "cloudy", "rain", "snow"]],
                ],
                "required": ["city", "temperatureC", "conditions"],
            ]
        }

        @Test func generateStructuredDecodesEveryTime() async throws {
            let runtime = try await SharedModel.runtime.value
            for seed: UInt32 in 1...5 {
                let options = LLMGenerationOptions(maxTokens: 60, temperature: 0.9, seed: seed, threads: 1)
                let weather = try await runtime.generateStructured(
                    Weather.self, prompt: "What is the weather in Oslo today?", options: options)
                #expect(
                    (-60...60).contains(weather.value.temperatureC)
                        && ["sunny", "cloudy", "rain", "snow"].contains(weather.value.conditions))
                #expect(weather.result.stopReason == .stop && weather.result.text.hasPrefix("{"))
            }
            // Any JSON object, and a grammar of one's own.
            var options = greedy(150)
            options.structuredOutput = .jsonObject
            let object = try await runtime.generate("Describe a cat as JSON with its name and age.", options: options)
            #expect(object.stopReason == .stop, "\(object.text)")
            #expect(try JSONValue(parsing: object.text).objectValue != nil, "\(object.text)")
            options.structuredOutput = .grammar(#"root ::= ("yes" | "no") "."?"#)
            let answer = try await runtime.generate("Is the sky blue?", options: options)
            #expect(["yes", "no", "yes.", "no."].contains(answer.text), "\(answer.text)")
        }

        @Test func badGrammarsAndShortBudgetsAreClear() async throws {
            let runtime = try await SharedModel.runtime.value
            var options = greedy(40)
            options.structuredOutput = .grammar(#"root ::= missing-rule"#)
            let undefined = await #expect(throws: SDKError.self) { try await runtime.generate("Hi", options: options) }
            #expect(
                undefined?.code == .invalidInput && undefined?.message.contains("not one llama.cpp can use") == true,
                "\(undefined?.message ?? "")")
            options.structuredOutput = .schema(["type": "string", "format": "email"])
            let unsupported = await #expect(throws: SDKError.self) { try await runtime.generate("Hi", options: options) }
            #expect(unsupported?.code == .invalidInput && unsupported?.message.contains("format 'email'") == true)
            // Three tokens cannot finish a weather report: the result says length, and
            // generateStructured says what happened.
            options.structuredOutput = .type(Weather.self)
            options.maxTokens = 3
            #expect(try await runtime.generate("Weather in Oslo?", options: options).stopReason == .length)
            let short = await #expect(throws: SDKError.self) {
                try await runtime.generateStructured(Weather.self, prompt: "Weather in Oslo?", options: options)
            }
            #expect(short?.code == .generationFailed && short?.message.contains("used all 3 tokens") == true, "\(short?.message ?? "")")
        }

        @Test func parallelSequencesKeepTheirOwnGrammars() async throws {
            let runtime = try await makeRuntime(
                options: ModelLoadOptions(contextLength: 1024, threads: 1, flashAttention: .disabled, parallel: 2))
            var yesNo = LLMGenerationOptions(maxTokens: 10, temperature: 0.8, seed: 3, threads: 1)
            yesNo.structuredOutput = .grammar(#"root ::= "yes" | "no""#)
            var number = LLMGenerationOptions(maxTokens: 10, temperature: 0.8, seed: 4, threads: 1)
            number.structuredOutput = .schema(["type": "integer", "minimum": 1, "maximum": 9])
            async let first = runtime.generate("Is water wet?", options: yesNo)
            async let second = runtime.generate("Pick a number.", options: number)
            let (answer, digit) = try await (first, second)
            #expect(["yes", "no"].contains(answer.text), "\(answer.text)")
            #expect(Int(digit.text).map { (1...9).contains($0) } == true, "\(digit.text)")
            await runtime.unloadModel()
        }
    }
}

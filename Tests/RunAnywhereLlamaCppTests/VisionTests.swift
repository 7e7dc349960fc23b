import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// The vision-language path on the fixture scripts/setup --tests writes (SmolVLM's shape, random
/// weights: its answers are noise, so these tests check everything but their meaning).
extension LlamaTests {
    @Suite(
        .enabled(
            if: TestEnvironment.visionFixture != nil,
            "needs the vision-language fixture and libmtmd: run scripts/setup --tests --build tests"))
    struct Vision {
        static let fixtureID = SDKConstants.Models.visionFixtureID

        /// One runtime with the fixture loaded as the current vision-language model.
        static let runtime = Task {
            let runtime = try await makeRuntime(load: false)
            try await runtime.loadVLMModel(runtime.model(id: fixtureID), options: testLoadOptions)
            return runtime
        }

        @Test func describesAnImageFromEverySource() async throws {
            let runtime = try await Self.runtime.value
            #expect(await runtime.isVLMModelLoaded)
            let png = try TestEnvironment.encodeImage(width: 224, height: 224)
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            try png.write(to: folder.appendingPathComponent("red.png"))
            let sources = [
                VLMImage(filePath: folder.appendingPathComponent("red.png").path), VLMImage(data: png),
                VLMImage(base64: png.base64EncodedString()),
                VLMImage(data: try TestEnvironment.encodeImage(width: 224, height: 224, as: "mjpeg")),
                VLMImage(rgbPixels: Data((0..<224 * 224).flatMap { _ in [UInt8(255), 0, 0] }), width: 224, height: 224),
            ]
            var promptTokens: Set<Int> = []
            for image in sources {
                let result = try await runtime.processImage(image, prompt: "Describe this image.", maxTokens: 6, temperature: 0)
                #expect(result.completionTokens > 0 && result.completionTokens <= 6)
                #expect(result.modelId == Self.fixtureID)
                #expect(result.imageEncodeTimeMs != nil && result.totalTimeMs > 0 && result.tokensPerSecond > 0)
                promptTokens.insert(result.promptTokens)
            }
            // The same size gives the same tiles, whatever the encoding.
            #expect(promptTokens.count == 1)
            let text = try await drained(
                runtime.generateStream(
                    "Describe this image.", context: nil, options: greedy(1), model: Self.fixtureID, loadOptions: testLoadOptions)
            )
            .inputTokens
            #expect(promptTokens.first! > text, "an image adds its embeddings to the prompt")
        }

        /// A model that is the current vision-language and the current language model stays
        /// loaded until both let go of it, and unloading everything lets go of every role.
        @Test func theCurrentModelOfEachRoleIsHeldUntilUnloaded() async throws {
            let runtime = try await makeRuntime(load: false)
            try await runtime.loadVLMModel(runtime.model(id: Self.fixtureID), options: testLoadOptions)
            try await runtime.loadModel(Self.fixtureID, options: testLoadOptions)
            await runtime.unloadVLMModel()
            #expect(await runtime.currentVLMModel == nil)
            #expect(await runtime.isModelLoaded, "still the current language model")
            #expect(await runtime.loadedModels().map(\.modelId) == [Self.fixtureID])

            try await runtime.loadVLMModel(runtime.model(id: Self.fixtureID), options: testLoadOptions)
            await runtime.unloadAllModels()
            #expect(await runtime.currentVLMModel == nil)
            #expect(await runtime.currentModel == nil)
            #expect(await !runtime.isVLMModelLoaded)
            #expect(await !runtime.isModelLoaded)
            #expect(await runtime.loadedModels().isEmpty)
            await #expect {
                try await runtime.processImage(VLMImage(data: TestEnvironment.encodeImage(width: 32, height: 32)), prompt: "?")
            } throws: { error in
                (error as? SDKError)?.code == .notInitialized
            }
        }

        /// The image shapes the prompt (a wide image becomes fewer tiles than a square one), and
        /// greedy answers repeat exactly.
        @Test func theImageShapesThePromptAndGreedyRepeats() async throws {
            let runtime = try await Self.runtime.value
            let square = VLMImage(data: try TestEnvironment.encodeImage(width: 224, height: 224))
            let wide = VLMImage(data: try TestEnvironment.encodeImage(width: 448, height: 224, rgb: (0, 0, 255)))
            let first = try await runtime.processImage(square, prompt: "What colour is it?", maxTokens: 8, temperature: 0)
            let again = try await runtime.processImage(square, prompt: "What colour is it?", maxTokens: 8, temperature: 0)
            let other = try await runtime.processImage(wide, prompt: "What colour is it?", maxTokens: 8, temperature: 0)
            #expect(first.text == again.text && first.promptTokens == again.promptTokens)
            #expect(other.promptTokens < first.promptTokens, "\(other.promptTokens) vs \(first.promptTokens)")
        }

        @Test func streamingStopsWhenCancelled() async throws {
            let runtime = try await Self.runtime.value
            let image = VLMImage(data: try TestEnvironment.encodeImage(width: 64, height: 64))
            let streaming = try await runtime.processImageStream(
                image, prompt: "Describe it.", options: LLMGenerationOptions(maxTokens: 400, temperature: 0, threads: 1))
            var pieces = 0
            for try await _ in streaming.stream {
                pieces += 1
                if pieces == 3 { streaming.result.cancel() }
            }
            let result = try await streaming.result.value
            #expect(result.stopReason == .cancelled)
            #expect(result.completionTokens < 40, "stopped after \(result.completionTokens) tokens")
        }

        /// A conversation about a picture: the image of an earlier message is read again on the
        /// next turn, through the chat path any language model request takes.
        @Test func aConversationCarriesItsImages() async throws {
            let runtime = try await Self.runtime.value
            let image = VLMImage(data: try TestEnvironment.encodeImage(width: 64, height: 64))
            let context = Context(messages: [
                Message(role: .user, content: "What is in this picture?", images: [image]),
                Message(role: .assistant, content: "A red square."),
            ])
            let withImage = try await drained(
                runtime.generateStream(
                    "And its colour?", context: context, options: greedy(4), model: Self.fixtureID, loadOptions: testLoadOptions))
            let withoutImage = try await drained(
                runtime.generateStream(
                    "And its colour?",
                    context: Context(messages: [
                        Message(role: .user, content: "What is in this picture?"), Message(role: .assistant, content: "A red square."),
                    ]),
                    options: greedy(4), model: Self.fixtureID, loadOptions: testLoadOptions
                ))
            #expect(withImage.stopReason != .cancelled && withoutImage.stopReason != .cancelled)
            #expect(withImage.imageEncodeTimeMs != nil && withoutImage.imageEncodeTimeMs == nil)
            #expect(withImage.inputTokens > withoutImage.inputTokens)
        }

        /// A conversation with more pictures than the context holds: the oldest messages, and
        /// their images, are dropped to make room, counted as the tokens each image becomes.
        @Test func oldPicturesMakeRoomForTheNewOne() async throws {
            let runtime = try await makeRuntime(load: false)
            let small = ModelLoadOptions(contextLength: 256, threads: 1, flashAttention: .disabled)
            let image = VLMImage(data: try TestEnvironment.encodeImage(width: 64, height: 64))
            let history = (1...12).flatMap { turn in
                [Message(role: .user, content: "Picture \(turn).", images: [image]), Message(role: .assistant, content: "Red.")]
            }
            let result = try await drained(
                runtime.generateStream(
                    "And this one?", images: [image], context: Context(messages: history), options: greedy(4), model: Self.fixtureID,
                    loadOptions: small
                ))
            let contextLength = try #require(await runtime.contextLength(ofLoaded: Self.fixtureID))
            #expect(result.stopReason != .cancelled && result.imageEncodeTimeMs != nil, "\(result)")
            #expect(result.inputTokens + 4 <= contextLength, "\(result.inputTokens) prompt tokens in a \(contextLength)-token context")
            #expect(result.inputTokens > contextLength / 2, "as many pictures as fit were kept: \(result.inputTokens) tokens")
        }

        @Test func badImagesAreRefusedAndTheModelGoesOn() async throws {
            let runtime = try await Self.runtime.value
            let png = try TestEnvironment.encodeImage(width: 64, height: 64)
            for (image, expected) in [
                (VLMImage(data: png.prefix(png.count / 2)), "could not be decoded"),
                (VLMImage(data: Data("not an image".utf8)), "not an image"),
                (VLMImage(rgbPixels: Data(count: 5), width: 2, height: 2), "these pixels have 5"),
            ] {
                await #expect { try await runtime.processImage(image, prompt: "Describe it.", maxTokens: 4, temperature: 0) } throws: {
                    error in
                    (error as? SDKError)?.message.contains(expected) == true
                }
            }
            await #expect(throws: SDKError.self) {
                try await runtime.processImage(VLMImage(data: png), prompt: "", maxTokens: 4, temperature: 0)
            }
            let after = try await runtime.processImage(VLMImage(data: png), prompt: "Describe it.", maxTokens: 2, temperature: 0)
            #expect(after.completionTokens > 0)
            // An image marker typed in the question is text, not a second image's place.
            let typed = try await runtime.processImage(
                VLMImage(data: png), prompt: "Describe it. \(LLMEngineRequest.imageMarker)", maxTokens: 2, temperature: 0)
            #expect(typed.completionTokens > 0 && typed.promptTokens > after.promptTokens)
        }

        /// A text model is no vision model, and its conversations leave earlier images out
        /// rather than fail; a new image for it is an error.
        @Test func aTextModelDoesNotReadImages() async throws {
            let runtime = try await SharedModel.runtime.value
            await #expect { try await runtime.loadVLMModel(runtime.model(id: RunAnywhere.defaultModelID)) } throws: { error in
                (error as? SDKError)?.message.contains("no vision projector") == true
            }
            let image = VLMImage(data: try TestEnvironment.encodeImage(width: 64, height: 64))
            let context = Context(messages: [
                Message(role: .user, content: "Look.", images: [image]), Message(role: .assistant, content: "I see."),
            ])
            let result = try await runtime.generate("Say hi.", context: context, options: greedy(2))
            #expect(result.tokensUsed > 0 && result.imageEncodeTimeMs == nil)
        }

        /// A projector made for another language model (here the fixture's, 64 wide, beside the
        /// 576-wide default model) is refused with llama.cpp's reason, before anything runs.
        @Test func aProjectorThatDoesNotMatchItsModelIsRefused() async throws {
            let models = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: models) }
            let folder = models.appendingPathComponent(Self.fixtureID)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestEnvironment.defaultModelFile!, to: folder.appendingPathComponent("model.gguf"))
            try FileManager.default.copyItem(
                at: TestEnvironment.visionFixture!.appendingPathComponent("mmproj-SmolVLM-fixture.gguf"),
                to: folder.appendingPathComponent("mmproj.gguf")
            )
            let runtime = try await makeRuntime(load: false, models: models)
            await #expect { try await runtime.loadVLMModel(runtime.model(id: Self.fixtureID), options: testLoadOptions) } throws: { error in
                let message = (error as? SDKError)?.message ?? "\(error)"
                return message.contains("vision projector") && message.contains("mismatch")
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent("mmproj.gguf"))
            await #expect { try await runtime.loadVLMModel(runtime.model(id: Self.fixtureID), options: testLoadOptions) } throws: { error in
                (error as? SDKError)?.message.contains("needs an mmproj GGUF") == true
            }
        }
    }
}

/// The result of a streamed generation, read to its end (a stream dropped unread cancels it).
func drained(_ streaming: LLMStreamingResult) async throws -> LLMGenerationResult {
    for try await _ in streaming.stream {}
    return try await streaming.result.value
}

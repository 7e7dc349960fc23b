import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@Suite struct ConversationStoreTests {
    @Test func savesAndLoadsConversations() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        var conversation = Conversation(modelName: "SmolLM2", frameworkName: "llama.cpp")
        conversation.append(Message(role: .user, content: "What is the tallest mountain on Earth, and how tall is it exactly?\nThanks"))
        conversation.append(Message(role: .assistant, content: "Everest, 8849 m.", metadata: ["tokensUsed": "9"]))
        #expect(conversation.title == "What is the tallest mountain on Earth, and how tall is it...")
        try store.save(conversation)
        let loaded = try store.load(id: conversation.id)
        #expect(loaded.id == conversation.id && loaded.title == conversation.title && loaded.modelName == "SmolLM2")
        #expect(loaded.messages.map(\.content) == conversation.messages.map(\.content))
        #expect(loaded.messages.map(\.metadata) == conversation.messages.map(\.metadata))
        #expect(zip(loaded.messages, conversation.messages).allSatisfy { abs($0.timestamp.timeIntervalSince($1.timestamp)) < 0.001 }, "timestamps keep milliseconds")
        conversation.append(Message(role: .user, content: "And the second?"))
        try store.save(conversation)
        #expect(try store.load(id: conversation.id).messages.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == ["\(conversation.id).json"], "no temporary files are left")
        #expect((try #require(throws: SDKError.self) { try store.load(id: "missing") }).code == .fileNotFound)
        try Data("{".utf8).write(to: store.directory.appendingPathComponent("bad.json"))
        #expect((try #require(throws: SDKError.self) { try store.load(id: "bad") }).code == .modelStorageCorrupted)
    }
}

import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@Suite struct ConversationStoreTests {
    func conversation(_ title: String, updated: TimeInterval) -> Conversation {
        var conversation = Conversation(createdAt: Date(timeIntervalSince1970: updated))
        conversation.append(ChatMessage(role: .user, content: title, timestamp: Date(timeIntervalSince1970: updated)))
        conversation.append(
            ChatMessage(role: .assistant, content: "Answer to \(title)", timestamp: Date(timeIntervalSince1970: updated + 1)))
        return conversation
    }

    @Test func savesLoadsAndTitles() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        var chat = Conversation(modelName: "SmolLM2", frameworkName: "llama.cpp")
        chat.append(ChatMessage(role: .user, content: "What is the tallest mountain on Earth, and how tall is it exactly?\nThanks"))
        chat.append(ChatMessage(role: .assistant, content: "Everest, 8849 m.", thinkingContent: "Recall."))
        #expect(chat.title == "What is the tallest mountain on Earth, and how tall is it...")
        try store.save(chat)
        let loaded = try store.load(id: chat.id)
        #expect(loaded.id == chat.id && loaded.title == chat.title && loaded.modelName == "SmolLM2")
        #expect(loaded.messages.map(\.content) == chat.messages.map(\.content))
        #expect(loaded.messages.map(\.id) == chat.messages.map(\.id))
        #expect(loaded.messages[1].thinkingContent == "Recall.")
        #expect(
            zip(loaded.messages, chat.messages).allSatisfy { abs($0.timestamp.timeIntervalSince($1.timestamp)) < 0.001 },
            "timestamps keep milliseconds")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == ["\(chat.id).json"], "no temporary files are left")
    }

    @Test func listsNewestFirstSearchesRenamesAndDeletes() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        let old = conversation("Tell me about Paris", updated: 1000)
        let new = conversation("Café recipes", updated: 2000)
        try store.save(old)
        try store.save(new)
        #expect(store.list().conversations.map(\.id) == [new.id, old.id])
        #expect(store.search("PARIS").map(\.id) == [old.id])
        #expect(store.search("cafe").map(\.id) == [new.id], "accents and case are ignored")
        #expect(store.search("answer to").count == 2, "message text is searched too")
        #expect(store.search("nothing like this").isEmpty)
        let renamed = try store.rename(id: String(old.id.prefix(8)), to: "  Paris trip  ")
        #expect(renamed.title == "Paris trip")
        #expect(try store.load(id: old.id).title == "Paris trip")
        #expect((try #require(throws: SDKError.self) { try store.rename(id: old.id, to: " ") }).code == .invalidInput)
        for title in ["a\nb", "a\u{1B}[2Jb", "a\u{202E}b", String(repeating: "x", count: 201)] {
            #expect((try #require(throws: SDKError.self) { try store.rename(id: old.id, to: title) }).code == .invalidInput)
        }
        #expect(try store.rename(id: old.id, to: "👩‍👩‍👧 Ferien in Zürich").title == "👩‍👩‍👧 Ferien in Zürich", "joiners and letters stay")
        try store.rename(id: old.id, to: "Paris trip")
        try store.delete(id: new.id)
        #expect(store.list().conversations.map(\.id) == [old.id])
        #expect((try #require(throws: SDKError.self) { try store.load(id: new.id) }).code == .fileNotFound)
    }

    @Test func idsArePrefixesButNeverPaths() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        let a = Conversation(id: "AAAA1111-0000-0000-0000-000000000000")
        let b = Conversation(id: "AAAA2222-0000-0000-0000-000000000000")
        try store.save(a)
        try store.save(b)
        #expect(try store.resolve("aaaa1") == a.id)
        #expect((try #require(throws: SDKError.self) { try store.resolve("AAAA") }).message.contains("matches 2"))
        for bad in ["../etc/passwd", "a/b", "", "x y"] {
            #expect((try #require(throws: SDKError.self) { try store.load(id: bad) }).code == .invalidInput)
        }
    }

    @Test func corruptFilesAreMovedAsideAndTheOthersStillLoad() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        let good = conversation("Still here", updated: 10)
        try store.save(good)
        let bad = store.directory.appendingPathComponent("BAD00000-0000-0000-0000-000000000000.json")
        try Data("{ truncated".utf8).write(to: bad)
        let listing = store.list()
        #expect(listing.conversations.map(\.id) == [good.id])
        #expect(listing.movedAside.count == 1)
        #expect(listing.movedAside.first?.contains(".corrupt-") == true)
        #expect(try String(contentsOfFile: try #require(listing.movedAside.first), encoding: .utf8) == "{ truncated", "nothing is lost")
        try Data("{".utf8).write(to: bad)
        #expect(
            (try #require(throws: SDKError.self) { try store.load(id: "BAD00000-0000-0000-0000-000000000000") }).code
                == .modelStorageCorrupted)
    }

    @Test func concurrentWritersNeverTearAFile() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        let shared = conversation("Shared", updated: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    var copy = shared
                    copy.title = "Writer \(index)"
                    try store.save(copy)
                    try store.save(conversation("Own \(index)", updated: Double(index)))
                }
            }
            try await group.waitForAll()
        }
        let listing = store.list()
        #expect(listing.movedAside.isEmpty)
        #expect(listing.conversations.count == 25)
        #expect(try store.load(id: shared.id).title.hasPrefix("Writer "))
    }

    @Test func contextLeavesOutFailedAnswers() {
        var chat = Conversation()
        chat.append(ChatMessage(role: .user, content: "one"))
        chat.append(ChatMessage(role: .assistant, content: "1"))
        chat.append(ChatMessage(role: .user, content: "two"))
        chat.append(ChatMessage(role: .assistant, content: "", error: "boom"))
        chat.append(ChatMessage(role: .user, content: "three"))
        #expect(chat.contextMessages.map(\.content) == ["one", "1", "three"])
        #expect(chat.contextMessages[0].metadata?["messageId"] == chat.messages[0].id.uuidString)
    }

    /// An answer made with tools reads, in a later prompt, as each round's calls (together) with
    /// their results, then the answer; one stopped before it wrote text ends with the results.
    @Test func contextCarriesAnAnswersToolCallsByRound() {
        let call = { (name: String) in ToolCall(name: name, arguments: ["x": 1]) }
        let (a, b, c, d) = (call("a"), call("b"), call("c"), call("d"))
        let steps = [
            ToolRunStep(call: a, output: "A", round: 0), ToolRunStep(call: b, output: "B", round: 0),
            ToolRunStep(call: c, output: "C", round: 1), ToolRunStep(call: d, output: "D"),
        ]
        var chat = Conversation()
        chat.append(ChatMessage(role: .user, content: "go"))
        chat.append(ChatMessage(role: .assistant, content: "done", toolSteps: steps))
        let context = chat.contextMessages
        #expect(context.map(\.role) == [.user, .assistant, .tool, .tool, .assistant, .tool, .assistant, .tool, .assistant])
        #expect(context.map(\.toolCalls) == [[], [a, b], [], [], [c], [], [d], [], []])
        #expect(context.compactMap(\.toolCallId) == [a.id, b.id, c.id, d.id] && context.last?.content == "done")
        var stopped = Conversation()
        stopped.append(ChatMessage(role: .user, content: "go"))
        stopped.append(ChatMessage(role: .assistant, content: "", toolSteps: Array(steps.prefix(1))))
        #expect(stopped.contextMessages.map(\.role) == [.user, .assistant, .tool])
    }

    /// A chat saving in a store of a runtime whose model answers until it is stopped.
    static func chatAnsweringUntilStopped(name: String = #function) async throws -> (RunAnywhereRuntime, ConversationStore, ChatService) {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1), name: name)
        try await runtime.loadModel("scripted")
        let store = ConversationStore(dataDirectory: runtime.configuration.dataDirectory)
        return (runtime, store, ChatService(runtime: runtime, store: store, settings: GenerationSettings()))
    }

    /// A conversation deleted while an answer is being written stays deleted: the answer's end
    /// does not save it again, and the chat's next message is refused. A conversation given to
    /// a chat that the store does not hold yet is saved there by its first message.
    @Test func aConversationDeletedWhileAnsweredStaysDeleted() async throws {
        let (runtime, store, chat) = try await Self.chatAnsweringUntilStopped()
        let reply = try await chat.send("one two three")
        let id = await chat.conversation.id
        #expect(store.contains(id: id), "saved with its question")
        try store.delete(id: id)
        reply.message.cancel()
        let message = await reply.message.value
        #expect(message.analytics?.wasInterrupted == true)
        #expect(!store.contains(id: id), "the answer's end did not save it again")
        await #expect(throws: SDKError.self) { try await chat.send("again") }

        let given = ChatService(runtime: runtime, store: store, settings: GenerationSettings(), conversation: Conversation(title: "Given"))
        let first = try await given.send("hello")
        first.message.cancel()
        _ = await first.message.value
        let saved = try store.load(id: await given.conversation.id)
        #expect(saved.title == "Given" && saved.messages.map(\.role) == [.user, .assistant])
    }

    /// A conversation renamed while an answer is being written keeps its new title: the answer's
    /// end saves the answer and leaves the title as renamed; a title the chat gave it (from the
    /// first message) is saved as before.
    @Test func aConversationRenamedWhileAnsweredKeepsItsNewTitle() async throws {
        let (_, store, chat) = try await Self.chatAnsweringUntilStopped()
        let reply = try await chat.send("one two three")
        let id = await chat.conversation.id
        #expect(try store.load(id: id).title == "one two three", "titled by its first message")
        try store.rename(id: id, to: "Counting")
        reply.message.cancel()
        _ = await reply.message.value
        let saved = try store.load(id: id)
        #expect(saved.title == "Counting" && saved.messages.map(\.role) == [.user, .assistant], "\(saved.title)")
        let next = try await chat.send("four")
        next.message.cancel()
        _ = await next.message.value
        #expect(try store.load(id: id).title == "Counting", "and at every later save")
    }
}

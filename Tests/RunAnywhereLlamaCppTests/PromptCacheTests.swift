import Testing

@testable import RunAnywhereLlamaCpp

/// The rule that keeps cached generation identical to a fresh one: only whole chunks, evaluated
/// as chunks on the same thread count, are reused, and the prompt's last token is always evaluated.
@Suite struct PromptCacheTests {
    /// A cache that has evaluated `prompt` in chunks of 4 on 1 thread, as the engine does.
    func cache(after prompt: [Int32], generated: [Int32] = []) -> PromptCache {
        var cache = PromptCache(chunk: 4)
        cache.truncate(to: 0, threads: 1)
        for start in stride(from: 0, to: prompt.count, by: 4) {
            cache.appendChunk(Array(prompt[start..<min(start + 4, prompt.count)]))
        }
        generated.forEach { cache.appendGenerated($0) }
        return cache
    }

    @Test func anEmptyCacheReusesNothing() {
        #expect(PromptCache(chunk: 4).reusablePrefix(of: [1, 2, 3, 4, 5], threads: 1) == 0)
    }

    @Test func onlyWholeChunksAreReused() {
        let cache = cache(after: Array(1...10), generated: [11, 12])
        #expect(cache.count == 12)
        #expect(cache.reusablePrefix(of: Array(1...10), threads: 1) == 8, "the last, shorter chunk is evaluated again")
        #expect(cache.reusablePrefix(of: Array(1...12), threads: 1) == 8, "generated tokens are never reused")
        #expect(cache.reusablePrefix(of: Array(1...7) + [99, 100], threads: 1) == 4, "a chunk that differs anywhere is evaluated again")
        #expect(cache.reusablePrefix(of: [99] + Array(2...10), threads: 1) == 0)
    }

    @Test func thePromptsLastTokenIsAlwaysEvaluated() {
        let cache = cache(after: Array(1...8))
        #expect(cache.reusablePrefix(of: Array(1...8), threads: 1) == 4, "its whole last chunk is evaluated again")
        #expect(cache.reusablePrefix(of: Array(1...9), threads: 1) == 8)
        #expect(cache.reusablePrefix(of: Array(1...3), threads: 1) == 0)
    }

    @Test func anotherThreadCountReusesNothing() {
        var cache = cache(after: Array(1...10))
        #expect(cache.reusablePrefix(of: Array(1...10), threads: 2) == 0)
        cache.truncate(to: 8, threads: 2)
        #expect(cache.reusablePrefix(of: Array(1...10), threads: 2) == 0, "chunks evaluated on 1 thread are not reused on 2")
    }

    @Test func randomlySampledRequestsKeepTheWholeCommonPrefix() {
        var cache = cache(after: Array(1...10), generated: [11, 12])
        #expect(cache.commonPrefix(of: Array(1...12) + [20]) == 12, "generated tokens too")
        #expect(cache.commonPrefix(of: Array(1...12)) == 11, "the last token is always evaluated")
        #expect(cache.commonPrefix(of: [1, 2, 9]) == 2)
        #expect(cache.commonPrefix(of: []) == 0)
        // Keeping 6 tokens leaves one whole chunk reusable; what follows starts off the grid.
        cache.truncate(to: 6, threads: 1)
        cache.appendChunk([7, 8, 9, 10])
        #expect(cache.count == 10)
        #expect(cache.reusablePrefix(of: Array(1...12), threads: 1) == 4)
    }

    @Test func truncatingKeepsWholeChunksAndAChunkAfterAShortOneIsNotReusable() {
        var cache = cache(after: Array(1...10), generated: [11])
        cache.truncate(to: 4, threads: 1)
        #expect(cache.count == 4)
        cache.appendChunk([5, 6])
        cache.appendChunk([7, 8, 9, 10])
        #expect(cache.reusablePrefix(of: Array(1...12), threads: 1) == 4, "chunks after a shorter one start off the grid")
        cache.clear()
        #expect(cache.count == 0)
        #expect(cache.reusablePrefix(of: Array(1...12), threads: 1) == 0)
    }
}

/// Code to fill in between a prefix and a suffix (fill-in-the-middle), as a code editor asks
/// for a completion at the cursor: the model reads the text before it and after it, and writes
/// what goes between. Only a model trained for it (its vocabulary has
/// ``FillInTheMiddleTokens``: Qwen2.5-Coder, CodeLlama, StarCoder2, Granite Code, DeepSeek
/// Coder…) can; another refuses the request with ``ErrorCode/modelIncompatible``.
///
/// The prompt is written as llama-server's `/infill` writes it: the other files of the
/// project first (repository-level context, for a model with the repository and file-separator
/// tokens), then the prefix and the suffix between the model's markers. What does not fit the
/// context leaves room for the answer: the earliest files first, then the far ends of the
/// prefix and the suffix (three quarters of what is left for the prefix).
public struct Infill: Sendable, Equatable {
    /// Another file of the project, shown to the model as context.
    public struct File: Sendable, Equatable {
        /// Its path in the project, as the model sees it.
        public var path: String
        /// Its text.
        public var text: String

        /// A file of the project and its text.
        public init(path: String, text: String) {
            self.path = path
            self.text = text
        }
    }

    /// The text before the gap.
    public var prefix: String
    /// The text after the gap.
    public var suffix: String
    /// Other files of the project, the most relevant last (the first to go when the context is short).
    public var files: [File]
    /// The path of the file being edited; nil: llama-server's "filename".
    public var path: String?
    /// The project's name; nil: llama-server's "myproject".
    public var repository: String?

    /// A gap between `prefix` and `suffix` to fill, with `files` of the same project as context.
    public init(prefix: String, suffix: String, files: [File] = [], path: String? = nil, repository: String? = nil) {
        self.prefix = prefix
        self.suffix = suffix
        self.files = files
        self.path = path
        self.repository = repository
    }
}

extension Infill {
    /// The prompt's tokens in `tokenizer`'s vocabulary, fitted to leave `room` tokens of
    /// `contextLength` free for the answer (at most half of it): `[BOS]` where the model wants
    /// one; with files or a path, for a model with a file separator, `[REP]repository\n` (where it
    /// has that token), each file as `[SEP]path\ntext` and `[SEP]path\n` for this one; then
    /// `[PRE]prefix[SUF]suffix[MID]`. A model without a file separator sees each file after a
    /// `--- snippet ---` line. Also says whether anything was left out.
    package func tokens(
        in tokenizer: any TokenizerAdapter, marks: FillInTheMiddleTokens, contextLength: Int, room: Int
    ) throws -> (tokens: [Int32], trimmed: Bool) {
        func tokenize(_ text: String) throws -> [Int32] {
            try tokenizer.tokenize(text, addSpecial: false, parseSpecial: false)
        }
        let beginning = try tokenizer.tokenize("", addSpecial: true, parseSpecial: false)
        var prefix = try tokenize(self.prefix)
        var suffix = try tokenize(self.suffix)
        var repository: [Int32] = []
        var current: [Int32] = []
        let context: [[Int32]]
        if let separator = marks.fileSeparator, !(files.isEmpty && path == nil) {
            if let mark = marks.repository { repository = [mark] + (try tokenize((self.repository ?? "myproject") + "\n")) }
            context = try files.map { [separator] + (try tokenize($0.path + "\n" + $0.text)) }
            current = [separator] + (try tokenize((path ?? "filename") + "\n"))
        } else {
            context = try files.map { try tokenize("\n\n--- snippet ---\n\n" + $0.text) }
        }
        let budget = contextLength - min(max(room, 1), contextLength / 2)
        let fixed = beginning.count + repository.count + current.count + 3
        var left = budget - fixed - prefix.count - suffix.count
        var trimmed = false
        if left < 0 {
            let text = budget - fixed
            guard text > 0 else {
                throw SDKError.llm(
                    .contextTooLong,
                    "The infill needs \(fixed) tokens besides its prefix and suffix, but the model's context holds \(contextLength)")
            }
            let suffixTake = min(suffix.count, max(text / 4, text - prefix.count))
            prefix = Array(prefix.suffix(text - suffixTake))
            suffix = Array(suffix.prefix(suffixTake))
            left = 0
            trimmed = true
        }
        // Whole files, from the last (the most relevant) back.
        var kept = context.endIndex
        while kept > context.startIndex, context[kept - 1].count <= left {
            kept -= 1
            left -= context[kept].count
        }
        let shown = context[kept...].flatMap { $0 }
        let tokens = beginning + repository + shown + current + [marks.prefix] + prefix + [marks.suffix] + suffix + [marks.middle]
        return (tokens, trimmed || kept > context.startIndex)
    }
}

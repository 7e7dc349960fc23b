import Foundation

/// A document's text as a RAG collection stores it.
public struct DocumentText: Sendable, Equatable {
    /// The file, as an absolute path (or the name its bytes were read with).
    public let path: String
    /// What the file was read as.
    public let format: DocumentFormat
    /// The text: the file's own for plain text and Markdown, the text of its elements for HTML,
    /// its pages' text for PDF; line ends are `\n` in every case. Chunks' offsets count its Unicode scalars.
    public let text: String
    /// The file's size in bytes.
    public let size: Int
    /// The sha256 of the file's bytes, lowercase hex.
    public let sha256: String

    /// Creates a document's text.
    package init(path: String, format: DocumentFormat, text: String, size: Int, sha256: String) {
        self.path = path
        self.format = format
        self.text = text
        self.size = size
        self.sha256 = sha256
    }
}

/// Reads the files a RAG collection ingests: plain text, Markdown and HTML, in UTF-8 (a byte-order
/// mark is skipped), and PDF through ``pdf`` when there is one (else PDF is refused, saying how to
/// convert it). Office files are refused with a message saying to convert them first; a file with
/// NUL bytes or bytes that are not UTF-8 is refused as binary, and so is one larger than
/// ``maxFileSize``. Every refusal is an ``SDKError`` naming the file.
public struct DocumentReader: Sendable {
    /// The default largest file: 20 MiB.
    public static let defaultMaxFileSize = 20 << 20

    /// The largest file read, in bytes; a larger one is refused before it is read.
    public var maxFileSize: Int
    /// What reads PDF files' text; nil refuses PDF files. A ``RAGSession`` fills it with its
    /// runtime's registered reader (`FrameworkAdapterRegistry.pdfReader`) when it is nil.
    public var pdf: (any PDFTextReader)?

    /// Creates a reader of files up to `maxFileSize` bytes, reading PDF files with `pdf`.
    public init(maxFileSize: Int = DocumentReader.defaultMaxFileSize, pdf: (any PDFTextReader)? = nil) {
        self.maxFileSize = maxFileSize
        self.pdf = pdf
    }

    /// The formats read: every one, or all but PDF without a PDF reader.
    public var formats: [DocumentFormat] { DocumentFormat.allCases.filter { $0 != .pdf || pdf != nil } }

    /// Reads the file at `url`.
    public func read(_ url: URL) throws -> DocumentText {
        let path = url.standardizedFileURL.path
        let values: URLResourceValues
        do {
            values = try url.resourceValues(forKeys: [.isDirectoryKey, .fileSizeKey, .isRegularFileKey])
        } catch {
            throw SDKError.fileManagement(.fileNotFound, "Cannot read \(path): no such file")
        }
        guard values.isDirectory != true else { throw SDKError(.invalidInput, "\(path) is a folder, not a document") }
        guard values.isRegularFile == true else { throw SDKError(.invalidInput, "\(path) is not a regular file") }
        try Self.checkName(path)
        let size = values.fileSize ?? 0
        guard size <= maxFileSize else { throw Self.tooLarge(path, size: size, limit: maxFileSize) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(path): \(error.localizedDescription)")
        }
        return try read(data, path: path)
    }

    /// Reads a document's bytes, `data`, named `path` (a file's path, or an upload's name): its
    /// format is told by the name's extension, as for a file, and it is refused as a file would be.
    public func read(_ data: Data, path: String) throws -> DocumentText {
        try Self.checkName(path)
        guard data.count <= maxFileSize else { throw Self.tooLarge(path, size: data.count, limit: maxFileSize) }
        let sha256 = FileDigest.sha256(of: data)
        if data.starts(with: Array("%PDF-".utf8)) || DocumentFormat.of(URL(fileURLWithPath: path), head: "") == .pdf {
            return DocumentText(path: path, format: .pdf, text: try pdfText(data, path: path), size: data.count, sha256: sha256)
        }
        if let nul = data.firstIndex(of: 0) {
            throw SDKError(
                .invalidInput, "\(path) is not a text document: it has a NUL byte at byte \(nul - data.startIndex) (a binary file?)")
        }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard let decoded = String(validating: body, as: UTF8.self) else {
            throw SDKError(.invalidInput, "\(path) is not UTF-8 text: save it as UTF-8 (it may be a binary file or another encoding)")
        }
        let raw = Self.unifyingLineEnds(decoded)
        let format = DocumentFormat.of(URL(fileURLWithPath: path), head: raw.prefix(64))
        let text = format == .html ? HTMLText.text(of: raw) : raw
        guard text.contains(where: { !$0.isWhitespace }) else { throw SDKError(.emptyInput, "\(path) has no text to ingest") }
        return DocumentText(path: path, format: format, text: text, size: data.count, sha256: sha256)
    }

    /// The document files below the folder `url`, every level down, sorted by path: those whose
    /// extension is the extension of a format read (``formats``); hidden files and folders are
    /// left out.
    package func files(in url: URL) throws -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
            )
        else { throw SDKError.fileManagement(.fileReadFailed, "Cannot list the folder \(url.path)") }
        var files: [URL] = []
        let formats = formats
        for case let file as URL in enumerator where DocumentFormat.isDocumentFile(file, formats: formats) {
            let isFile = try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile
            if isFile == true { files.append(file.standardizedFileURL) }
            // A name that is not UTF-8 is listed with U+FFFD in place of its bad bytes, a name no file has.
            if isFile == nil, file.lastPathComponent.contains("\u{FFFD}"), !FileManager.default.fileExists(atPath: file.path) {
                throw SDKError(
                    .invalidInput, "\(file.path): this file's name is not UTF-8 (shown with \u{FFFD}), so it cannot be read: rename it")
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The text of the PDF `data` named `path`: its pages' text, trimmed, a blank line between
    /// pages (a page without text adds none), line ends `\n`.
    private func pdfText(_ data: Data, path: String) throws -> String {
        guard let pdf else {
            throw SDKError(
                .invalidInput,
                "\(path): PDF is not read here (no PDF reader is registered): convert it to text first, for example `pdftotext FILE.pdf`")
        }
        let pages = try pdf.pages(of: data, name: path).map { page in
            Self.unifyingLineEnds(page).replacingOccurrences(of: "\u{0C}", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let text = pages.filter { !$0.isEmpty }.joined(separator: "\n\n")
        guard !text.isEmpty else {
            throw SDKError(
                .emptyInput,
                "\(path) has no text to ingest: its \(pages.count) page(s) hold no text (a scanned PDF's pages are images: run OCR on it first)"
            )
        }
        return text
    }

    /// Throws for a name whose extension is a refused format's (Word, RTF…), saying what to do.
    private static func checkName(_ path: String) throws {
        if let reason = DocumentFormat.refused[URL(fileURLWithPath: path).pathExtension.lowercased()] {
            throw SDKError(.invalidInput, "\(path): \(reason)")
        }
    }

    private static func tooLarge(_ path: String, size: Int, limit: Int) -> SDKError {
        let bytes = { (count: Int) in ByteCountFormatter.string(fromByteCount: Int64(count), countStyle: .file) }
        return SDKError(.invalidInput, "\(path) is \(bytes(size)); documents larger than \(bytes(limit)) are refused")
    }

    /// `text` with every `\r\n` and lone `\r` made `\n`.
    static func unifyingLineEnds(_ text: String) -> String {
        guard text.unicodeScalars.contains("\r") else { return text }
        var out = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n", afterCR {
                afterCR = false
                continue
            }
            afterCR = scalar == "\r"
            out.append(afterCR ? "\n" : scalar)
        }
        return String(out)
    }
}

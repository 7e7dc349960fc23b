import Foundation

/// The kinds of document a RAG collection takes, and how a file's kind is told.
public enum DocumentFormat: String, Codable, Sendable, CaseIterable {
    /// Plain text, read as it is.
    case plainText = "text"
    /// Markdown, read as it is: its text with its markup, which language models read well, so
    /// that a passage's offsets are those of the file itself.
    case markdown
    /// HTML, turned into its text (its markup, scripts and styles left out).
    case html
    /// PDF, its pages' text as the registered ``PDFTextReader`` reads it, a blank line between
    /// pages.
    case pdf

    /// The file-name extensions of each format (lowercase, without the dot).
    static let extensions: [DocumentFormat: Set<String>] = [
        .plainText: ["txt", "text"],
        .markdown: ["md", "markdown", "mdown", "mkd", "mkdn"],
        .html: ["html", "htm", "xhtml"],
        .pdf: ["pdf"],
    ]

    /// Extensions of formats that are refused with a message saying what to do instead.
    static let refused: [String: String] = [
        "docx": "Word documents are not supported: save them as text, Markdown or HTML first",
        "doc": "Word documents are not supported: save them as text, Markdown or HTML first",
        "odt": "OpenDocument files are not supported: save them as text, Markdown or HTML first",
        "rtf": "RTF is not supported: save it as text, Markdown or HTML first",
        "epub": "EPUB is not supported: convert it to HTML or text first",
    ]

    /// The format of a file named `url` whose text starts with `head`: by its extension, else
    /// HTML when the text starts like an HTML page, else plain text.
    static func of(_ url: URL, head: Substring) -> DocumentFormat {
        let ext = url.pathExtension.lowercased()
        if let known = extensions.first(where: { $0.value.contains(ext) })?.key { return known }
        let start = head.drop { $0.isWhitespace }.prefix(15).lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html") ? .html : .plainText
    }

    /// Whether a folder's file named `url` is one `DocumentReader.files(in:)` picks: one of a
    /// format in `formats`.
    static func isDocumentFile(_ url: URL, formats: [DocumentFormat]) -> Bool {
        let ext = url.pathExtension.lowercased()
        return formats.contains { extensions[$0]?.contains(ext) == true }
    }
}

import Foundation

/// Reads the text of PDF files for RAG collections; the SDK reads text, Markdown and HTML itself.
/// A target of its own provides one (`RunAnywherePoppler`, on Poppler); register it with
/// ``RunAnywhere/registerPDFReader(_:)`` and RAG sessions made after that read PDFs.
public protocol PDFTextReader: Sendable {
    /// The text of each page of the PDF held in `data`, in reading order. Throws ``SDKError``
    /// (`.invalidInput`, naming the file as `name`) for a file it cannot read: damaged, not a PDF,
    /// or encrypted with a password.
    func pages(of data: Data, name: String) throws -> [String]
}

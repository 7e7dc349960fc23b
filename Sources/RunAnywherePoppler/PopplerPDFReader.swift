internal import CPoppler
import Foundation
import RunAnywhere
import Synchronization

/// Reads PDF files' text with Poppler (Debian's libpoppler-glib8, opened privately at run time
/// like the engines), page by page in reading order, as `pdftotext` does. Register it with
/// ``RunAnywhere/RunAnywhere/registerPDFReader(_:)``.
///
/// A separate product because Poppler is licensed under the GPL.
public struct PopplerPDFReader: PDFTextReader {
    private let candidates: [String]

    /// A reader that opens Poppler from `$RUNANYWHERE_POPPLER_LIB` (a file or a folder) when it is
    /// set, else from the engines cache's `poppler/lib` when it has one, else from the system's
    /// library path. Nothing is opened until the first PDF.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        candidates = EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_POPPLER_LIB", engine: "poppler", fileName: "libpoppler-glib",
            systemName: "libpoppler-glib.so.8",
            environment: environment
        )
    }

    /// The installed Poppler's version (e.g. "22.12.0"); throws when it cannot be opened.
    public func version() throws -> String {
        let api = try PopplerLibrary.load(candidates: candidates)
        return api.poppler_get_version().map { String(cString: $0) } ?? "unknown"
    }

    /// The text of each page of the PDF `data` (see ``RunAnywhere/PDFTextReader``).
    public func pages(of data: Data, name: String) throws -> [String] {
        guard !data.isEmpty else { throw SDKError(.emptyInput, "\(name) is empty") }
        let api = try PopplerLibrary.load(candidates: candidates)
        return try PopplerLibrary.serialized.withLock { _ in
            let bytes = data.withUnsafeBytes { api.g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { api.g_bytes_unref(bytes) }
            var error: UnsafeMutablePointer<GError>?
            guard let document = api.poppler_document_new_from_bytes(bytes, nil, &error) else {
                throw Self.refusal(api, error, name: name)
            }
            defer { api.g_object_unref(UnsafeMutableRawPointer(document)) }
            return try (0..<api.poppler_document_get_n_pages(document)).map { index in
                guard let page = api.poppler_document_get_page(document, index) else {
                    throw SDKError(.invalidInput, "\(name) could not be read as PDF: page \(index + 1) is damaged")
                }
                defer { api.g_object_unref(UnsafeMutableRawPointer(page)) }
                guard let text = api.poppler_page_get_text(page) else { return "" }
                defer { api.g_free(text) }
                return String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)), as: UTF8.self)
            }
        }
    }

    /// The error for a document Poppler did not open, freeing `error`.
    private static func refusal(_ api: ra_poppler_api, _ error: UnsafeMutablePointer<GError>?, name: String) -> SDKError {
        guard let error else { return SDKError(.invalidInput, "\(name) could not be read as PDF") }
        defer { api.g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        if error.pointee.domain == api.poppler_error_quark(), error.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) {
            return SDKError(.invalidInput, "\(name) is encrypted with a password: save an unprotected copy first")
        }
        return SDKError(.invalidInput, "\(name) could not be read as PDF: \(message)")
    }
}

/// Poppler's library, opened once per process.
enum PopplerLibrary {
    private static let libraries = EngineLibraryCache<ra_poppler_api>(engine: "Poppler", hint: "apt-get install libpoppler-glib8")

    /// One document at a time: Poppler's GLib binding shares global state between documents.
    static let serialized = Mutex(())

    /// The function table of the first library that exists among `candidates`.
    static func load(candidates: [String]) throws -> ra_poppler_api {
        try libraries.library(candidates: candidates, load: ra_poppler_api_load) { api, _ in api }
    }
}

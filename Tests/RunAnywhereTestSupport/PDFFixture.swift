import Foundation

/// Small PDF files written here for the tests: each page's lines set in Helvetica (one of PDF's
/// standard fonts, so nothing is embedded), as a PDF 1.4 file with its cross-reference table.
/// Generated, not made by a PDF producer, so they test the reading path on real PDF syntax as
/// the generated GGUF fixtures test the engines' paths; Poppler reads them as it reads any PDF.
package enum PDFFixture {
    /// A PDF of `pages`, each a list of lines (ASCII); a page without lines holds no text.
    package static func document(pages: [[String]]) -> Data {
        file(pages: pages, encrypt: nil)
    }

    /// A PDF of `pages` encrypted with the standard security handler (revision 2) under a user
    /// password that is not empty: a reader without the password cannot open it.
    package static func encrypted(pages: [[String]]) -> Data {
        // O and U as a tool would write them for passwords nobody here knows: the empty password
        // matches neither, which is all a reader checks before asking for one.
        let owner = String(repeating: "4f", count: 32)
        let user = String(repeating: "75", count: 32)
        return file(pages: pages, encrypt: "<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <\(owner)> /U <\(user)> >>")
    }

    private static func file(pages: [[String]], encrypt: String?) -> Data {
        let firstPage = 4
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [\(pages.indices.map { "\(firstPage + 2 * $0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        ]
        for (index, lines) in pages.enumerated() {
            let content = "BT /F1 12 Tf 16 TL 72 720 Td\n" + lines.map { "(\(escaped($0))) Tj T*\n" }.joined() + "ET"
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents \(firstPage + 2 * index + 1) 0 R >>"
            )
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        if let encrypt { objects.append(encrypt) }
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let table = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n" + offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
        let encryption =
            encrypt == nil
            ? "" : " /Encrypt \(objects.count) 0 R /ID [<\(String(repeating: "ab", count: 16))> <\(String(repeating: "ab", count: 16))>]"
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R\(encryption) >>\nstartxref\n\(table)\n%%EOF\n"
        return Data(text.utf8)
    }

    /// `line` as a PDF literal string's contents.
    private static func escaped(_ line: String) -> String {
        line.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(").replacingOccurrences(
            of: ")", with: "\\)")
    }
}

import Foundation

// Writes the OpenAPI document at the first argument as `OpenAPIDocument.json`, a Swift raw string
// literal, into the Swift file at the second (the OpenAPIDocumentEmbedder plugin's build command).
// The document must be UTF-8 JSON; its text is kept byte for byte.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: OpenAPIDocumentEmbed DOCUMENT.json OUTPUT.swift\n".utf8))
    exit(2)
}
let data: Data
do {
    data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    _ = try JSONSerialization.jsonObject(with: data)
} catch {
    FileHandle.standardError.write(Data("\(arguments[1]): not a readable JSON document: \(error)\n".utf8))
    exit(1)
}
let text = String(decoding: data, as: UTF8.self)
// One more `#` than the longest run after a quote or a backslash, so that nothing in the text
// closes the literal or reads as an escape.
var longest = 0
var run: Int?
for character in text {
    if character == "\"" || character == "\\" {
        run = 0
    } else if character == "#", let current = run {
        run = current + 1
        longest = max(longest, current + 1)
    } else {
        run = nil
    }
}
let hashes = String(repeating: "#", count: longest + 1)
let swift = """
    // Generated from openapi.json by the OpenAPIDocumentEmbedder plugin: edit that file, not this one.
    extension OpenAPIDocument {
        /// The document, as `openapi.json` holds it.
        static let json = \(hashes)\"\"\"
    \(text)
    \"\"\"\(hashes)
    }

    """
do {
    try Data(swift.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("\(arguments[2]): \(error)\n".utf8))
    exit(1)
}

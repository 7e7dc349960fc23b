import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Reading RAG documents: HTML to text, Markdown and text as they are, and every refusal.
struct DocumentReaderTests {
    func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    func expectRefusal(
        _ url: URL, _ fragment: String, reader: DocumentReader = DocumentReader(), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let document = try reader.read(url)
            Issue.record("read \(url.lastPathComponent) as \(document.format)", sourceLocation: sourceLocation)
        } catch let error as SDKError {
            #expect(
                error.message.contains(fragment) && error.message.contains(url.lastPathComponent), "\(error.message)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an SDKError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func htmlKeepsTheTextOfBlocksAndDropsScriptsAndStyles() {
        let html = """
            <!DOCTYPE html>
            <html><head><title>Cats &amp; Dogs</title>
            <style>p { color: red; } /* <p>not text</p> */</style>
            <script>if (a < b && c > d) { document.write("<p>no</p>"); }</script></head>
            <body><!-- a comment with <p>markup</p> -->
            <h1>Sleep</h1><p>Cats   sleep
              twelve hours.<br>Dogs sleep less.</p>
            <ul><li>One &lt;two&gt; &quot;three&quot;</li><li>caf&eacute; &#233; &#xE9; &#128049; &nbsp;end</li></ul>
            <div>Unclosed <b>bold<div>nested</div> 5 < 6 &unknown; &amp</div>
            <table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>
            <pre>
              keep   this
                spacing</pre>
            <template><p>never shown</p></template><svg><text>drawn</text></svg><SCRIPT type="x">hidden</SCRIPT >
            <p title="a > b">Last paragraph.</p>
            </body></html>
            """
        #expect(
            HTMLText.text(of: html) == """
                Cats & Dogs

                Sleep

                Cats sleep twelve hours.
                Dogs sleep less.

                One <two> "three"
                café é é 🐱 end

                Unclosed bold

                nested

                5 < 6 &unknown; &amp

                a b
                c

                  keep   this
                    spacing

                Last paragraph.
                """)
    }

    @Test func htmlThatIsNotWellFormedStillReads() {
        #expect(HTMLText.text(of: "") == "")
        #expect(HTMLText.text(of: "<") == "<")
        #expect(HTMLText.text(of: "a <b") == "a", "a tag cut off by the end is no text, as in a browser")
        #expect(HTMLText.text(of: "a < b <3 <=") == "a < b <3 <=")
        #expect(HTMLText.text(of: "<p>x</p><script>never closed") == "x")
        #expect(HTMLText.text(of: "<!-- never closed") == "")
        #expect(HTMLText.text(of: "x &#0; &#xD800; &#99999999; y") == "x \u{FFFD} \u{FFFD} \u{FFFD} y")
        #expect(HTMLText.text(of: "<p>a</p><p></p><p>b</p>") == "a\n\nb")
        #expect(HTMLText.text(of: "a<br><br>b<br>c") == "a\n\nb\nc")
    }

    @Test func readsTextMarkdownAndHTMLFiles() throws {
        try withFolder { folder in
            let markdown = folder.appendingPathComponent("guide.md")
            try Data("\u{FEFF}# Guide\r\n\r\nFirst *paragraph*.\r\nSecond line.\rThird.\n".utf8).write(to: markdown)
            let read = try DocumentReader().read(markdown)
            #expect(read.format == .markdown)
            #expect(
                read.text == "# Guide\n\nFirst *paragraph*.\nSecond line.\nThird.\n", "the file's text, line ends unified, the BOM skipped")
            #expect(read.path == markdown.standardizedFileURL.path && read.size == 54)
            #expect(read.sha256.count == 64)

            let page = folder.appendingPathComponent("page.HTM")
            try Data("<p>Hello &amp; welcome</p><p>Bye</p>".utf8).write(to: page)
            let html = try DocumentReader().read(page)
            #expect(html.format == .html && html.text == "Hello & welcome\n\nBye")

            // An unknown extension is text, or HTML when it starts like a page.
            let notes = folder.appendingPathComponent("notes.log")
            try Data("  <!doctype html><p>x</p>".utf8).write(to: notes)
            #expect(try DocumentReader().read(notes).format == .html)
            try Data("plain <p>".utf8).write(to: notes)
            #expect(try DocumentReader().read(notes).format == .plainText)
        }
    }

    @Test func refusesPDFBinaryLargeEmptyAndMissingFiles() throws {
        try withFolder { folder in
            let pdf = folder.appendingPathComponent("paper.pdf")
            try Data("%PDF-1.7\n...".utf8).write(to: pdf)
            expectRefusal(pdf, "PDF is not read here (no PDF reader is registered): convert it to text first")
            let disguised = folder.appendingPathComponent("paper.txt")
            try Data("%PDF-1.4 binary".utf8).write(to: disguised)
            expectRefusal(disguised, "PDF is not read here")
            let word = folder.appendingPathComponent("letter.docx")
            try Data("PK".utf8).write(to: word)
            expectRefusal(word, "Word documents are not supported")

            let binary = folder.appendingPathComponent("image.txt")
            try Data([0x41, 0x42, 0x00, 0x43]).write(to: binary)
            expectRefusal(binary, "NUL byte at byte 2")
            let latin1 = folder.appendingPathComponent("latin1.txt")
            try Data([0x63, 0x61, 0x66, 0xE9]).write(to: latin1)
            expectRefusal(latin1, "is not UTF-8 text")

            let large = folder.appendingPathComponent("large.txt")
            try Data(String(repeating: "word ", count: 400).utf8).write(to: large)
            expectRefusal(large, "larger than", reader: DocumentReader(maxFileSize: 1000))
            #expect(try DocumentReader(maxFileSize: 2000).read(large).size == 2000)

            let empty = folder.appendingPathComponent("empty.md")
            try Data(" \n\t\n".utf8).write(to: empty)
            expectRefusal(empty, "has no text")
            let emptyPage = folder.appendingPathComponent("empty.html")
            try Data("<script>only()</script>".utf8).write(to: emptyPage)
            expectRefusal(emptyPage, "has no text")

            expectRefusal(folder.appendingPathComponent("missing.txt"), "no such file")
            let sub = folder.appendingPathComponent("sub")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            expectRefusal(sub, "is a folder")
        }
    }

    @Test func aFolderListsItsDocumentFiles() throws {
        try withFolder { folder in
            for name in ["b.md", "a.txt", "deep/c.html", ".hidden.md", "image.png", ".git/d.txt"] {
                let url = folder.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("x".utf8).write(to: url)
            }
            let files = try DocumentReader().files(in: folder).map { String($0.path.dropFirst(folder.standardizedFileURL.path.count + 1)) }
            #expect(files == ["a.txt", "b.md", "deep/c.html"])
        }
    }
}

/// The text of an HTML page, as a RAG collection stores it: the text of its elements, with a
/// blank line between block elements (paragraphs, headings, list blocks, tables, sections…), a
/// line break for `<br>`, list items, table rows and definition terms, a space between table
/// cells; runs of spaces and line breaks inside text made one space, except in `<pre>`; character
/// references decoded (numeric ones, and the names of HTML 4 and `&apos;`). Scripts, styles,
/// templates, inline SVG, comments and the doctype are left out. A small reader in the manner of a
/// browser's: malformed markup (unclosed tags, a stray `<`) never fails, it only reads as text.
package enum HTMLText {
    /// Elements whose content is not markup, to the next `</name`: dropped.
    private static let rawDropped: Set<String> = ["script", "style", "iframe", "noembed", "noframes"]
    /// Elements whose content is not markup but text (references decoded): kept.
    private static let rawKept: Set<String> = ["title", "textarea", "xmp"]
    /// Elements dropped with everything inside them.
    private static let dropped: Set<String> = ["template", "svg"]
    /// Elements set apart by a blank line.
    private static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "body", "caption", "center", "details", "dialog", "dir", "div", "dl", "fieldset",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "legend",
        "listing", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "title", "ul",
    ]
    /// Elements that start on a line of their own.
    private static let lines: Set<String> = ["br", "li", "dt", "dd", "tr", "option"]
    /// Elements set apart by a space.
    private static let cells: Set<String> = ["td", "th"]

    /// The text of `html`.
    package static func text(of html: String) -> String {
        let scalars = Array(html.unicodeScalars)
        var text = TextBuilder()
        var dropping: [String] = []  // the dropped elements open, innermost last
        var preformatted = 0
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let tag = Tag.parse(scalars, at: index) {
                index = tag.end
                if let name = dropping.last {
                    if tag.isEnd, tag.name == name {
                        dropping.removeLast()
                    } else if !tag.isEnd, !tag.selfClosing, tag.name == name {
                        dropping.append(name)
                    }
                    continue
                }
                guard let name = tag.name else { continue }  // a comment, a doctype, a processing instruction
                if !tag.isEnd, dropped.contains(name), !tag.selfClosing {
                    dropping.append(name)
                    continue
                }
                if !tag.isEnd, rawDropped.contains(name) || rawKept.contains(name) {
                    let contentEnd = Tag.closing(name, in: scalars, from: index)
                    if rawKept.contains(name) {
                        text.paragraph()
                        append(scalars, index..<contentEnd, to: &text, preformatted: false)
                        text.paragraph()
                    }
                    index = contentEnd < scalars.count ? (Tag.parse(scalars, at: contentEnd)?.end ?? contentEnd) : contentEnd
                    continue
                }
                if blocks.contains(name) { text.paragraph() } else if lines.contains(name) { text.lineBreak(accumulating: name == "br") }
                if cells.contains(name) { text.space() }
                if name == "pre" {
                    preformatted = max(0, preformatted + (tag.isEnd ? -1 : 1))
                    // A line break right after <pre> is not part of its text.
                    if !tag.isEnd, index < scalars.count, scalars[index] == "\n" { index += 1 }
                }
                continue
            }
            let end = scalars[(index + 1)...].firstIndex(of: "<") ?? scalars.count
            if dropping.isEmpty { append(scalars, index..<end, to: &text, preformatted: preformatted > 0) }
            index = end
        }
        return text.finished
    }

    /// Appends the text `scalars[range]`, its references decoded.
    private static func append(_ scalars: [Unicode.Scalar], _ range: Range<Int>, to text: inout TextBuilder, preformatted: Bool) {
        var index = range.lowerBound
        while index < range.upperBound {
            if scalars[index] == "&", let reference = HTMLEntities.reference(in: scalars, at: index), reference.end <= range.upperBound {
                text.append(reference.scalar == "\u{A0}" ? " " : reference.scalar, preformatted: preformatted)
                index = reference.end
            } else {
                text.append(scalars[index], preformatted: preformatted)
                index += 1
            }
        }
    }
}

/// One piece of markup: a start or end tag (with its lowercase name), or something with no name
/// (a comment, a doctype, a processing instruction).
private struct Tag {
    let name: String?
    let isEnd: Bool
    let selfClosing: Bool
    /// The index after its `>`.
    let end: Int

    /// The markup starting at `scalars[start]` (a `<`); nil when it is no markup but a literal `<`.
    static func parse(_ scalars: [Unicode.Scalar], at start: Int) -> Tag? {
        var index = start + 1
        guard index < scalars.count else { return nil }
        switch scalars[index] {
        case "!":
            if scalars[index...].starts(with: Array("!--".unicodeScalars)) {
                let close = Array("-->".unicodeScalars)
                var scan = index + 3
                while scan < scalars.count, !scalars[scan...].starts(with: close) { scan += 1 }
                return Tag(name: nil, isEnd: false, selfClosing: false, end: min(scan + 3, scalars.count))
            }
            return Tag(name: nil, isEnd: false, selfClosing: false, end: after(">", in: scalars, from: index))
        case "?":
            return Tag(name: nil, isEnd: false, selfClosing: false, end: after(">", in: scalars, from: index))
        default:
            break
        }
        let isEnd = scalars[index] == "/"
        if isEnd { index += 1 }
        guard index < scalars.count, scalars[index].isASCII, scalars[index].properties.isAlphabetic else { return nil }
        let nameStart = index
        while index < scalars.count, !scalars[index].properties.isWhitespace, scalars[index] != "/", scalars[index] != ">" { index += 1 }
        let name = String(String.UnicodeScalarView(scalars[nameStart..<index])).lowercased()
        // Attributes, to the `>` outside quotes.
        var quote: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == ">" {
                break
            }
            index += 1
        }
        let selfClosing = index > nameStart && index < scalars.count && scalars[index - 1] == "/"
        return Tag(name: name, isEnd: isEnd, selfClosing: selfClosing, end: min(index + 1, scalars.count))
    }

    /// The index of the `</name` that closes a raw-text element whose content starts at `start`, or
    /// the end of the text.
    static func closing(_ name: String, in scalars: [Unicode.Scalar], from start: Int) -> Int {
        let target = Array("</\(name)".unicodeScalars)
        var index = start
        while index + target.count <= scalars.count {
            if scalars[index] == "<",
                zip(scalars[index..<(index + target.count)], target).allSatisfy({ $0.properties.lowercaseMapping == String($1) })
            {
                let next = index + target.count
                if next == scalars.count || scalars[next] == ">" || scalars[next] == "/" || scalars[next].properties.isWhitespace {
                    return index
                }
            }
            index += 1
        }
        return scalars.count
    }

    /// The index after the next `what` at or after `start`, or the end of the text.
    private static func after(_ what: Unicode.Scalar, in scalars: [Unicode.Scalar], from start: Int) -> Int {
        (scalars[start...].firstIndex(of: what) ?? scalars.count - 1) + 1
    }
}

/// The text being written: breaks and spaces are held until text follows them, so that none
/// starts or ends it and several in a row make one.
private struct TextBuilder {
    private var out = String.UnicodeScalarView()
    /// 0: none, 1: a line break, 2: a blank line.
    private var pendingBreak = 0
    private var pendingSpace = false

    mutating func append(_ scalar: Unicode.Scalar, preformatted: Bool) {
        if !preformatted, scalar.properties.isWhitespace {
            pendingSpace = true
            return
        }
        if !out.isEmpty {
            if pendingBreak > 0 {
                while let last = out.last, last.properties.isWhitespace { out.removeLast() }
                out.append(contentsOf: pendingBreak == 2 ? "\n\n".unicodeScalars : "\n".unicodeScalars)
            } else if pendingSpace, out.last.map({ !$0.properties.isWhitespace }) ?? false {
                out.append(" ")
            }
        }
        pendingBreak = 0
        pendingSpace = false
        out.append(scalar)
    }

    mutating func paragraph() { pendingBreak = 2 }

    /// A line break; with `accumulating` (`<br>`), a second one in a row makes a blank line.
    mutating func lineBreak(accumulating: Bool) { pendingBreak = accumulating ? min(2, pendingBreak + 1) : max(pendingBreak, 1) }

    mutating func space() { pendingSpace = true }

    var finished: String {
        var text = out
        while let last = text.last, last.properties.isWhitespace { text.removeLast() }
        return String(text)
    }
}

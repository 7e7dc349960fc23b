import Foundation
import RunAnywhere
import Testing

/// The ordered JSON value: parsing (keys in order, escapes, errors), writing and literals.
struct JSONValueTests {
    @Test func parsingKeepsKeysInOrderAndWritesThemBack() throws {
        let text = #"{"zeta":1,"alpha":[true,false,null],"mid":{"b":"x","a":-2.5e3},"s":"a\"b\\c\n\u00e9\ud83d\ude00"}"#
        let value = try JSONValue(parsing: text)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "mid", "s"])
        #expect(value["mid"]?.objectValue?.keys == ["b", "a"])
        #expect(value["mid"]?["a"]?.numberValue == -2500)
        #expect(value["s"]?.stringValue == "a\"b\\c\né😀")
        #expect(try JSONValue(parsing: value.text) == value)
        #expect(value.text.hasPrefix(#"{"zeta":1,"alpha":[true,false,null],"mid":{"b":"x","a":-2500}"#))
        let literal: JSONValue = ["type": "object", "properties": ["b": ["type": "string"], "a": ["type": "integer"]]]
        #expect(literal["properties"]?.objectValue?.keys == ["b", "a"])
        #expect(try JSONValue(parsing: " [ 1 , 2 ]\n") == [1, 2])
    }

    @Test func malformedTextSaysWhere() {
        let cases: [(String, String)] = [
            ("", "ends where a value should be"), ("{", "expected a key"), (#"{"a" 1}"#, "expected ':'"), ("[1,]", "unexpected character"),
            ("01", "unexpected text after"), (#""a"#, "not closed"), (#""\q""#, "unknown escape"), (#""\ud800""#, "lone surrogate"),
            ("1.", "no digits after the decimal point"), ("tru", "expected true"), ("[1] 2", "unexpected text after"),
            (String(repeating: "[", count: 300), "nested more than 256 deep"), ("\"a\u{01}\"", "control character"),
        ]
        for (text, fragment) in cases {
            let error = #expect(throws: SDKError.self, "\(text)") { try JSONValue(parsing: text) }
            #expect(error?.code == .invalidInput && error?.message.contains(fragment) == true, "\(text): \(error?.message ?? "")")
        }
    }
}

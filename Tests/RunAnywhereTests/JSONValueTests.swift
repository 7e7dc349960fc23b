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

    /// Small and large objects (those are indexed) read, replace, remove and add keys alike: order
    /// kept, a repeated key's last value in its first place.
    @Test func objectsOfManyKeysKeepOrderAndTheLastValue() throws {
        for count in [3, 16, 17, 40_000] {
            let keys = (0..<count).map { "k\($0)" }
            let text = "{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + ",\"k0\":2}"
            var object = try #require(try JSONValue(parsing: text).objectValue)
            #expect(object.keys == keys && object["k0"] == 2 && object[keys[count - 1]] == 1 && object["nope"] == nil, "\(count)")
            object["k1"] = nil
            object["k0"] = 3
            object["new"] = "x"
            #expect(object.keys == [keys[0]] + keys.dropFirst(2) + ["new"], "\(count)")
            #expect(object["k0"] == 3 && object["k1"] == nil && object["new"] == "x" && object[keys[count - 1]] == 1, "\(count)")
            #expect(object == JSONObject(object.members.map { ($0.key, $0.value) }))
        }
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

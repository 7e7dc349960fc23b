import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The whisper.cpp model check on generated files: a tiny file with tiny.en's header, every
/// header field damaged in turn, and every truncation point.
@Suite struct WhisperGGMLReaderTests {
    /// tiny.en's header with one layer each (51864 tokens, width 384, 6 heads, 80 mel bins,
    /// float16), a mel filter bank, `tokens` vocabulary entries and the 50 tensors of one encoder
    /// and one decoder layer (small ones); `header` overrides fields by index.
    static func file(
        header overrides: [Int: Int32] = [:], tokens: Int = 300, tokenLength: UInt32? = nil, tensorType: UInt32 = 1, firstWidth: Int = 384
    ) -> Data {
        var data = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
        u32(0x6767_6D6C)
        var header: [Int32] = [51864, 1500, 384, 6, 1, 448, 384, 6, 1, 80, 1]
        for (index, value) in overrides { header[index] = value }
        header.forEach(i32)
        i32(header[9])
        i32(201)
        data.append(Data(count: Int(header[9]) * 201 * 4))
        i32(Int32(tokens))
        for index in 0..<tokens {
            let token = Data("t\(index)".utf8)
            u32(tokenLength ?? UInt32(token.count))
            data.append(token)
        }
        for (name, shape) in (0..<50).map({ ("tensor.\($0)", $0 == 0 ? [firstWidth, 64] : [384]) }) {
            i32(Int32(shape.count))
            i32(Int32(name.utf8.count))
            u32(tensorType)
            shape.forEach { i32(Int32($0)) }
            data.append(Data(name.utf8))
            data.append(Data(count: max(0, shape.reduce(1, *)) * (tensorType == 0 ? 4 : 2)))
        }
        return data
    }

    static func fields(_ parameters: WhisperGGMLReader.Hyperparameters) -> [Int] {
        [
            parameters.vocabularySize, parameters.state, parameters.audioLayers, parameters.textLayers, parameters.melBins,
            parameters.tensorCount,
        ]
    }

    @Test func readsAValidHeader() throws {
        let parameters = try WhisperGGMLReader.parse(Self.file(), name: "tiny.bin")
        #expect(Self.fields(parameters) == [51864, 384, 1, 1, 80, 50])
    }

    @Test func refusesEveryDamagedHeaderField() {
        let cases: [(String, Data, String)] = [
            ("vocabulary", Self.file(header: [0: 1 << 30]), "a vocabulary of"),
            ("audio positions", Self.file(header: [1: 150_000]), "audio and 448 text positions"),
            ("width", Self.file(header: [2: 385]), "encoder width 385"),
            ("heads", Self.file(header: [3: 7]), "heads for a width"),
            ("layers", Self.file(header: [4: 40_000]), "encoder and 1 decoder layers"),
            ("tensor count", Self.file(header: [8: 2]), "holds 50 tensors, not the 74"),
            ("text positions", Self.file(header: [5: -1]), "1500 audio and -1 text positions"),
            ("mel bins", Self.file(header: [9: 81]), "81 mel bins"),
            ("file type", Self.file(header: [10: 5]), "file type 5"),
            ("too many tokens", Self.file(tokens: 51_900), "vocabulary entries"),
            ("a huge token", Self.file(tokenLength: 0x7FFF_FFFF), "is 2147483647 bytes long"),
            ("tensor type", Self.file(tensorType: 99), "does not fit in the file"),
            ("negative dimension", Self.file(firstWidth: -384), "tensor tensor.0 has the shape"),
        ]
        for (field, data, fragment) in cases {
            do {
                _ = try WhisperGGMLReader.parse(data, name: "bad.bin")
                Issue.record("\(field): accepted")
            } catch let error as SDKError {
                #expect(error.code == .invalidModelFormat && error.message.contains(fragment), "\(field): \(error.message)")
            } catch {
                Issue.record("\(field): \(error)")
            }
        }
        #expect(throws: SDKError.self) { try WhisperGGMLReader.parse(Data("GGUF".utf8) + Self.file().dropFirst(4), name: "gguf.bin") }
    }

    @Test func refusesEveryTruncation() {
        let data = Self.file()
        for length in stride(from: 0, to: data.count, by: 61) {
            #expect(throws: SDKError.self, "\(length) bytes") { try WhisperGGMLReader.parse(data.prefix(length), name: "cut.bin") }
        }
    }

    @Test(.enabled(if: TestEnvironment.speechInstalled, "needs the speech models of scripts/setup --build"))
    func acceptsTheInstalledModel() throws {
        let file = TestEnvironment.installedModelsDirectory.appendingPathComponent("whisper-tiny.en/ggml-tiny.en.bin")
        let parameters = try WhisperGGMLReader.validate(file)
        #expect(Self.fields(parameters) == [51864, 384, 4, 4, 80, 167])
    }
}

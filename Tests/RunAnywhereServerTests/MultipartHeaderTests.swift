import Foundation
import Hummingbird
import Testing

@testable import RunAnywhereServer

/// What a form's part headers say, as clients write them: file names plain, quoted with
/// escapes, or in RFC 5987's extended form (UTF-8 or ISO-8859-1), and each part's name. (The
/// names shown in errors are checked through the transcription route: TranscriptionRouteTests.)
@Suite struct MultipartHeaderTests {
    @Test(arguments: [
        (#"form-data; name="file"; filename="notes.wav""#, "notes.wav"),
        (#"form-data; name="file"; filename="a\"b\\c.wav""#, #"a"b\c.wav"#),
        (#"form-data; name="file"; filename=bare.wav"#, "bare.wav"),
        (#"form-data; name="file"; filename="x.wav"; filename*=UTF-8''%C3%A9t%C3%A9.wav"#, "été.wav"),
        (#"form-data; name="file"; filename*=ISO-8859-1''%E9t%E9.wav"#, "été.wav"),
        // Not UTF-8, or not an escape: the plain name, if any.
        (#"form-data; name="file"; filename="plain.wav"; filename*=UTF-8''%FF%FE.wav"#, "plain.wav"),
        (#"form-data; name="file"; filename="plain.wav"; filename*=UTF-8''%G1.wav"#, "plain.wav"),
    ])
    func fileNamesAreReadAsClientsWriteThem(header: String, name: String) {
        #expect(UploadedFile.filename(inDisposition: header) == name)
    }

    @Test func partsAreNamedFromTheirHeaders() {
        let body =
            "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\nabc\r\n--b\r\n"
            + "Content-Disposition: form-data; name=\"files[]\"\r\n\r\n1\r\n--b\r\nContent-Type: text/plain\r\n\r\nz\r\n--b--\r\n"
        let (names, closed, notUTF8) = multipartParts(of: ByteBuffer(string: body), boundary: "b")
        #expect(names == ["file", "files[]", nil] && closed && notUTF8 == nil)
        // A file name in Latin-1 (é as one byte) in the second part's headers; the file's own bytes are no header.
        var latin = ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n\u{FF}x\r\n--b\r\n")
        latin.writeBytes(
            Array("Content-Disposition: form-data; name=\"file\"; filename=\"caf".utf8) + [0xE9] + Array(".wav\"\r\n\r\n".utf8))
        latin.writeBytes([0xFF, 0xFE, 0x0D, 0x0A] + Array("--b--\r\n".utf8))
        let parts = multipartParts(of: latin, boundary: "b")
        #expect(parts.names == ["model", nil] && parts.notUTF8 == 1)
    }
}

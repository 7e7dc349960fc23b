import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The web app that `runanywhere serve` serves, in Debian's Chromium driven headless through
/// selenium (`Tests/clients/web_app_check.py`), against the real engine and default model.
/// Screenshots of every screen go to `.build/screenshots/web-app/`.
@Suite(.serialized, .enabled(if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
                             "needs llama.cpp, the default model, the venv and Chromium: run scripts/setup"))
struct WebAppTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("clients")
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/screenshots/web-app")

    @Test func chatInTheBrowser() throws {
        let (status, output) = try CLIServeTests.python(Self.clients.appendingPathComponent("web_app_check.py"), [
            "--binary", CLIRunner.binary.path, "--model", RunAnywhere.defaultModelID, "--screenshots", Self.screenshots.path,
        ])
        #expect(status == 0, "\(output)")
    }
}

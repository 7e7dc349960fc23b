import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The web app that `runanywhere serve` serves, in Debian's Chromium driven headless through
/// selenium (`Tests/clients/web_app_check.py` for Chat and Chat Details,
/// `web_app_screens_check.py` for Models, Settings, Voice and Vision, `web_app_realtime_check.py`
/// for the Voice page's live conversation,
/// `web_app_benchmarks_check.py` for the Benchmarks dashboard, `web_app_telemetry_check.py`
/// for the Telemetry page), against the real engines
/// and default models. Screenshots of every screen go to `.build/screenshots/web-app/`.
@Suite(
    .alone, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.speechInstalled && TestEnvironment.venvPython != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
        "needs llama.cpp, the speech engines, the default models, the venv and Chromium: run scripts/setup --tests --build tests"))
struct WebAppTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "clients")
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent(".build/screenshots/web-app")

    @Test func chatInTheBrowser() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("tea.pdf")  // generated: PDFFixture
        try PDFFixture.document(pages: [["Green tea", "Brew green tea with water at 70 to 80 degrees Celsius."]]).write(to: pdf)
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_check.py"),
            [
                "--binary", CLIRunner.binary.path, "--model", RunAnywhere.defaultModelID, "--pdf", pdf.path, "--screenshots",
                Self.screenshots.path,
            ])
        #expect(status == 0, "\(output)")
    }

    /// Adding a model from a URL (inline validation), its download from a loopback server with
    /// progress, cancel and resume, GGUF metadata and deletion; settings and the environment
    /// switcher; a WAV transcribed, a spoken reply played, a voice turn; the Vision page's reason.
    @Test func modelsSettingsVoiceAndVisionInTheBrowser() throws {
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_screens_check.py"),
            [
                "--binary", CLIRunner.binary.path, "--screenshots", Self.screenshots.path,
            ])
        #expect(status == 0, "\(output)")
    }

    /// The Voice page's live conversation on /v1/realtime, with Chromium's fake microphone playing
    /// a spoken question: its words in the transcript, an answer, and the answer's audio played.
    @Test func aSpokenConversationInTheBrowser() throws {
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_realtime_check.py"),
            ["--binary", CLIRunner.binary.path, "--screenshots", Self.screenshots.path])
        #expect(status == 0, "\(output)")
    }

    /// The Benchmarks dashboard: spec benchmarks.md's tests T1 to T11, T13, T14, T17, T18 and T20
    /// (Run Selected, Run All with the page left and reloaded, Cancel, a run's page, Copy Report,
    /// JSON and CSV files, Save to exports, persistence across a restart, Clear All, no models).
    @Test func benchmarksInTheBrowser() throws {
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_benchmarks_check.py"),
            [
                "--binary", CLIRunner.binary.path, "--screenshots", Self.screenshots.path,
            ])
        #expect(status == 0, "\(output)")
    }

    /// A page on another origin can neither drive nor read the server (a `text/plain` chat
    /// completion, a read, a preflighted write), nor can a page that reached it by a rebound DNS
    /// name; the web app on its own origin still works.
    @Test func aForeignPageCanNeitherDriveNorReadTheServer() throws {
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_origin_check.py"),
            [
                "--binary", CLIRunner.binary.path, "--screenshots", Self.screenshots.path, "--model", RunAnywhere.defaultModelID,
            ])
        #expect(status == 0, "\(output)")
    }

    /// The Telemetry page: empty, then runs posted to the server's /telemetry, their groups, a
    /// regression, the charts and a group's runs; a bad payload refused naming its field.
    @Test func telemetryInTheBrowser() throws {
        let (status, output) = try CLIServeTests.python(
            Self.clients.appendingPathComponent("web_app_telemetry_check.py"),
            [
                "--binary", CLIRunner.binary.path, "--screenshots", Self.screenshots.path,
            ])
        #expect(status == 0, "\(output)")
    }
}

/// How the engines get onto a machine: one command, the same for the CLI and for an app that
/// depends on the package. The package builds without them (its C loaders declare the engine
/// functions they call); the engines are shared libraries opened at run time, and a missing one
/// makes its framework unavailable with a message that names this command.
package enum EngineInstallation {
    /// The command that installs the engines and the default models under `$RUNANYWHERE_HOME`
    /// (by default `~/.cache/runanywhere`), run in RunAnywhere's checkout.
    package static let command = "scripts/setup"

    /// Where an app finds that command: RunAnywhere's checkout, which SwiftPM puts under the
    /// app's `.build/checkouts/` for a dependency by URL.
    package static let instructions =
        "install the engines with `\(command)` in RunAnywhere's checkout (an app's is under .build/checkouts/; see docs/swift-api.md, \"Installing the engines\")"
}

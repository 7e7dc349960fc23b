import Hummingbird
import RunAnywhere

/// `GET /api/system`: the device, its hardware, every framework's availability with its
/// reason, each kind of work with the frameworks that do it here (or why none does), and the
/// SDK's folders: what `runanywhere info --json` prints, for the web app's Settings and Vision pages.
struct SystemRoutes: Sendable {
    let runtime: RunAnywhereRuntime

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/system") { _, _ in try jsonResponse(try runtime.systemInfo()) }
    }
}

import Foundation

/// Where an engine's shared library is looked for: an environment variable naming a file or a
/// folder, then the engines cache that scripts/setup fills, then the system's library path.
package enum EngineLibraryLocator {
    /// Candidate paths, best first. `fileName` matches the library's file in a folder (a prefix
    /// such as "libwhisper", since wheels rename libraries with hashes).
    package static func candidates(
        environmentVariable: String, engine: String, fileName: String, systemName: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var paths: [String] = []
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            paths.append(library(in: explicit, fileName: fileName) ?? explicit)
        }
        let cache = RuntimeConfiguration.homeDirectory(environment: environment).appendingPathComponent("engines/\(engine)/lib").path
        if let found = library(in: cache, fileName: fileName) { paths.append(found) }
        paths.append(systemName)
        return paths
    }

    /// The first candidate that exists (a bare name is left to the dynamic loader).
    package static func first(of candidates: [String]) -> String {
        candidates.first { !$0.contains("/") || FileManager.default.fileExists(atPath: $0) } ?? candidates.last ?? ""
    }

    private static func library(in path: String, fileName: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        let match = names.first { $0 == "\(fileName).so" } ?? names.first { $0.hasPrefix(fileName) && $0.contains(".so") }
        return match.map { "\(path)/\($0)" }
    }
}

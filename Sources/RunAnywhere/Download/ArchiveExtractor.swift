import Foundation
import ZIPFoundation

/// Extracts downloaded model archives into a folder, refusing any entry that would land outside
/// it (`../`, absolute paths, links pointing out). Extraction happens in a staging folder that
/// is only moved into place once every entry passed.
enum ArchiveExtractor {
    static func extract(_ archive: URL, type: ArchiveType, into destination: URL) throws {
        let staging = destination.deletingLastPathComponent().appendingPathComponent(".extract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        switch type {
        case .zip: try extractZip(archive, into: staging)
        case .tarGz, .tarBz2, .tarXz: try extractTar(archive, type: type, into: staging)
        }
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: staging.path) {
            let target = destination.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: staging.appendingPathComponent(name), to: target)
        }
    }

    /// Whether `path`, relative to the extraction folder, stays inside it.
    static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\0") else { return false }
        var depth = 0
        for component in path.split(separator: "/") {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 { return false }
        }
        return true
    }

    private static func refuse(_ entry: String, in archive: URL) -> SDKError {
        SDKError.fileManagement(
            .invalidModelFormat, "\(archive.lastPathComponent) has an entry that would land outside the model folder: \(entry)")
    }

    private static func extractZip(_ archive: URL, into staging: URL) throws {
        let zip: Archive
        do {
            zip = try Archive(url: archive, accessMode: .read)
        } catch {
            throw SDKError.fileManagement(.invalidModelFormat, "\(archive.lastPathComponent) is not a readable zip archive")
        }
        for entry in zip {
            guard isSafe(entry.path), entry.type != .symlink else { throw refuse(entry.path, in: archive) }
        }
        do {
            for entry in zip {
                _ = try zip.extract(entry, to: staging.appendingPathComponent(entry.path))
            }
        } catch {
            if StorageFull.caused(error) { throw SDKError.writeFailed("Cannot extract \(archive.lastPathComponent)", error) }
            throw SDKError.fileManagement(.invalidModelFormat, "\(archive.lastPathComponent) could not be extracted: \(error)")
        }
    }

    private static func extractTar(_ archive: URL, type: ArchiveType, into staging: URL) throws {
        let flag =
            switch type {
            case .tarGz: "-z"
            case .tarBz2: "-j"
            default: "-J"
            }
        let listing = try run(["-t", flag, "-v", "-f", archive.path], archive: archive)
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { continue }
            let kind = fields[0].first
            let rest = fields[5...].joined(separator: " ")
            if kind == "l" || kind == "h" {
                let parts = rest.components(separatedBy: kind == "l" ? " -> " : " link to ")
                guard parts.count == 2, isSafe(parts[0]) else { throw refuse(rest, in: archive) }
                let target =
                    parts[1].hasPrefix("/")
                    ? parts[1] : ((parts[0] as NSString).deletingLastPathComponent as NSString).appendingPathComponent(parts[1])
                guard isSafe(target) else { throw refuse(rest, in: archive) }
            } else if !isSafe(rest) {
                throw refuse(rest, in: archive)
            }
        }
        _ = try run(["-x", flag, "--no-same-owner", "--no-same-permissions", "-f", archive.path, "-C", staging.path], archive: archive)
    }

    private static func run(_ arguments: [String], archive: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tar"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw SDKError.fileManagement(
                .fileReadFailed, "Cannot run tar to extract \(archive.lastPathComponent): \(error.localizedDescription)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SDKError.fileManagement(
                .invalidModelFormat,
                "\(archive.lastPathComponent) could not be extracted: \(problem.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return text
    }
}

import Foundation
import RunAnywhere

/// Memory around a model load: the system's available memory, and this process's peak resident
/// set (reset first through /proc/self/clear_refs where the kernel allows it).
struct MemoryProbe {
    private let availableBefore: Int64
    private let residentBefore: Int64

    /// Starts measuring.
    static func start() -> MemoryProbe {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            try? handle.write(contentsOf: Data("5".utf8))  // 5: reset the peak RSS to the current RSS
            try? handle.close()
        }
        return MemoryProbe(availableBefore: HardwareProfile.availableMemory(), residentBefore: status("VmRSS") ?? 0)
    }

    /// Memory the load consumed, from the system's available memory (nil if it did not drop).
    func availableDelta() -> Int64? {
        let delta = availableBefore - HardwareProfile.availableMemory()
        return delta > 0 ? delta : nil
    }

    /// Growth of the process's peak resident memory since ``start()``.
    func peakResidentDelta() -> Int64? {
        guard let peak = Self.status("VmHWM") else { return nil }
        return max(0, peak - residentBefore)
    }

    private static func status(_ key: String) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int64(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "").map {
                $0 * 1024
            }
        }
        return nil
    }
}

/// The median and range of repeated measurements.
struct Spread {
    let median: Double
    let min: Double
    let max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        median = sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds from this instant to now.
    var millisecondsElapsed: Double { (ContinuousClock.now - self).inSeconds * 1000 }
}

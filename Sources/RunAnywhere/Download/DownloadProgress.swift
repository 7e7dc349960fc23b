import Foundation

/// Where a download is.
public enum DownloadState: Sendable, Equatable {
    /// Bytes are arriving.
    case downloading
    /// An archive is being unpacked.
    case extracting
    /// The downloaded files' checksums are being compared.
    case verifying
    /// The files are in place and checked.
    case completed
    /// The download stopped with this error; nothing half-written is left as the model.
    case failed(SDKError)
}

/// A download's progress: bytes, speed and time left. Bytes and percentage never go down.
public struct DownloadProgress: Sendable, Equatable {
    /// The model being downloaded.
    public let modelId: String
    /// Bytes on disk so far (a resumed download starts from what it had).
    public let bytesDownloaded: Int64
    /// All bytes, when the server says.
    public let totalBytes: Int64?
    /// Bytes per second, smoothed over the last seconds.
    public let speed: Double?
    /// Seconds left at the current speed.
    public let estimatedTimeRemaining: TimeInterval?
    /// The state.
    public let state: DownloadState

    /// 0 to 1; 1 once completed.
    public var percentage: Double {
        if state == .completed { return 1 }
        guard let totalBytes, totalBytes > 0 else { return 0 }
        return min(1, Double(bytesDownloaded) / Double(totalBytes))
    }

    /// Creates a progress report.
    package init(
        modelId: String, bytesDownloaded: Int64, totalBytes: Int64?, speed: Double?, estimatedTimeRemaining: TimeInterval?,
        state: DownloadState
    ) {
        self.modelId = modelId
        self.bytesDownloaded = bytesDownloaded
        self.totalBytes = totalBytes
        self.speed = speed
        self.estimatedTimeRemaining = estimatedTimeRemaining
        self.state = state
    }
}

/// Turns byte counts into progress reports: speed as an exponential moving average over
/// quarter-second windows, ETA from it, monotonic bytes, and at most one report per 100 ms.
struct ProgressMeter {
    let modelId: String
    private(set) var total: Int64?
    private var reported: Int64 = 0
    private var speed: Double?
    private var windowStart = ContinuousClock.now
    private var windowBytes: Int64 = 0
    private var lastReport: ContinuousClock.Instant?

    init(modelId: String) { self.modelId = modelId }

    mutating func setTotal(_ total: Int64?) { self.total = total }

    /// Records that `done` bytes are on disk; returns a report when one is due.
    mutating func update(done: Int64) -> DownloadProgress? {
        let now = ContinuousClock.now
        if done > reported {
            windowBytes += done - reported
            reported = done
        }
        let window = (now - windowStart).inSeconds
        if window >= 0.25 {
            let current = Double(windowBytes) / window
            speed = speed.map { 0.7 * $0 + 0.3 * current } ?? current
            windowStart = now
            windowBytes = 0
        }
        if let lastReport, (now - lastReport).inSeconds < 0.1 { return nil }
        lastReport = now
        return report(.downloading)
    }

    /// A report in `state` at the current numbers.
    func report(_ state: DownloadState) -> DownloadProgress {
        let remaining = total.map { max(0, $0 - reported) }
        var eta: TimeInterval?
        if let remaining, let speed, speed > 0 { eta = Double(remaining) / speed }
        return DownloadProgress(
            modelId: modelId, bytesDownloaded: reported, totalBytes: total, speed: speed, estimatedTimeRemaining: eta, state: state)
    }
}

import Foundation
import RunAnywhere

extension BenchmarkDeviceInfo {
    /// This machine: DMI product name (else host name), CPU model, memory and OS as `detector`
    /// reads them, versions.
    package static func fromSystem(appVersion: String, detector: any HardwareDetector = SystemHardwareDetector()) -> BenchmarkDeviceInfo {
        let hardware = detector.profile(accelerators: [])
        let product = (try? String(contentsOfFile: "/sys/class/dmi/id/product_name", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let unhelpful: Set = ["", "None", "To Be Filled By O.E.M.", "System Product Name", "Default string"]
        return BenchmarkDeviceInfo(
            modelName: product.flatMap { unhelpful.contains($0) ? nil : $0 } ?? ProcessInfo.processInfo.hostName,
            chipName: hardware.cpuModel,
            totalMemoryBytes: hardware.totalMemoryBytes,
            availableMemoryBytes: hardware.availableMemoryBytes,
            osVersion: hardware.operatingSystem,
            appVersion: appVersion,
            sdkVersion: RunAnywhere.version
        )
    }
}

import Foundation

/// What the payload says about the machine, read from Linux's own files under `root` (the real
/// root unless a test points it at a folder of its own): the device model from DMI, the thermal
/// state from the thermal zones' trip points, and the battery's charge. (The OS comes from
/// ``HardwareProfile``.)
package struct SystemProbe: Sendable {
    /// The folder that stands for `/`.
    package let root: URL

    /// A probe of the machine it runs on, or of the tree under `root`.
    package init(root: URL = URL(fileURLWithPath: "/")) {
        self.root = root
    }

    /// The DMI vendor and product name ("LENOVO 20XW00K4US"), the device-tree model on boards
    /// without DMI, or "unknown".
    package func deviceModel() -> String {
        let vendor = read("sys/class/dmi/id/sys_vendor")
        let product = read("sys/class/dmi/id/product_name")
        if let product {
            guard let vendor, !product.lowercased().hasPrefix(vendor.lowercased()) else { return product }
            return "\(vendor) \(product)"
        }
        return read("proc/device-tree/model")?.trimmingCharacters(in: CharacterSet(charactersIn: "\0")) ?? "unknown"
    }

    /// The hottest thermal zone against its own trip points, in the seed's terms: at or past a
    /// critical trip "critical", a hot trip "serious", a passive (throttling) or active (fan)
    /// trip "fair", below them all "nominal"; "unknown" without a zone that has a temperature
    /// and a trip point.
    package func thermalState() -> String {
        let zones = folders("sys/class/thermal").filter { $0.hasPrefix("thermal_zone") }
        var worst: Int?
        for zone in zones {
            guard let temperature = read("sys/class/thermal/\(zone)/temp").flatMap(Int.init) else { continue }
            var level: Int?
            for trip in 0..<32 {
                guard let type = read("sys/class/thermal/\(zone)/trip_point_\(trip)_type"),
                    let limit = read("sys/class/thermal/\(zone)/trip_point_\(trip)_temp").flatMap(Int.init)
                else { break }
                guard limit > 0 else { continue }  // a disabled trip point
                let reached: Int
                switch type {
                case "critical": reached = temperature >= limit ? 3 : 0
                case "hot": reached = temperature >= limit ? 2 : 0
                case "passive", "active": reached = temperature >= limit ? 1 : 0
                default: continue
                }
                level = max(level ?? 0, reached)
            }
            if let level { worst = max(worst ?? 0, level) }
        }
        guard let worst else { return "unknown" }
        return ["nominal", "fair", "serious", "critical"][worst]
    }

    /// The charge of the system's batteries in percent (their energy added up when there are
    /// several), or nil when there is none.
    package func batteryPercent() -> Double? {
        var now = 0.0
        var full = 0.0
        var capacities: [Double] = []
        for supply in folders("sys/class/power_supply") where read("sys/class/power_supply/\(supply)/type") == "Battery" {
            if read("sys/class/power_supply/\(supply)/scope") == "Device" { continue }  // a mouse's or keyboard's battery
            let base = "sys/class/power_supply/\(supply)/"
            if let energy = (read(base + "energy_now") ?? read(base + "charge_now")).flatMap(Double.init),
                let capacity = (read(base + "energy_full") ?? read(base + "charge_full")).flatMap(Double.init), capacity > 0
            {
                now += energy
                full += capacity
            } else if let percent = read(base + "capacity").flatMap(Double.init) {
                capacities.append(percent)
            }
        }
        if full > 0 { return 100 * now / full }
        return capacities.isEmpty ? nil : capacities.reduce(0, +) / Double(capacities.count)
    }

    private func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    private func folders(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(path).path)) ?? []).sorted()
    }
}

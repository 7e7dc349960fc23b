import Foundation
import RunAnywhereBenchRunner
import RunAnywhereTestSupport
import Testing

/// The probe reads a tree laid out like Linux's /sys (this machine has no thermal zone, battery
/// or DMI table, so the tree is written by the test in the kernel's formats).
@Suite struct SystemProbeTests {
    private func tree(_ files: [String: String]) throws -> URL {
        let root = try TestEnvironment.temporaryDirectory("sysfs")
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (content + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    private func zone(_ name: String, temperature: Int, trips: [(String, Int)]) -> [String: String] {
        var files = ["sys/class/thermal/\(name)/temp": "\(temperature)"]
        for (index, trip) in trips.enumerated() {
            files["sys/class/thermal/\(name)/trip_point_\(index)_type"] = trip.0
            files["sys/class/thermal/\(name)/trip_point_\(index)_temp"] = "\(trip.1)"
        }
        return files
    }

    @Test func thermalStatesFollowTheHottestZonesTripPoints() throws {
        let trips = [("passive", 80000), ("hot", 95000), ("critical", 105000)]
        for (temperature, state) in [(45000, "nominal"), (81000, "fair"), (96000, "serious"), (106000, "critical")] {
            let root = try tree(
                zone("thermal_zone0", temperature: 40000, trips: trips).merging(
                    zone("thermal_zone3", temperature: temperature, trips: trips)
                ) { $1 })
            #expect(SystemProbe(root: root).thermalState() == state)
        }
        // A zone without trip points (or with disabled ones) says nothing; no zone at all is unknown.
        let untripped = try tree(zone("thermal_zone0", temperature: 99000, trips: [("critical", 0)]))
        #expect(SystemProbe(root: untripped).thermalState() == "unknown")
        #expect(SystemProbe(root: try tree([:])).thermalState() == "unknown")
    }

    @Test func batteriesAddUpTheirEnergyAndPeripheralsDoNotCount() throws {
        let root = try tree([
            "sys/class/power_supply/BAT0/type": "Battery", "sys/class/power_supply/BAT0/energy_now": "30000000",
            "sys/class/power_supply/BAT0/energy_full": "50000000",
            "sys/class/power_supply/BAT1/type": "Battery", "sys/class/power_supply/BAT1/charge_now": "1000000",
            "sys/class/power_supply/BAT1/charge_full": "2000000",
            "sys/class/power_supply/AC/type": "Mains",
            "sys/class/power_supply/hidpp_battery_0/type": "Battery", "sys/class/power_supply/hidpp_battery_0/scope": "Device",
            "sys/class/power_supply/hidpp_battery_0/capacity": "5",
        ])
        #expect(try #require(SystemProbe(root: root).batteryPercent()) == 100 * 31_000_000 / 52_000_000)
        let capacityOnly = try tree(["sys/class/power_supply/battery/type": "Battery", "sys/class/power_supply/battery/capacity": "64"])
        #expect(SystemProbe(root: capacityOnly).batteryPercent() == 64)
        #expect(SystemProbe(root: try tree(["sys/class/power_supply/AC/type": "Mains"])).batteryPercent() == nil)
    }

    @Test func theDeviceModelComesFromDMIOrTheDeviceTree() throws {
        let dmi = try tree(["sys/class/dmi/id/sys_vendor": "LENOVO", "sys/class/dmi/id/product_name": "20XW00K4US"])
        #expect(SystemProbe(root: dmi).deviceModel() == "LENOVO 20XW00K4US")
        let named = try tree([
            "sys/class/dmi/id/sys_vendor": "QEMU", "sys/class/dmi/id/product_name": "QEMU Standard PC (i440FX + PIIX, 1996)",
        ])
        #expect(SystemProbe(root: named).deviceModel() == "QEMU Standard PC (i440FX + PIIX, 1996)")
        let board = try tree(["proc/device-tree/model": "Raspberry Pi 5 Model B Rev 1.0\0"])
        #expect(SystemProbe(root: board).deviceModel() == "Raspberry Pi 5 Model B Rev 1.0")
        #expect(SystemProbe(root: try tree([:])).deviceModel() == "unknown")
    }
}

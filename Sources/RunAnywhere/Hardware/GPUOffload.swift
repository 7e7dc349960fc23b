/// Where a model's layers go: how many of them a GPU takes, and why. The rule of the SDK's
/// engines: the whole model on the GPU when it fits in the device's free memory, as many layers
/// as fit when it does not, the CPU when there is no GPU; a requested count overrides it (0
/// means the CPU).
package struct GPUOffload: Sendable, Equatable {
    /// Layers to place on the GPU (0: all on the CPU).
    package let layers: Int
    /// The GPU that takes them, when any does.
    package let device: Accelerator?
    /// Why, for the log.
    package let reason: String

    /// Memory kept free on the device beyond the model and its context (compute buffers, the
    /// driver's own): 5 % of the device and at least 256 MiB.
    static func reserve(of device: Accelerator) -> Int64 {
        max(256 << 20, (device.memoryBytes ?? 0) / 20)
    }

    /// The plan for a model of `layerCount` layers taking `modelBytes` (weights) and
    /// `contextBytes` (KV cache) among `accelerators`; `requested` overrides the automatic
    /// choice (nil: automatic; 0: the CPU; more than the model has: all of them).
    package static func plan(requested: Int?, layerCount: Int, modelBytes: Int64, contextBytes: Int64, accelerators: [Accelerator])
        -> GPUOffload
    {
        // A GPU driver on the CPU is listed only when picked by hand, so it is used then; a
        // hardware GPU beside it comes first.
        let device = accelerators.filter { $0.available && $0.takesLayers }.max {
            ($0.isGPU ? 1 : 0, $0.freeMemoryBytes ?? 0) < ($1.isGPU ? 1 : 0, $1.freeMemoryBytes ?? 0)
        }
        if let requested {
            guard requested > 0 else { return GPUOffload(layers: 0, device: nil, reason: "the CPU was asked for (0 GPU layers)") }
            guard let device else {
                let why = accelerators.filter { !$0.available && $0.kind != .cpu }.map { "\($0.backend): \($0.reason ?? "unavailable")" }
                let detail = why.isEmpty ? "" : " (\(why.joined(separator: "; ")))"
                return GPUOffload(
                    layers: 0, device: nil,
                    reason: "\(requested) GPU layers were asked for, but no GPU is available\(detail); running on the CPU")
            }
            let layers = min(requested, layerCount)
            return GPUOffload(layers: layers, device: device, reason: "\(layers) of \(layerCount) layers on \(device.name), as asked")
        }
        guard let device else { return GPUOffload(layers: 0, device: nil, reason: "no GPU is available") }
        guard layerCount > 0, modelBytes > 0 else {
            return GPUOffload(layers: 0, device: nil, reason: "the model's layer count or size is unknown, so it stays on the CPU")
        }
        let free = (device.freeMemoryBytes ?? 0) - reserve(of: device)
        // The sizes come from the model file's header: saturating, so a damaged one cannot overflow.
        if free >= modelBytes.saturatingAdd(contextBytes) {
            return GPUOffload(layers: layerCount, device: device, reason: "the whole model fits in \(device.name)'s free memory")
        }
        let perLayer = max(1, modelBytes / Int64(layerCount))
        let layers = Int(max(0, min(Int64(layerCount), free.saturatingSubtract(contextBytes) / perLayer)))
        guard layers > 0 else { return GPUOffload(layers: 0, device: nil, reason: "not one layer fits in \(device.name)'s free memory") }
        return GPUOffload(layers: layers, device: device, reason: "\(layers) of \(layerCount) layers fit in \(device.name)'s free memory")
    }
}

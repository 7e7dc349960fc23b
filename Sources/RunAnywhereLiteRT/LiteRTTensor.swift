internal import CLiteRt
import RunAnywhere

/// A tensor in host memory that LiteRT reads or writes in place (64-byte aligned, as LiteRT asks).
package final class LiteRTTensor {
    let buffer: ra_litert_tensor_buffer
    private let memory: UnsafeMutableRawPointer
    private let count: Int
    private let library: LiteRTLibrary

    init(type: ra_litert_ranked_tensor_type, count: Int, library: LiteRTLibrary) throws {
        let size = count * MemoryLayout<Float>.stride
        memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Int(RA_LITERT_HOST_ALIGNMENT))
        var type = type
        var buffer: ra_litert_tensor_buffer?
        let status = library.api.LiteRtCreateTensorBufferFromHostMemory(&type, memory, size, nil, &buffer)
        guard status == 0, let buffer else {
            memory.deallocate()
            throw SDKError(.generationFailed, "LiteRT could not wrap a tensor's memory: \(LiteRTLibrary.describe(status))")
        }
        self.buffer = buffer
        self.count = count
        self.library = library
    }

    deinit {
        library.api.LiteRtDestroyTensorBuffer(buffer)
        memory.deallocate()
    }

    func write(_ values: [Float]) {
        values.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    func read() -> [Float] {
        Array(UnsafeBufferPointer(start: memory.assumingMemoryBound(to: Float.self), count: count))
    }
}

internal import COnnxRuntime
import Foundation
import RunAnywhere

/// A float tensor: its values in row-major order and its shape.
package struct OnnxTensor: Sendable, Equatable {
    /// The values, row-major.
    package let values: [Float]
    /// The size of each dimension.
    package let shape: [Int]

    /// A tensor of `values` with `shape`; their counts must agree.
    package init(values: [Float], shape: [Int]) throws {
        guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }), shape.reduce(1, *) == values.count else {
            throw SDKError(.invalidInput, "A tensor of shape \(shape) cannot hold \(values.count) values")
        }
        self.values = values
        self.shape = shape
    }
}

/// An ONNX model loaded into ONNX Runtime (CPU) with one float input and one float output,
/// run one input at a time. Not shared between tasks: each caller makes its own session.
package final class OnnxRuntimeSession {
    /// The ONNX Runtime version that runs the model, e.g. "1.28.2".
    package let runtimeVersion: String
    private let library: OnnxRuntimeLibrary
    private let environment: OpaquePointer
    private let session: OpaquePointer
    private let memory: OpaquePointer
    private let inputName: String
    private let outputName: String

    /// Loads the serialized ONNX `model` whose input and output are named `inputName` and
    /// `outputName`, running on `threads` CPU threads.
    package init(model: Data, inputName: String, outputName: String, threads: Int) throws {
        guard !model.isEmpty else { throw SDKError(.invalidInput, "The ONNX model is empty") }
        let library = try OnnxRuntimeLibrary.load()
        let api = library.api
        var environment: OpaquePointer?
        try library.check(api.CreateEnv(RA_ORT_LOGGING_ERROR, "runanywhere", &environment), "start")
        guard let environment else { throw SDKError(.generationFailed, "ONNX Runtime started no environment") }
        var options: OpaquePointer?
        var session: OpaquePointer?
        var memory: OpaquePointer?
        do {
            try library.check(api.CreateSessionOptions(&options), "create session options")
            guard let options else { throw SDKError(.generationFailed, "ONNX Runtime created no session options") }
            defer { api.ReleaseSessionOptions(options) }
            // Callers keep threads to 1...512; a larger count is clamped to what C takes, never trapped on.
            try library.check(api.SetIntraOpNumThreads(options, Int32(clamping: max(1, threads))), "set the thread count")
            try library.check(api.SetInterOpNumThreads(options, 1), "set the thread count")
            try library.check(api.SetSessionGraphOptimizationLevel(options, RA_ORT_ENABLE_ALL), "set the optimization level")
            try model.withUnsafeBytes { bytes in
                try library.check(
                    api.CreateSessionFromArray(environment, bytes.baseAddress!, bytes.count, options, &session), "load the model")
            }
            try library.check(api.CreateCpuMemoryInfo(RA_ORT_ARENA_ALLOCATOR, RA_ORT_MEM_TYPE_DEFAULT, &memory), "describe CPU memory")
        } catch {
            if let session { api.ReleaseSession(session) }
            api.ReleaseEnv(environment)
            throw error
        }
        guard let session, let memory else { throw SDKError(.generationFailed, "ONNX Runtime created no session") }
        self.library = library
        self.runtimeVersion = library.version
        self.environment = environment
        self.session = session
        self.memory = memory
        self.inputName = inputName
        self.outputName = outputName
    }

    deinit {
        library.api.ReleaseMemoryInfo(memory)
        library.api.ReleaseSession(session)
        library.api.ReleaseEnv(environment)
    }

    /// Runs the model on `input` and returns its output.
    package func run(_ input: OnnxTensor) throws -> OnnxTensor {
        let api = library.api
        let shape = input.shape.map(Int64.init)
        var value: OpaquePointer?
        try input.values.withUnsafeBufferPointer { values in
            // ONNX Runtime reads the input in place and never writes it.
            let data = UnsafeMutableRawPointer(mutating: values.baseAddress!)
            try library.check(
                api.CreateTensorWithDataAsOrtValue(
                    memory, data, values.count * MemoryLayout<Float>.stride, shape, shape.count, RA_ORT_FLOAT, &value),
                "wrap the input of shape \(input.shape)"
            )
        }
        guard let value else { throw SDKError(.generationFailed, "ONNX Runtime made no input tensor") }
        defer { api.ReleaseValue(value) }
        var output: OpaquePointer?
        try inputName.withCString { inputName in
            try outputName.withCString { outputName in
                var inputNames: [UnsafePointer<CChar>] = [inputName]
                var outputNames: [UnsafePointer<CChar>] = [outputName]
                var inputs: [OpaquePointer?] = [value]
                try library.check(api.Run(session, nil, &inputNames, &inputs, 1, &outputNames, 1, &output), "run the model")
            }
        }
        guard let output else { throw SDKError(.generationFailed, "ONNX Runtime returned no output") }
        defer { api.ReleaseValue(output) }
        return try read(output)
    }

    private func read(_ output: OpaquePointer) throws -> OnnxTensor {
        let api = library.api
        var info: OpaquePointer?
        try library.check(api.GetTensorTypeAndShape(output, &info), "read the output's shape")
        guard let info else { throw SDKError(.generationFailed, "ONNX Runtime gave no output shape") }
        defer { api.ReleaseTensorTypeAndShapeInfo(info) }
        var rank = 0
        var count = 0
        try library.check(api.GetDimensionsCount(info, &rank), "read the output's rank")
        var dimensions = [Int64](repeating: 0, count: rank)
        try library.check(api.GetDimensions(info, &dimensions, rank), "read the output's dimensions")
        try library.check(api.GetTensorShapeElementCount(info, &count), "count the output's values")
        var data: UnsafeMutableRawPointer?
        try library.check(api.GetTensorMutableData(output, &data), "read the output")
        guard let data else { throw SDKError(.generationFailed, "ONNX Runtime gave no output data") }
        let values = Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
        return try OnnxTensor(values: values, shape: dimensions.map { Int($0) })
    }
}

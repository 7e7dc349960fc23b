internal import CLiteRt
import Foundation
import RunAnywhere

/// A TensorFlow Lite model compiled by LiteRT for the CPU (XNNPACK), with one float input and
/// one float output in its first signature, run one input at a time. Inputs are prepared once
/// with ``makeInput(_:)`` (LiteRT reads them in place); each run copies the output out. Not
/// shared between tasks: each caller makes its own model.
package final class LiteRTModel {
    /// The input's shape, from the model.
    package let inputShape: [Int]
    /// The output's shape, from the model.
    package let outputShape: [Int]
    private let library: LiteRTLibrary
    private let environment: ra_litert_environment
    private let model: ra_litert_model
    private let options: ra_litert_options
    private let compiled: ra_litert_compiled_model
    private let inputType: ra_litert_ranked_tensor_type
    private let output: LiteRTTensor
    /// The flatbuffer LiteRT reads from: it must outlive the model.
    private let flatbuffer: UnsafeMutableRawBufferPointer

    /// Loads the serialized TensorFlow Lite `model` (a flatbuffer) and compiles it for
    /// `threads` CPU threads.
    package init(model data: Data, threads: Int) throws {
        guard !data.isEmpty else { throw SDKError(.invalidInput, "The TensorFlow Lite model is empty") }
        let library = try LiteRTLibrary.load()
        let api = library.api
        var environment: ra_litert_environment?
        try library.check(api.LiteRtCreateEnvironment(0, nil, &environment), "create an environment")
        guard let environment else { throw SDKError(.generationFailed, "LiteRT created no environment") }
        var model: ra_litert_model?
        var options: ra_litert_options?
        var compiled: ra_litert_compiled_model?
        // LiteRT reads the model in place for as long as it lives, so it gets a copy of its own.
        let flatbuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: Int(RA_LITERT_HOST_ALIGNMENT))
        flatbuffer.copyBytes(from: data)
        do {
            try library.check(
                api.LiteRtCreateModelFromBuffer(environment, flatbuffer.baseAddress!, flatbuffer.count, &model), "read the model")
            guard let model else { throw SDKError(.generationFailed, "LiteRT read no model") }
            let (input, output) = try Self.signatureTensors(of: model, api: api, library: library)
            try library.check(api.LiteRtCreateOptions(&options), "create compilation options")
            guard let options else { throw SDKError(.generationFailed, "LiteRT created no options") }
            try library.check(api.LiteRtSetOptionsHardwareAccelerators(options, RA_LITERT_ACCELERATOR_CPU), "choose the CPU")
            try Self.addThreads(threads, to: options, api: api, library: library)
            try library.check(api.LiteRtCreateCompiledModel(environment, model, options, &compiled), "compile the model for the CPU")
            guard let compiled else { throw SDKError(.generationFailed, "LiteRT compiled no model") }
            self.inputType = input
            self.inputShape = Self.shape(of: input)
            self.outputShape = Self.shape(of: output)
            self.output = try LiteRTTensor(type: output, count: outputShape.reduce(1, *), library: library)
            self.compiled = compiled
            self.options = options
            self.model = model
        } catch {
            if let compiled { api.LiteRtDestroyCompiledModel(compiled) }
            if let options { api.LiteRtDestroyOptions(options) }
            if let model { api.LiteRtDestroyModel(model) }
            api.LiteRtDestroyEnvironment(environment)
            flatbuffer.deallocate()
            throw error
        }
        self.flatbuffer = flatbuffer
        self.library = library
        self.environment = environment
    }

    deinit {
        let api = library.api
        api.LiteRtDestroyCompiledModel(compiled)
        api.LiteRtDestroyOptions(options)
        api.LiteRtDestroyModel(model)
        api.LiteRtDestroyEnvironment(environment)
        flatbuffer.deallocate()
    }

    /// `values` as an input of this model (row-major, as many as the input's shape holds), in
    /// memory LiteRT reads directly.
    package func makeInput(_ values: [Float]) throws -> LiteRTTensor {
        let count = inputShape.reduce(1, *)
        guard values.count == count else {
            throw SDKError(.invalidInput, "The model's input of shape \(inputShape) holds \(count) values, not \(values.count)")
        }
        let input = try LiteRTTensor(type: inputType, count: count, library: library)
        input.write(values)
        return input
    }

    /// Runs the model on `input` and returns a copy of its output (row-major, ``outputShape``).
    package func run(_ input: LiteRTTensor) throws -> [Float] {
        var inputs: [ra_litert_tensor_buffer] = [input.buffer]
        var outputs: [ra_litert_tensor_buffer] = [output.buffer]
        try library.check(library.api.LiteRtRunCompiledModel(compiled, 0, 1, &inputs, 1, &outputs), "run the model")
        return output.read()
    }

    private static func signatureTensors(
        of model: ra_litert_model, api: ra_litert_api, library: LiteRTLibrary
    ) throws -> (input: ra_litert_ranked_tensor_type, output: ra_litert_ranked_tensor_type) {
        var signatures = 0
        try library.check(api.LiteRtGetNumModelSignatures(model, &signatures), "count the model's signatures")
        guard signatures > 0 else { throw SDKError(.invalidInput, "The TensorFlow Lite model has no signature") }
        var signature: ra_litert_signature?
        try library.check(api.LiteRtGetModelSignature(model, 0, &signature), "read the model's signature")
        guard let signature else { throw SDKError(.generationFailed, "LiteRT gave no signature") }
        var inputs = 0
        var outputs = 0
        try library.check(api.LiteRtGetNumSignatureInputs(signature, &inputs), "count the signature's inputs")
        try library.check(api.LiteRtGetNumSignatureOutputs(signature, &outputs), "count the signature's outputs")
        guard inputs == 1, outputs == 1 else {
            throw SDKError(.invalidInput, "The TensorFlow Lite model has \(inputs) inputs and \(outputs) outputs; one of each is supported")
        }
        var input: ra_litert_tensor?
        var output: ra_litert_tensor?
        try library.check(api.LiteRtGetSignatureInputTensorByIndex(signature, 0, &input), "find the input")
        try library.check(api.LiteRtGetSignatureOutputTensorByIndex(signature, 0, &output), "find the output")
        guard let input, let output else { throw SDKError(.generationFailed, "LiteRT gave no input or output tensor") }
        return try (
            rankedType(of: input, role: "input", api: api, library: library),
            rankedType(of: output, role: "output", api: api, library: library)
        )
    }

    private static func rankedType(
        of tensor: ra_litert_tensor, role: String, api: ra_litert_api, library: LiteRTLibrary
    ) throws -> ra_litert_ranked_tensor_type {
        var type = ra_litert_ranked_tensor_type()
        try library.check(api.LiteRtGetRankedTensorType(tensor, &type), "read the \(role)'s type (it must have a fixed rank)")
        let shape = Self.shape(of: type)
        guard type.element_type == RA_LITERT_FLOAT32, !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else {
            throw SDKError(
                .invalidInput,
                "The model's \(role) must be float32 with a fixed shape; it is element type \(type.element_type), shape \(shape)")
        }
        return type
    }

    private static func shape(of type: ra_litert_ranked_tensor_type) -> [Int] {
        withUnsafeBytes(of: type.dimensions) {
            Array($0.bindMemory(to: Int32.self).prefix(Int(min(type.rank, UInt32(RA_LITERT_MAX_RANK)))))
        }
        .map(Int.init)
    }

    /// XNNPACK's thread count, given as LiteRT's CPU options ("xnnpack" opaque options).
    private static func addThreads(_ threads: Int, to options: ra_litert_options, api: ra_litert_api, library: LiteRTLibrary) throws {
        // Callers keep threads to 1...512; a larger count is clamped to what C takes, never trapped on.
        guard let payload = ra_litert_cpu_options_payload(Int32(clamping: max(1, threads))) else {
            throw SDKError(.generationFailed, "Out of memory preparing LiteRT's CPU options")
        }
        var opaque: ra_litert_opaque_options?
        let status = api.LiteRtCreateOpaqueOptions("xnnpack", payload, ra_litert_free_payload, &opaque)
        guard status == 0, let opaque else {
            ra_litert_free_payload(payload)
            throw SDKError(.generationFailed, "LiteRT could not create CPU options: \(LiteRTLibrary.describe(status))")
        }
        let added = api.LiteRtAddOpaqueOptions(options, opaque)
        guard added == 0 else {
            api.LiteRtDestroyOpaqueOptions(opaque)
            throw SDKError(.generationFailed, "LiteRT could not take the CPU options: \(LiteRTLibrary.describe(added))")
        }
    }
}

import Foundation
import RunAnywhere

/// The seed's optional second backend (`BENCH_USE_TFLITE`): TensorFlow Lite. This build runs
/// GradientIdentity on ONNX Runtime only, so asking for TensorFlow Lite looks for its C library
/// (`$RUNANYWHERE_TFLITE_LIB`, libtensorflowlite_c.so or LiteRT's libLiteRt.so) and says why
/// the run falls back to ONNX Runtime, as the seed falls back to Core ML.
public enum TFLiteBackend {
    /// Why the TensorFlow Lite backend cannot run here, for the log.
    public static func fallbackReason(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var candidates = ["libtensorflowlite_c.so", "libLiteRt.so"]
        if let explicit = environment["RUNANYWHERE_TFLITE_LIB"], !explicit.isEmpty { candidates.insert(explicit, at: 0) }
        var failures: [String] = []
        for candidate in candidates {
            guard let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) else {
                failures.append(dlerror().map { String(cString: $0) } ?? candidate)
                continue
            }
            dlclose(handle)
            return "the TensorFlow Lite runtime \(candidate) is installed, but no TensorFlow Lite build of GradientIdentity is bundled; "
                + "running on ONNX Runtime"
        }
        return "the TensorFlow Lite runtime is not installed (\(failures.joined(separator: "; "))); running on ONNX Runtime"
    }
}

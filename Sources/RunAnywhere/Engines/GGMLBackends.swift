/// The compute backends in a ggml build's registry, e.g. ["Vulkan", "CPU"], read through an
/// engine library's own function pointers: each engine (llama.cpp, whisper.cpp,
/// stable-diffusion.cpp) carries a ggml of its own, opened with RTLD_LOCAL.
package enum GGMLBackends {
    /// The registry's backend names, from `ggml_backend_reg_count`, `ggml_backend_reg_get` and
    /// `ggml_backend_reg_name` of one library.
    package static func names(
        count: () -> Int, get: (Int) -> OpaquePointer?, name: (OpaquePointer?) -> UnsafePointer<CChar>?
    ) -> [String] {
        (0..<count()).compactMap { get($0) }.compactMap { name($0) }.map { String(cString: $0) }
    }
}

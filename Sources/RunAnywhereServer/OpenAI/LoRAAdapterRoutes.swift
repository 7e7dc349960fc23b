import Foundation
import Hummingbird
import RunAnywhere

/// The server's LoRA adapters (``ServerConfiguration/loraAdapters``) and their scales now:
/// llama-server's `--lora` list, which `POST /lora-adapters` rescales and a request's `lora`
/// field chooses from by index. The list is the runtime's defaults
/// (``RunAnywhereRuntime/defaultLoRAAdapters``), so that a request of any API that chooses none
/// applies those that fit its model.
struct ServedLoRAAdapters: Sendable {
    let runtime: RunAnywhereRuntime

    /// The adapters with their current scales, by index.
    var all: [LoRAAdapter] { runtime.defaultLoRAAdapters.withLock { $0 } }

    /// The adapters a request applies: those `choice` scales by index (the others at 0, left
    /// out); without a choice, nil: the runtime applies the current ones that fit the model.
    func applied(_ choice: [LoRAScale]?) throws -> [LoRAAdapter]? {
        try choice.map { try rescaled($0).filter { $0.scale != 0 } }
    }

    /// Sets the scales every request without a choice applies, as `choice` gives them.
    func rescale(_ choice: [LoRAScale]) throws {
        let rescaled = try rescaled(choice)
        runtime.defaultLoRAAdapters.withLock { $0 = rescaled }
    }

    /// The adapters with the scales `choice` gives by index, every other one at 0.
    private func rescaled(_ choice: [LoRAScale]) throws -> [LoRAAdapter] {
        var list = all.map { LoRAAdapter(path: $0.path, scale: 0) }
        for entry in choice {
            guard list.indices.contains(entry.id) else {
                let served = list.isEmpty ? "the server has none (serve --lora PATH[:SCALE])" : "the server has ids 0 to \(list.count - 1)"
                throw APIError(.badRequest, "No LoRA adapter with id \(entry.id): \(served)", param: "\(entry.place).id")
            }
            list[entry.id].scale = entry.scale
        }
        return list
    }
}

/// One entry of a `lora` list: an adapter's index in `/lora-adapters` and its scale.
struct LoRAScale: Decodable, Sendable {
    let id: Int
    let scale: Float
    /// Where the entry is in the request (`lora.0`, or `0` in a POST's list), for errors.
    let place: String

    /// The scales a request may give, as the OpenAPI document says.
    static let scales: ClosedRange<Float> = -100...100

    enum CodingKeys: String, CodingKey { case id, scale }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        place = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        guard let id = try container.decode(NumberField<Int>.self, forKey: .id).wrappedValue else {
            throw APIError(.badRequest, "\(place).id must be an adapter's index", param: "\(place).id")
        }
        self.id = id
        scale = try container.decode(NumberField<Float>.self, forKey: .scale).wrappedValue ?? 1
        guard Self.scales.contains(scale) else {
            throw APIError(.badRequest, "\(place).scale must be between -100 and 100", param: "\(place).scale")
        }
    }
}

/// llama-server's `GET /lora-adapters` (each adapter's `id`, `path` and `scale`) and
/// `POST /lora-adapters` (a list of `{"id", "scale"}`; adapters it leaves out go to 0).
struct LoRAAdapterRoutes: Sendable {
    let adapters: ServedLoRAAdapters
    let configuration: ServerConfiguration

    struct Listed: Encodable, Sendable {
        let id: Int
        let path: String
        let scale: Float
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("lora-adapters") { _, _ in
            try jsonResponse(adapters.all.enumerated().map { Listed(id: $0.offset, path: $0.element.path, scale: $0.element.scale) })
        }
        router.post("lora-adapters") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            try adapters.rescale(try decodeJSON([LoRAScale].self, from: data))
            return try jsonResponse(["success": true])
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// The OpenAPI document kept honest where the Swift types can say what it should: each enum it
/// lists is exactly the raw values of the Swift enum it describes, every reference resolves, and
/// every operation declares the refusals the middleware and body readers can answer with.
@Suite struct OpenAPIEnumTests {
    /// The document as `GET /openapi.json` serves it.
    static func document() async throws -> [String: Any] {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        let body = try await app.test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                return response.body
            }
        }
        return try OpenAIRouteTests.json(body)
    }

    /// The value at `path` (object keys) in `json`.
    static func value(_ json: Any, _ path: String...) -> Any? {
        path.reduce(json as Any?) { node, key in (node as? [String: Any])?[key] }
    }

    @Test func everyEnumIsTheSwiftEnumsRawValues() async throws {
        let document = try await Self.document()
        func listed(_ path: String...) -> [String]? {
            path.reduce(document as Any?) { node, key in (node as? [String: Any])?[key] } as? [String]
        }
        func schema(_ name: String) -> [String]? { listed("components", "schemas", name, "enum") }
        #expect(schema("InferenceFramework") == InferenceFramework.allCases.map(\.rawValue))
        #expect(schema("ModelCategory") == ModelCategory.allCases.map(\.rawValue))
        #expect(schema("ModelFormat") == ModelFormat.allCases.map(\.rawValue))
        #expect(schema("FrameworkModality") == FrameworkModality.allCases.map(\.rawValue))
        #expect(schema("MessageRole") == MessageRole.allCases.map(\.rawValue))
        #expect(schema("SDKEnvironment") == SDKEnvironment.allCases.map(\.rawValue))
        #expect(schema("DiffusionScheduler") == DiffusionScheduler.allCases.map(\.rawValue))
        #expect(schema("LifecycleState") == ModelLifecycleState.allCases.map(\.rawValue))
        #expect(schema("BenchmarkCategory") == BenchmarkCategory.allCases.map(\.rawValue))
        // BenchmarkRunStatus has no allCases: the switch stops compiling when a case is added.
        let statuses: [BenchmarkRunStatus] = [.running, .completed, .failed, .cancelled, .interrupted]
        for status in statuses {
            switch status {
            case .running, .completed, .failed, .cancelled, .interrupted: break
            }
        }
        #expect(schema("BenchmarkRunStatus") == statuses.map(\.rawValue))
        let modelInfo = ["components", "schemas", "ModelInfo", "properties"]
        func inModelInfo(_ path: String...) -> [String]? {
            (modelInfo + path).reduce(document as Any?) { node, key in (node as? [String: Any])?[key] } as? [String]
        }
        #expect(inModelInfo("toolCallFormat", "enum") == ToolCallFormat.allCases.map(\.rawValue))
        #expect(inModelInfo("artifactType", "properties", "archiveType", "enum") == ArchiveType.allCases.map(\.rawValue))
        let sources: [ModelSource] = [.remote, .local]
        for source in sources {
            switch source {
            case .remote, .local: break
            }
        }
        #expect(inModelInfo("source", "enum") == sources.map(\.rawValue))
        #expect(
            listed("components", "schemas", "ModelSourceCheck", "properties", "problems", "items", "properties", "field", "enum")
                == [ModelSourceField.url, .framework, .id, .sha256].map(\.rawValue))
    }

    @Test func everyReferenceResolves() async throws {
        let document = try await Self.document()
        var references: Set<String> = []
        func collect(_ node: Any) {
            if let object = node as? [String: Any] {
                if let reference = object["$ref"] as? String { references.insert(reference) }
                object.values.forEach(collect)
            } else if let array = node as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in references.sorted() {
            let path = reference.split(separator: "/").dropFirst().map(String.init)
            #expect(
                reference.hasPrefix("#/") && path.reduce(document as Any?) { node, key in (node as? [String: Any])?[key] } != nil,
                "\(reference) names nothing in the document")
        }
    }

    @Test func everyOperationDeclaresTheRefusalsItCanAnswerWith() async throws {
        let document = try await Self.document()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for (path, operations) in paths {
            for (method, operation) in operations {
                let operation = try #require(operation as? [String: Any])
                let responses = try #require(operation["responses"] as? [String: Any])
                let name = "\(method.uppercased()) \(path)"
                #expect(responses["403"] != nil, "\(name): a foreign Host or Origin is refused (403)")
                if !["/health", "/ready"].contains(path) {
                    #expect(responses["401"] != nil, "\(name): an API key guards it (401)")
                    #expect(responses["429"] != nil, "\(name): a key's rate limit can be spent (429)")
                }
                guard let content = Self.value(operation, "requestBody", "content") as? [String: Any] else { continue }
                #expect(responses["400"] != nil && responses["413"] != nil, "\(name): a body can be malformed (400) or too large (413)")
                if content["application/json"] != nil {
                    #expect(responses["415"] != nil, "\(name): a body that is not JSON is refused (415)")
                }
            }
        }
    }
}

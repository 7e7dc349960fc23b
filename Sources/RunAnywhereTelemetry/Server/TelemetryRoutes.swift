import Foundation
import Hummingbird
import Logging
import RunAnywhere
import RunAnywhereBenchRunner

/// The collector's HTTP routes over a ``TelemetryStore``:
/// `POST /telemetry` (a payload; 201 stored, 200 already stored, 400 naming the field, 413 too
/// large), `GET /telemetry/runs`, `GET /telemetry/summary` and `GET /telemetry/export`.
package struct TelemetryRoutes: Sendable {
    /// Where runs are kept.
    package let store: any TelemetryStore
    /// The most runs a summary reads (the newest).
    package static let summaryWindow = 100_000

    /// Routes over `store`.
    package init(store: any TelemetryStore) {
        self.store = store
    }

    /// Adds the routes to `router` under `/telemetry`, with their own error answers
    /// (`{"error": {"message", "field"}}`) whatever else the router answers errors with.
    package func register<Context: RequestContext>(on router: some RouterMethods<Context>) {
        let group = router.group("telemetry").add(middleware: TelemetryErrorMiddleware())
        group.post { request, _ in try await receive(request) }
        group.get("runs") { request, _ in
            let query = try Self.query(Self.parameters(request), defaultLimit: 100)
            let body = RunsBody(total: try await store.count(query), runs: try await store.runs(query))
            return try Self.json(body)
        }
        group.get("summary") { request, _ in
            let parameters = Self.parameters(request)
            var query = try Self.query(parameters, defaultLimit: Self.summaryWindow)
            query.limit = Self.summaryWindow
            let check = try Self.regressionCheck(parameters)
            let records = try await store.runs(query)
            return try Self.json(
                SummaryBody(runs: records.count, groups: TelemetrySummary.groups(records), regressions: check.regressions(records)))
        }
        group.get("export") { request, _ in
            let parameters = Self.parameters(request)
            var query = try Self.query(parameters, defaultLimit: Self.summaryWindow)
            query.limit = Self.summaryWindow
            let records = try await store.runs(query)
            switch parameters["format"] ?? "csv" {
            case "csv": return Self.response(try TelemetryExport.csv(records), type: "text/csv; charset=utf-8", attachment: "telemetry.csv")
            case "json": return Self.response(try TelemetryExport.json(records), type: "application/json", attachment: "telemetry.json")
            case let format: throw TelemetryHTTPError(.badRequest, "Unknown export format '\(format)'; use csv or json")
            }
        }
    }

    private func receive(_ request: Request) async throws -> Response {
        guard JSONMediaType.matches(request.headers[.contentType]) else {
            throw TelemetryHTTPError(.unsupportedMediaType, "The payload must be JSON, sent with 'Content-Type: application/json'")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: TelemetryValidator.maxBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw TelemetryHTTPError(.contentTooLarge, "The body is larger than \(TelemetryValidator.maxBodyBytes) bytes")
        }
        let payload: TelemetryPayload
        do {
            payload = try TelemetryValidator.validate(Data(buffer: body))
        } catch {
            throw TelemetryHTTPError(error.tooLarge ? .contentTooLarge : .badRequest, error.description, field: error.field)
        }
        let stored = try await store.insert(payload, receivedAt: Date())
        return try Self.json(["status": stored ? "stored" : "duplicate", "run_id": payload.metrics.runID], status: stored ? .created : .ok)
    }

    /// The query string's parameters, decoded as browsers and Python encode forms: `+` is a
    /// space, `%2B` a plus.
    static func parameters(_ request: Request) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = request.uri.query?.replacingOccurrences(of: "+", with: "%20")
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The filters, limit and offset of a request's query string.
    static func query(_ parameters: [String: String], defaultLimit: Int) throws -> TelemetryQuery {
        func number(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
            guard let text = parameters[name] else { return value }
            guard let number = Int(text), range.contains(number) else {
                throw TelemetryHTTPError(
                    .badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
            }
            return number
        }
        return TelemetryQuery(
            modelID: parameters["model_id"], deviceModel: parameters["device_model"], backend: parameters["backend"],
            platform: parameters["platform"],
            limit: try number("limit", default: min(defaultLimit, 1000), range: 1...1000),
            offset: try number("offset", default: 0, range: 0...Int(Int32.max))
        )
    }

    static func regressionCheck(_ parameters: [String: String]) throws -> RegressionCheck {
        var check = RegressionCheck()
        if let text = parameters["latest"] {
            guard let value = Int(text), (1...1000).contains(value) else {
                throw TelemetryHTTPError(.badRequest, "latest must be from 1 to 1000", field: "latest")
            }
            check.latestRuns = value
        }
        if let text = parameters["baseline"] {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw TelemetryHTTPError(.badRequest, "baseline must be from 1 to 10000", field: "baseline")
            }
            check.baselineRuns = value
        }
        if let text = parameters["threshold"] {
            guard let value = Double(text), value.isFinite, value >= 0, value <= 1000 else {
                throw TelemetryHTTPError(.badRequest, "threshold must be a percentage from 0 to 1000", field: "threshold")
            }
            check.thresholdPercent = value
        }
        return check
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return response(try encoder.encode(value), type: "application/json", status: status)
    }

    static func response(_ data: Data, type: String, status: HTTPResponse.Status = .ok, attachment: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        if let attachment { headers[.contentDisposition] = "attachment; filename=\"\(attachment)\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct RunsBody: Encodable {
        let total: Int
        let runs: [TelemetryRecord]
    }

    struct SummaryBody: Encodable {
        let runs: Int
        let groups: [TelemetryGroup]
        let regressions: [TelemetryRegression]
    }
}
